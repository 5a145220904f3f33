package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
)

// taskParam is a client transport that asks for a task on every
// tools/call (the 2025-11-25 `task` param, which the go-sdk's
// CallToolParams has no field for).
type taskParam struct{ mcp.Transport }

func (t taskParam) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	return taskParamConn{c}, err
}

type taskParamConn struct{ mcp.Connection }

func (c taskParamConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Request); ok && r.Method == "tools/call" {
		var p map[string]any
		if err := json.Unmarshal(r.Params, &p); err != nil {
			return err
		}
		p["task"] = map[string]any{}
		cp := *r
		cp.Params, _ = json.Marshal(p)
		msg = &cp
	}
	return c.Connection.Write(ctx, msg)
}

// v1Tasks is a 2025-11-25 tasks/list answer.
type v1Tasks struct {
	mcp.ResultBase
	Tasks []tasks.TaskV1 `json:"tasks"`
}

// v1Task is a 2025-11-25 tasks/get answer.
type v1Task struct {
	mcp.ResultBase
	tasks.TaskV1
}

// taskSession opens a 2025-11-25 session over Streamable HTTP with token
// that knows the tasks/* methods and answers elicitations with elicit.
func taskSession(t *testing.T, url, token string, elicit func(*mcp.ElicitParams) (*mcp.ElicitResult, error), wrap func(mcp.Transport) mcp.Transport) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return elicit(r.Params) }})
	_ = mcp.AddSendingCustomMethod[*tasks.Params, *v1Tasks](c, tasks.MethodList)
	_ = mcp.AddSendingCustomMethod[*tasks.Params, *v1Task](c, tasks.MethodGet)
	_ = mcp.AddSendingCustomMethod[*tasks.Params, *mcp.CallToolResult](c, tasks.MethodResult)
	var tr mcp.Transport = &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: bearerClient(token)}
	if wrap != nil {
		tr = wrap(tr)
	}
	cs, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if cs.ID() == "" {
		t.Fatal("want a 2025-11-25 session with an Mcp-Session-Id")
	}
	return cs
}

// TestTaskAfterReconnect (tester's finding 1): a 2025-11-25 client whose
// session A created a task that asks, and that comes back on a new session
// B with the same bearer token while A still lives (crashed, no DELETE),
// reaches its task by id at once: tasks/get shows input_required, and
// B's tasks/result brings both questions as elicitations and the result
// once answered. tasks/list does not hand B the id while A lives; another
// token still gets "task not found".
func TestTaskAfterReconnect(t *testing.T) {
	base := verifySite(t)
	s, _ := newServer(t, Options{FlowsDir: verifyFlows(t), NoWatch: true, Pool: newPool(t),
		HITL: &hitl.Config{Order: []string{hitl.ChannelClient}}})
	hs := httptest.NewServer(s.HTTPHandler("tok-a", "tok-b"))
	t.Cleanup(hs.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()

	a := taskSession(t, hs.URL, "tok-a", func(*mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return nil, errors.New("A crashed")
	}, func(tr mcp.Transport) mcp.Transport { return taskParam{tr} })
	if _, err := a.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_verify", Arguments: map[string]any{"base_url": base}}); err != nil {
		t.Fatal(err)
	}
	lst, err := mcp.CallCustomMethod[*tasks.Params, *v1Tasks](ctx, a, tasks.MethodList, &tasks.Params{})
	if err != nil || len(lst.Tasks) != 1 {
		t.Fatalf("A's tasks: %+v %v", lst, err)
	}
	id := lst.Tasks[0].TaskID
	// A goes quiet without DELETE (its session lives on the server).

	var asked []string
	b := taskSession(t, hs.URL, "tok-a", func(p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		asked = append(asked, p.Message)
		if m := captchaRe.FindStringSubmatch(p.Message); m != nil {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": m[1]}}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "482913"}}, nil
	}, nil)
	waitUntil(t, func() bool {
		g, err := mcp.CallCustomMethod[*tasks.Params, *v1Task](ctx, b, tasks.MethodGet, &tasks.Params{TaskID: id})
		if err != nil {
			t.Fatalf("B's tasks/get of its token's task: %v", err)
		}
		return g.Status == tasks.InputRequired
	})
	if l, err := mcp.CallCustomMethod[*tasks.Params, *v1Tasks](ctx, b, tasks.MethodList, &tasks.Params{}); err != nil || len(l.Tasks) != 0 {
		t.Errorf("B lists %+v %v while A lives: want none (by id only)", l, err)
	}
	other := taskSession(t, hs.URL, "tok-b", func(*mcp.ElicitParams) (*mcp.ElicitResult, error) {
		t.Error("another token was asked the task's question")
		return nil, errors.New("no")
	}, nil)
	for _, m := range []string{tasks.MethodGet, tasks.MethodResult} {
		var err error
		if m == tasks.MethodGet {
			_, err = mcp.CallCustomMethod[*tasks.Params, *v1Task](ctx, other, m, &tasks.Params{TaskID: id})
		} else {
			_, err = mcp.CallCustomMethod[*tasks.Params, *mcp.CallToolResult](ctx, other, m, &tasks.Params{TaskID: id})
		}
		if err == nil || !strings.Contains(err.Error(), "Task not found") {
			t.Errorf("%s by another token: %v", m, err)
		}
	}

	res, err := mcp.CallCustomMethod[*tasks.Params, *mcp.CallToolResult](ctx, b, tasks.MethodResult, &tasks.Params{TaskID: id})
	if err != nil {
		t.Fatalf("B's tasks/result: %v", err)
	}
	if len(asked) != 2 || !strings.HasPrefix(asked[0], "Captcha") || !strings.HasPrefix(asked[1], "SMS code") {
		t.Errorf("B was asked %q", asked)
	}
	sc, _ := res.StructuredContent.(map[string]any)
	if out, _ := json.Marshal(sc["outputs"]); res.IsError || string(out) != `{"captcha":"X7K2P","sms":"482913","status":"Verified"}` {
		t.Errorf("result %s (isError %v)", out, res.IsError)
	}
}
