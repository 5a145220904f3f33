package mrtr

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/testutil/rawmcp"
)

// canary stands for a password among an agent's arguments.
const canary = "pw-CANARY-7f3a9"

// badParams are params the SDK cannot decode, each holding the canary and
// a 1 MB value, and the field the answer must name.
func badParams() []struct {
	method, field string
	params        string
} {
	big := strings.Repeat("b", 1<<20)
	args := `{"password":"` + canary + `","big":"` + big + `"}`
	return []struct {
		method, field string
		params        string
	}{
		{"tools/call", "name", `{"name":5,"arguments":` + args + `}`},
		{"tools/call", "_meta", `{"name":"t","arguments":` + args + `,"_meta":"` + canary + big + `"}`},
		{"tools/call", "params", `["` + canary + big + `"]`},
		{"initialize", "protocolVersion", `{"protocolVersion":5,"capabilities":{},"clientInfo":{"name":"` + canary + big + `","version":"1"}}`},
		{"initialize", "capabilities.roots", `{"protocolVersion":"2025-06-18","capabilities":{"roots":"` + canary + `"},"clientInfo":{"name":"x","version":"1"}}`},
		{"resources/read", "uri", `{"uri":7,"x":"` + canary + big + `"}`},
		{"prompts/get", "arguments.k", `{"name":"p","arguments":{"k":5,"pw":"` + canary + big + `"}}`},
		{"completion/complete", "ref", `{"ref":{"type":"` + canary + big + `"},"argument":{"name":"a","value":"v"}}`},
		{"tools/list", "cursor", `{"cursor":5,"x":"` + canary + big + `"}`},
		{"resources/list", "cursor", `{"cursor":["` + canary + big + `"]}`},
		{"logging/setLevel", "level", `{"level":{"x":"` + canary + big + `"}}`},
		{"ping", "_meta", `{"_meta":"` + canary + big + `"}`},
	}
}

// testServer is an MCP server with a tool, a resource and a prompt, and
// the log it writes.
func testServer(t *testing.T) (*mcp.Server, *bytes.Buffer) {
	var logs bytes.Buffer
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{}, nil
		},
	})
	s.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	s.AddResource(&mcp.Resource{URI: "rpa://r", Name: "r"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "rpa://r", Text: "r"}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "p"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	return s, &logs
}

// checkAnswer fails t unless r is -32602 naming field and holds neither
// the canary nor more than 1 kB.
func checkAnswer(t *testing.T, what, field string, raw []byte) {
	t.Helper()
	var r struct {
		Error *struct {
			Code    int64
			Message string
			Data    struct{ Field string }
		}
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Error == nil {
		t.Errorf("%s: not an error answer (%v): %.300s", what, err, raw)
		return
	}
	if bytes.Contains(raw, []byte(canary)) || len(raw) > 1024 {
		t.Errorf("%s: the params came back (%d bytes): %.300s", what, len(raw), raw)
	}
	if r.Error.Code != jsonrpc.CodeInvalidParams || r.Error.Data.Field != field || !strings.HasPrefix(r.Error.Message, field+": ") {
		t.Errorf("%s: want -32602 naming %s, got %d %q field %q", what, field, r.Error.Code, r.Error.Message, r.Error.Data.Field)
	}
}

// TestParamsNotEchoed: params the SDK cannot decode are answered -32602
// naming the field, over a connection (CheckTransport) and over
// Streamable HTTP (CheckHTTP), never with the params (a password, 1 MB)
// quoted as the SDK's own answer does (asserted too, so the test says when
// the SDK stops doing it). (Whether the SDK logs a bare session's params is not ours to assert.)
func TestParamsNotEchoed(t *testing.T) {
	s, _ := testServer(t)
	checked, _ := rawmcp.Pipe(t, s, CheckTransport)
	checked.Initialize("2025-06-18", nil)
	bare, _ := rawmcp.Pipe(t, s, nil)
	bare.Initialize("2025-06-18", nil)

	h := CheckHTTP(StreamableHandler(func(*http.Request) *mcp.Server { return s }, nil))
	ts := httptest.NewServer(h)
	defer ts.Close()
	_, session, _ := post(t, ts.URL, "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	post(t, ts.URL, session, "2025-06-18", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	for _, c := range badParams() {
		if r := bare.Call(c.method, json.RawMessage(c.params)); r.Error == nil || !strings.Contains(r.Error.Error(), canary) {
			t.Logf("%s %s: the SDK no longer echoes the params: %.200v", c.method, c.field, r.Error)
		}
		r := checked.Call(c.method, json.RawMessage(c.params))
		raw, _ := jsonrpc.EncodeMessage(r)
		checkAnswer(t, "conn "+c.method+" "+c.field, c.field, raw)

		for _, sess := range []string{session, ""} { // in a session, and a stateless request
			version := "2025-06-18"
			body := `{"jsonrpc":"2.0","id":9,"method":"` + c.method + `","params":` + c.params + `}`
			if sess == "" {
				version = Protocol
			}
			code, _, m := post(t, ts.URL, sess, version, body)
			raw, _ := json.Marshal(m)
			if code != http.StatusOK {
				t.Errorf("http %s %s: HTTP %d", c.method, c.field, code)
			}
			checkAnswer(t, "http "+c.method+" "+c.field+" session "+sess, c.field, raw)
		}
	}
	// Bodies that are not JSON-RPC messages: HTTP 400 naming what is wrong,
	// where the SDK's "malformed payload" quoted the message.
	big := strings.Repeat("b", 1<<20)
	for _, c := range []struct{ body, want string }{
		{`{"jsonrpc":"` + canary + big + `","id":1,"method":"ping"}`, `jsonrpc: want "2.0"`},
		{`{"jsonrpc":"2.0","id":1,"method":["` + canary + big + `"]}`, "method: want a string, got an array"},
		{`{"jsonrpc":"2.0","id":true,"method":"ping","params":{"x":"` + canary + `"}}`, "id: want a string or a number"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + canary, "not valid JSON"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":5,"arguments":{"pw":"` + canary + big + `"}}}]`, "message 2: name: want a string"},
		{`[{"jsonrpc":"2.0","id":1,"method":{"pw":"` + canary + big + `"}}]`, "message 1: method: want a string, got an object"},
		// the message, not its params, is what is not an object; where
		// JSON stops, by byte
		{`"just a string"`, "malformed payload: message: want an object, got a string"},
		{`null`, "malformed payload: message: want an object, got null"},
		{`[1,2]`, "malformed payload: message 1: want an object, got a number"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"},"x"]`, "malformed payload: message 2: want an object, got a string"},
		{`{"jsonrpc":"2.0",,"id":1}`, "malformed payload: not valid JSON (at byte 18)"},
		{`[{"jsonrpc":"2.0"}`, "malformed payload: not valid JSON: it ends early (after byte 18)"},
	} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 2<<20))
		resp.Body.Close()
		if code := resp.StatusCode; code != http.StatusBadRequest || bytes.Contains(raw, []byte(canary)) || len(raw) > 1024 || !strings.Contains(string(raw), c.want) {
			t.Errorf("%.60s: HTTP %d, %d bytes: %.300s", c.body, code, len(raw), raw)
		}
	}
	// A bad notification is dropped, and the session goes on.
	checked.Notify("notifications/cancelled", json.RawMessage(`{"requestId":1,"reason":{"pw":"`+canary+`"}}`))
	if r := checked.Call("tools/call", map[string]any{"name": "t", "arguments": map[string]any{"password": canary}}); r.Error != nil {
		t.Errorf("a good call after the bad ones: %v", r.Error)
	}
}

// TestParamsPassed: params that decode, a tool's arguments of any shape
// among them, reach the SDK unchanged (ParamsError is nil exactly when the
// SDK's decode succeeds; fields are matched case-sensitively as it does).
func TestParamsPassed(t *testing.T) {
	for _, c := range []struct{ method, params string }{
		{"tools/call", `{"name":"t","arguments":{"a":[1,{"b":null}],"c":"` + canary + `"}}`},
		{"tools/call", `{"name":"t","arguments":"not an object","task":{"ttl":5},"_meta":{"progressToken":1}}`},
		{"tools/call", `{"Name":5,"name":"t"}`}, // "Name" is not "name" to the SDK
		{"tools/call", `null`},
		{"initialize", `{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"elicitation":{}},"clientInfo":{"name":"x","version":"1"}}`},
		{"resources/read", `{"uri":"rpa://r"}`},
		{"prompts/get", `{"name":"p","arguments":{"k":"v"}}`},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"v"}}`},
		{"tools/list", `{}`},
		{"tasks/get", `{"taskId":5}`}, // a custom method decodes its own params
		{"no/such", `[1]`},
	} {
		if e := ParamsError(&jsonrpc.Request{Method: c.method, Params: json.RawMessage(c.params)}); e != nil {
			t.Errorf("%s %s: %v", c.method, c.params, e)
		}
	}
}

// TestBadParam names the field of plain encoding/json types too.
func TestBadParam(t *testing.T) {
	type p struct {
		A struct {
			B int `json:"b"`
		} `json:"a"`
		C []string `json:"c"`
	}
	dec := func(b []byte) error { return json.Unmarshal(b, new(p)) }
	for _, c := range []struct{ in, field, msg string }{
		{`{"a":{"b":"x"}}`, "a.b", "a.b: want a number, got a string"},
		{`{"c":{"x":1}}`, "c", "c: want an array, got an object"},
		{`"x"`, "params", "params: want an object, got a string"},
	} {
		if f, m := BadParam([]byte(c.in), dec); f != c.field || m != c.msg {
			t.Errorf("%s: %q %q, want %q %q", c.in, f, m, c.field, c.msg)
		}
	}
	long := strings.Repeat("k", 300)
	f, m := BadParam([]byte(`{"`+long+`":1}`), func([]byte) error { return io.ErrUnexpectedEOF })
	if strings.Contains(f+m, long) || !strings.Contains(m, "too long to show (300 bytes)") {
		t.Errorf("a long field name: %q %q", f, m)
	}
}
