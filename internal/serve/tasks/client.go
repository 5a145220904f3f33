package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Client is the caller's side of the 2026-07-28 tasks extension over a
// go-sdk client, which (v1.8.0) has none: the go-sdk decodes every
// tools/call answer as a CallToolResult and drops a CreateTaskResult's
// fields, so Client reads the answer off the wire (its transport), and
// sends tasks/get, tasks/update and tasks/cancel as custom methods.
// rpa's tests and benchmarks drive tasks with it.
type Client struct {
	// Poll, when set, is Wait's poll interval instead of the task's
	// pollInterval (benchmarks poll often to measure the work, not the
	// interval).
	Poll time.Duration

	mu      sync.Mutex
	refs    map[string]string          // request id → the call's ref
	created map[string]json.RawMessage // ref → the raw result
}

// metaRef marks a tools/call so its raw answer can be found.
const metaRef = "rpa/ref"

// NewClient returns a go-sdk client that declares the extension (on every
// 2026-07-28 request) and knows its methods; c's Transport must carry its
// sessions.
func (c *Client) NewClient(impl *mcp.Implementation, opts *mcp.ClientOptions) *mcp.Client {
	var o mcp.ClientOptions
	if opts != nil {
		o = *opts
	}
	caps := &mcp.ClientCapabilities{}
	if o.Capabilities != nil {
		cp := *o.Capabilities
		caps = &cp
	}
	caps.AddExtension(Extension, map[string]any{})
	o.Capabilities = caps
	if o.ElicitationHandler != nil && caps.Elicitation == nil {
		caps.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}
	}
	cl := mcp.NewClient(impl, &o)
	for _, m := range []string{MethodGet, MethodUpdate, MethodCancel} {
		_ = mcp.AddSendingCustomMethod[*Params, *ClientResult](cl, m)
	}
	return cl
}

// Transport wraps a client transport so that c sees tools/call answers.
func (c *Client) Transport(t mcp.Transport) mcp.Transport { return clientTransport{t, c} }

type clientTransport struct {
	mcp.Transport
	c *Client
}

func (t clientTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return clientConn{conn, t.c}, nil
}

type clientConn struct {
	mcp.Connection
	c *Client
}

func (cc clientConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/call" && req.IsCall() {
		var p struct {
			Meta map[string]any `json:"_meta"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if ref, ok := p.Meta[metaRef].(string); ok {
				cc.c.mu.Lock()
				if cc.c.refs == nil {
					cc.c.refs = map[string]string{}
				}
				cc.c.refs[idKey(req.ID)] = ref
				cc.c.mu.Unlock()
			}
		}
	}
	return cc.Connection.Write(ctx, msg)
}

func (cc clientConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := cc.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil && resp.Result != nil {
		cc.c.mu.Lock()
		if ref, ok := cc.c.refs[idKey(resp.ID)]; ok {
			delete(cc.c.refs, idKey(resp.ID))
			if cc.c.created == nil {
				cc.c.created = map[string]json.RawMessage{}
			}
			cc.c.created[ref] = resp.Result
		}
		cc.c.mu.Unlock()
	}
	return msg, err
}

func idKey(id jsonrpc.ID) string {
	b, _ := json.Marshal(id.Raw())
	return string(b)
}

// ClientResult is a tasks/* answer as the client decodes it: a task
// (tasks/get) or an acknowledgement.
type ClientResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType,omitempty"`
	TaskV2
}

// Call calls a tool; when the server made it a task it returns the task
// (the CreateTaskResult) and a nil result, else the result.
func (c *Client) Call(ctx context.Context, cs *mcp.ClientSession, params *mcp.CallToolParams) (*TaskV2, *mcp.CallToolResult, error) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	ref := hex.EncodeToString(b[:])
	p := *params
	p.Meta = withMeta(params.Meta, metaRef, ref)
	res, err := cs.CallTool(ctx, &p)
	c.mu.Lock()
	raw := c.created[ref]
	delete(c.created, ref)
	c.mu.Unlock()
	if err != nil {
		return nil, nil, err
	}
	var head struct {
		ResultType string `json:"resultType"`
	}
	if raw != nil && json.Unmarshal(raw, &head) == nil && head.ResultType == "task" {
		var t TaskV2
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, nil, err
		}
		return &t, nil, nil
	}
	return nil, res, nil
}

// Get is tasks/get.
func (c *Client) Get(ctx context.Context, cs *mcp.ClientSession, id string) (*TaskV2, error) {
	r, err := mcp.CallCustomMethod[*Params, *ClientResult](ctx, cs, MethodGet, &Params{TaskID: id})
	if err != nil {
		return nil, err
	}
	return &r.TaskV2, nil
}

// Update is tasks/update.
func (c *Client) Update(ctx context.Context, cs *mcp.ClientSession, id string, responses mcp.InputResponseMap) error {
	_, err := mcp.CallCustomMethod[*Params, *ClientResult](ctx, cs, MethodUpdate, &Params{TaskID: id, InputResponses: responses})
	return err
}

// Cancel is tasks/cancel.
func (c *Client) Cancel(ctx context.Context, cs *mcp.ClientSession, id string) error {
	_, err := mcp.CallCustomMethod[*Params, *ClientResult](ctx, cs, MethodCancel, &Params{TaskID: id})
	return err
}

// Inputs decodes a task's inputRequests.
func (t *TaskV2) Inputs() (mcp.InputRequestMap, error) {
	var m mcp.InputRequestMap
	if len(t.InputRequests) == 0 {
		return m, nil
	}
	err := json.Unmarshal(t.InputRequests, &m)
	return m, err
}

// CallResult decodes a completed task's result.
func (t *TaskV2) CallResult() (*mcp.CallToolResult, error) {
	if len(t.Result) == 0 {
		return nil, fmt.Errorf("task %s (%s) has no result", t.TaskID, t.Status)
	}
	var r mcp.CallToolResult
	return &r, json.Unmarshal(t.Result, &r)
}

// Wait polls task id (at its poll interval, at least every 10 ms, or
// every Poll) until
// it is terminal, answering its questions with answer (nil: a question is
// an error), and returns it.
func (c *Client) Wait(ctx context.Context, cs *mcp.ClientSession, id string, answer func(key string, r mcp.InputRequest) (mcp.InputResponse, error)) (*TaskV2, error) {
	answered := map[string]bool{}
	for {
		t, err := c.Get(ctx, cs, id)
		if err != nil {
			return nil, err
		}
		if Terminal(t.Status) {
			return t, nil
		}
		if t.Status == InputRequired {
			irs, err := t.Inputs()
			if err != nil {
				return nil, err
			}
			out := mcp.InputResponseMap{}
			for k, r := range irs {
				if answered[k] {
					continue
				}
				if answer == nil {
					return nil, errors.New("the task asks a question and nobody answers")
				}
				resp, err := answer(k, r)
				if err != nil {
					return nil, err
				}
				out[k], answered[k] = resp, true
			}
			if len(out) > 0 {
				if err := c.Update(ctx, cs, id, out); err != nil {
					return nil, err
				}
				continue
			}
		}
		wait := max(time.Duration(t.PollIntervalMs)*time.Millisecond, 10*time.Millisecond)
		if c.Poll > 0 {
			wait = c.Poll
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}
