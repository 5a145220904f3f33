package rawmcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Stateless is the first protocol version whose requests go over Streamable HTTP each on its own
// (SEP-2575): no initialize, no Mcp-Session-Id, the caller's protocol version, info and
// capabilities in every request's _meta.
const Stateless = "2026-07-28"

// HTTP speaks JSON-RPC over Streamable HTTP by hand at one protocol version, to see a result's
// fields exactly as sent. At Stateless or later each request is one of its own; at an older
// version DialHTTP opens a session (initialize, notifications/initialized) that every request
// names. An HTTP is used by one goroutine at a time.
type HTTP struct {
	t                            testing.TB
	url, token, version, session string
	id                           int64
	hc                           *http.Client
}

// DialHTTP is an HTTP client of the endpoint url presenting token ("": none) as a bearer token
// at protocol version; below Stateless it initializes its session first.
func DialHTTP(t testing.TB, url, token, version string) *HTTP {
	t.Helper()
	c := &HTTP{t: t, url: url, token: token, version: version, hc: &http.Client{Timeout: hang}}
	if version >= Stateless {
		return c
	}
	m := c.Call("initialize", map[string]any{"protocolVersion": version, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw", "version": "1"}})
	if m["error"] != nil || c.session == "" {
		t.Fatalf("initialize at %s: %v (session %q)", version, m, c.session)
	}
	resp := c.post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}, nil)
	resp.Body.Close()
	return c
}

// Session is the Mcp-Session-Id of the client's session ("" at Stateless or later).
func (c *HTTP) Session() string { return c.session }

// Call sends one request (params nil: none) and returns the JSON-RPC response object as
// decoded from the JSON or event-stream answer.
func (c *HTTP) Call(method string, params map[string]any) map[string]any {
	c.t.Helper()
	if c.version >= Stateless {
		p := map[string]any{}
		for k, v := range params {
			p[k] = v
		}
		meta, _ := p["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta["io.modelcontextprotocol/protocolVersion"] = c.version
		meta["io.modelcontextprotocol/clientInfo"] = map[string]any{"name": "raw", "version": "1"}
		meta["io.modelcontextprotocol/clientCapabilities"] = map[string]any{}
		p["_meta"] = meta
		params = p
	}
	c.id++
	msg := map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	h := http.Header{}
	if c.version >= Stateless { // the standard headers (SEP-2243): the method, the tool's or resource's name
		h.Set("Mcp-Method", method)
		for _, k := range []string{"name", "uri"} {
			if v, ok := params[k].(string); ok {
				h.Set("Mcp-Name", v)
			}
		}
	}
	resp := c.post(msg, h)
	defer resp.Body.Close()
	if m := Response(resp.Body, c.id); m != nil {
		return m
	}
	c.t.Fatalf("%s at %s: no answer (HTTP %s)", method, c.version, resp.Status)
	return nil
}

// post sends msg with the headers of the client's protocol version and session, and h.
func (c *HTTP) post(msg any, h http.Header) *http.Response {
	c.t.Helper()
	b, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(b))
	if err != nil {
		c.t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", c.version)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" && c.version < Stateless {
		c.session = s
	}
	return resp
}

// Response reads a Streamable HTTP answer (a JSON body, or server-sent
// events whose data lines are JSON-RPC messages) up to the response to the
// request with this id and returns it; nil when the body ends first.
// Lines up to 16 MiB.
func Response(body io.Reader, id any) map[string]any {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			if !strings.HasPrefix(line, "{") {
				continue
			}
			data = line
		}
		var m map[string]any
		if json.Unmarshal([]byte(data), &m) == nil && m["id"] != nil && fmt.Sprint(m["id"]) == fmt.Sprint(id) {
			return m
		}
	}
	return nil
}
