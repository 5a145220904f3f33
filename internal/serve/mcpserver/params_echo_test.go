package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// echoCanary stands for a password among an agent's arguments.
const echoCanary = "pw-CANARY-4c1e"

// malformedCalls are requests (ids 21...) whose params the server cannot
// decode, each holding the canary and a 1 MB value, with the field the
// answer must name ("" for a message that is not JSON-RPC at all).
func malformedCalls() []struct{ id, field, line string } {
	big := strings.Repeat("b", 1<<20)
	args := `{"password":"` + echoCanary + `","big":"` + big + `"}`
	return []struct{ id, field, line string }{
		{"21", "name", `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":5,"arguments":` + args + `}}`},
		{"22", "_meta", `{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"workflow_hit","arguments":` + args + `,"_meta":"` + echoCanary + big + `"}}`},
		{"23", "params", `{"jsonrpc":"2.0","id":23,"method":"tools/call","params":["` + echoCanary + big + `"]}`},
		{"24", "uri", `{"jsonrpc":"2.0","id":24,"method":"resources/read","params":{"uri":{"pw":"` + echoCanary + big + `"}}}`},
		{"25", "taskId", `{"jsonrpc":"2.0","id":25,"method":"tasks/get","params":{"taskId":["` + echoCanary + big + `"]}}`},
		{"26", "params", `{"jsonrpc":"2.0","id":26,"method":"tasks/get","params":"` + echoCanary + big + `"}`},
		{"27", "", `{"jsonrpc":"2.0","id":27,"method":{"pw":"` + echoCanary + big + `"}}`},
	}
}

// TestMalformedParamsNotEchoed: over stdio, params the SDK cannot decode
// are answered -32602 naming the field, not with the SDK's "unmarshaling
// %q" that sent them back whole (an agent's password, 1 MB); a line that
// is not a JSON-RPC message is refused without its text; the session goes
// on and the log holds none of it.
func TestMalformedParamsNotEchoed(t *testing.T) {
	s, logs := newServer(t, Options{FlowsDir: copyFlows(t, "hit.flow"), NoWatch: true})
	var in strings.Builder
	in.WriteString(stdioInit)
	for _, c := range malformedCalls() {
		in.WriteString(c.line + "\n")
	}
	in.WriteString(`{"jsonrpc":"2.0","id":40,"method":"tools/list"}` + "\n")
	lines := runStdio(t, s, in.String())
	for _, c := range malformedCalls() {
		l := findID(lines, c.id)
		if l == nil || l.Error == nil {
			t.Errorf("%s: no error answer: %+v", c.id, l)
			continue
		}
		raw, _ := json.Marshal(l.Error)
		if bytes.Contains(raw, []byte(echoCanary)) || len(raw) > 1024 {
			t.Errorf("%s: the params came back (%d bytes): %.300s", c.id, len(raw), raw)
		}
		if c.field != "" && (l.Error.Code != -32602 || !strings.Contains(l.Error.Message, c.field+": ") || !strings.Contains(string(raw), `"field":"`+c.field+`"`)) {
			t.Errorf("%s: want -32602 naming %s: %s", c.id, c.field, raw)
		}
	}
	if l := findID(lines, "40"); l == nil || l.Result == nil {
		t.Errorf("no tools/list after the malformed calls")
	}
	if strings.Contains(logs.String(), echoCanary) {
		t.Errorf("the log holds the params")
	}
}

// TestMalformedParamsNotEchoedHTTP: the same over Streamable HTTP (rpa
// serve --http, rpa ui --serve-http): -32602 naming the field, HTTP 200;
// a body that is not a JSON-RPC message is HTTP 400 without its text.
func TestMalformedParamsNotEchoedHTTP(t *testing.T) {
	s, logs := newServer(t, Options{FlowsDir: copyFlows(t, "hit.flow"), NoWatch: true})
	hs := httptest.NewServer(s.HTTPHandler(""))
	defer hs.Close()
	post := func(session, body string) (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
		return resp, b
	}
	resp, _ := post("", strings.TrimSpace(stdioInit))
	session := resp.Header.Get("Mcp-Session-Id")
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, c := range malformedCalls() {
		resp, b := post(session, c.line)
		if bytes.Contains(b, []byte(echoCanary)) || len(b) > 1024 {
			t.Errorf("%s: the params came back (HTTP %d, %d bytes): %.300s", c.id, resp.StatusCode, len(b), b)
			continue
		}
		if c.field == "" {
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "method: want a string") {
				t.Errorf("%s: HTTP %d %s", c.id, resp.StatusCode, b)
			}
			continue
		}
		if i := bytes.Index(b, []byte("data: ")); i >= 0 {
			b, _, _ = bytes.Cut(b[i+6:], []byte("\n"))
		}
		var m struct {
			Error *struct {
				Code int64
				Data struct{ Field string }
			}
		}
		if json.Unmarshal(b, &m) != nil || m.Error == nil || m.Error.Code != -32602 || m.Error.Data.Field != c.field {
			t.Errorf("%s: want -32602 naming %s: HTTP %d %s", c.id, c.field, resp.StatusCode, b)
		}
	}
	_, b := post(session, `{"jsonrpc":"2.0","id":40,"method":"tools/list"}`)
	if !strings.Contains(string(b), "workflow_hit") {
		t.Errorf("no tools/list after the malformed calls: %.300s", b)
	}
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		if strings.Contains(sc.Text(), echoCanary) {
			t.Errorf("the log holds the params: %.200s", sc.Text())
		}
	}
}
