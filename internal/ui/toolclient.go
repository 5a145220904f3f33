package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
)

// toolClient is the console's MCP session with the served tools: raw JSON-RPC over an in-memory
// transport, so the server's error codes and messages (-32602 naming a field, -32004 a browser
// that cannot start) reach the page as they are (the go-sdk client turns some of them into
// "connection closed"). It speaks protocol 2025-11-25 and declares no client capability: a flow's
// `ask` goes to the person channels of the server's HITL configuration, not to this session.
type toolClient struct {
	conn mcp.Connection

	mu      sync.Mutex
	next    int64
	pending map[int64]chan *jsonrpc.Response
	dead    error
}

// cancelGrace is how long a stopped call's cancelled result is waited for.
const cancelGrace = 30 * time.Second

// clientProtocol is the protocol version the console's session asks for.
const clientProtocol = "2025-11-25"

// dialTools connects a new session to srv and initializes it.
func dialTools(ctx context.Context, srv *mcpserver.Server) (*toolClient, error) {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to the tools: %w", err)
	}
	// The person at the console owns the desktop's browsers: the console's session uses every
	// profile without taking one from an agent's session (agents stay isolated from each other).
	srv.ShareProfilesWith(ss)
	conn, err := ct.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c := &toolClient{conn: conn, pending: map[int64]chan *jsonrpc.Response{}}
	go c.readLoop()
	init := map[string]any{
		"protocolVersion": clientProtocol,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "rpa-console", "version": "1"},
	}
	if _, err := c.call(ctx, "initialize", init); err != nil {
		c.close()
		return nil, fmt.Errorf("initializing the console's session: %w", err)
	}
	if err := c.notify(ctx, "notifications/initialized", map[string]any{}); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// readLoop delivers responses to their callers, answers the server's requests (ping; anything
// else "method not found") and drops notifications (progress: the console watches events
// through mcpserver.WatchCall instead).
func (c *toolClient) readLoop() {
	for {
		msg, err := c.conn.Read(context.Background())
		if err != nil {
			c.mu.Lock()
			c.dead = fmt.Errorf("the console's session with the tools ended: %w", err)
			for id, ch := range c.pending {
				close(ch)
				delete(c.pending, id)
			}
			c.mu.Unlock()
			return
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			n, _ := m.ID.Raw().(int64)
			c.mu.Lock()
			ch := c.pending[n]
			delete(c.pending, n)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case *jsonrpc.Request:
			if !m.ID.IsValid() {
				continue
			}
			resp := &jsonrpc.Response{ID: m.ID}
			if m.Method == "ping" {
				resp.Result = json.RawMessage(`{}`)
			} else {
				resp.Error = &jsonrpc.Error{Code: -32601, Message: "the console's session does not answer " + m.Method}
			}
			_ = c.conn.Write(context.Background(), resp)
		}
	}
}

// rpcError is a JSON-RPC error answer.
type rpcError struct {
	Code    int64
	Message string
	Data    json.RawMessage
}

func (e *rpcError) Error() string { return e.Message }

// call sends a request and waits for its answer (ctx ends the wait and sends a cancel).
func (c *toolClient) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.dead != nil {
		c.mu.Unlock()
		return nil, c.dead
	}
	c.next++
	n := c.next
	ch := make(chan *jsonrpc.Response, 1)
	c.pending[n] = ch
	c.mu.Unlock()
	id, err := jsonrpc.MakeID(float64(n)) // MakeID takes JSON's float64 for a number ID
	if err != nil {
		return nil, err
	}
	if err := c.conn.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: raw}); err != nil {
		c.mu.Lock()
		delete(c.pending, n)
		c.mu.Unlock()
		return nil, err
	}
	select {
	case resp, ok := <-ch:
		if !ok {
			c.mu.Lock()
			defer c.mu.Unlock()
			return nil, c.dead
		}
		if resp.Error != nil {
			var we *jsonrpc.Error
			if errors.As(resp.Error, &we) {
				return nil, &rpcError{Code: we.Code, Message: we.Message, Data: we.Data}
			}
			return nil, resp.Error
		}
		return resp.Result, nil
	case <-ctx.Done():
		_ = c.notify(context.Background(), "notifications/cancelled", map[string]any{"requestId": n, "reason": "stopped in the console"})
		// The server answers a cancelled call with its (cancelled) result: wait for it a moment
		// so the run is recorded as cancelled before the page is told.
		select {
		case resp, ok := <-ch:
			if ok && resp.Error == nil {
				return resp.Result, nil
			}
		case <-time.After(cancelGrace):
		}
		return nil, ctx.Err()
	}
}

// notify sends a notification.
func (c *toolClient) notify(ctx context.Context, method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.conn.Write(ctx, &jsonrpc.Request{Method: method, Params: raw})
}

// alive reports whether the session still reads.
func (c *toolClient) alive() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead == nil
}

func (c *toolClient) close() { _ = c.conn.Close() }
