package connect

import (
	"context"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// session is the go-sdk connection of one link's MCP session. It outlives its link while calls it
// started are still running, so their answers can be kept and delivered on a later link; its
// Write never fails (that would make the SDK cancel those calls).
type session struct {
	c  *Client
	in chan jsonrpc.Message

	closed    chan struct{}
	closeOnce sync.Once

	// guarded by c.mu
	inflight    int
	detached    bool
	initialized bool
	pendingOut  map[string]jsonrpc.ID
}

func newSession(c *Client) *session {
	return &session{c: c, in: make(chan jsonrpc.Message, 16), closed: make(chan struct{}), pendingOut: map[string]jsonrpc.ID{}}
}

var (
	_ mcp.Transport  = (*session)(nil)
	_ mcp.Connection = (*session)(nil)
)

// Connect implements mcp.Transport.
func (s *session) Connect(context.Context) (mcp.Connection, error) { return s, nil }

// deliver queues m for the session; dropped once the session is closed.
func (s *session) deliver(m jsonrpc.Message) {
	select {
	case s.in <- m:
	case <-s.closed:
	}
}

// Read implements mcp.Connection.
func (s *session) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-s.in:
		return m, nil
	case <-s.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements mcp.Connection: answers are kept and routed by the client, requests and
// notifications go up the current link when there is one.
func (s *session) Write(ctx context.Context, msg jsonrpc.Message) error {
	switch m := msg.(type) {
	case *jsonrpc.Response:
		s.c.answered(s, m)
	case *jsonrpc.Request:
		s.c.outgoing(ctx, s, m)
	}
	return nil
}

// Close implements mcp.Connection.
func (s *session) Close() error {
	s.close()
	return nil
}

func (s *session) close() { s.closeOnce.Do(func() { close(s.closed) }) }

// SessionID implements mcp.Connection.
func (s *session) SessionID() string { return "" }
