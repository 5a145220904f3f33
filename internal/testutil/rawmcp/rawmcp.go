// Package rawmcp is a test client that speaks MCP's JSON-RPC frames itself, to see exactly what a
// server sends (error codes and data, fields of experimental methods) where the go-sdk client
// would decode or hide it. For tests only.
package rawmcp

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hang bounds the wait for an answer: it only catches a server that never answers.
const hang = time.Minute

// Client sends requests and notifications on Conn and reads the answers. A Client is used by one
// goroutine at a time.
type Client struct {
	t  testing.TB
	id int64
	// Conn is the client's end, for a test that reads frames itself (notifications).
	Conn mcp.Connection
	// OnRequest answers the server's requests met while waiting for an answer (elicitation,
	// sampling); nil answers -32601. Notifications met meanwhile are skipped.
	OnRequest func(req *jsonrpc.Request) (any, error)
}

// New is a Client on conn.
func New(t testing.TB, conn mcp.Connection) *Client {
	return &Client{t: t, Conn: conn}
}

// Pipe connects srv to a new Client over in-memory transports, wrap (nil: none) wrapping the
// server's end (tasks.LiftTransport, ...). Both ends close with the test. It does not
// initialize (Initialize does).
func Pipe(t testing.TB, srv *mcp.Server, wrap func(mcp.Transport) mcp.Transport) (*Client, *mcp.ServerSession) {
	t.Helper()
	var st mcp.Transport
	st, ct := mcp.NewInMemoryTransports()
	if wrap != nil {
		st = wrap(st)
	}
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	conn, err := ct.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return New(t, conn), ss
}

// Initialize opens the session at protocol version with the client's capabilities caps (nil:
// none), as client "raw", and sends notifications/initialized.
func (c *Client) Initialize(version string, caps map[string]any) {
	c.t.Helper()
	if caps == nil {
		caps = map[string]any{}
	}
	r := c.Call("initialize", map[string]any{"protocolVersion": version, "capabilities": caps,
		"clientInfo": map[string]any{"name": "raw", "version": "1"}})
	if r.Error != nil {
		c.t.Fatalf("initialize: %v", r.Error)
	}
	c.Notify("notifications/initialized", map[string]any{})
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) {
	c.t.Helper()
	b, _ := json.Marshal(params)
	if err := c.Conn.Write(context.Background(), &jsonrpc.Request{Method: method, Params: b}); err != nil {
		c.t.Fatal(err)
	}
}

// Call sends a request and returns its answer, answering the server's requests meanwhile
// (OnRequest).
func (c *Client) Call(method string, params any) *jsonrpc.Response {
	c.t.Helper()
	c.id++
	id, _ := jsonrpc.MakeID(float64(c.id))
	b, _ := json.Marshal(params)
	if err := c.Conn.Write(context.Background(), &jsonrpc.Request{ID: id, Method: method, Params: b}); err != nil {
		c.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	for {
		msg, err := c.Conn.Read(ctx)
		if err != nil {
			c.t.Fatalf("%s: %v", method, err)
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			if m.ID == id {
				return m
			}
		case *jsonrpc.Request:
			if m.IsCall() {
				c.answer(m)
			}
		}
	}
}

// answer answers a request of the server's with OnRequest (nil: -32601).
func (c *Client) answer(m *jsonrpc.Request) {
	c.t.Helper()
	var res any
	var rerr error = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "no"}
	if c.OnRequest != nil {
		res, rerr = c.OnRequest(m)
	}
	resp := &jsonrpc.Response{ID: m.ID}
	if rerr != nil {
		resp.Error = rerr
	} else {
		resp.Result, _ = json.Marshal(res)
	}
	if err := c.Conn.Write(context.Background(), resp); err != nil {
		c.t.Fatal(err)
	}
}
