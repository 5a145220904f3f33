package mcpws_test

// The tests' adapter of a Link to mcp.Transport: the gateway and the
// connect client multiplex sessions over one link themselves, so only the
// tests run a go-sdk client or server straight on a socket.

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/link/mcpws"
)

// Transport adapts a Link to mcp.Transport so a go-sdk client or server can speak directly on the
// socket, whichever side dialled. Control frames go to OnControl (nil: dropped). A frame that is
// not JSON-RPC is answered with a -32700 parse error and skipped; the session survives.
type Transport struct {
	Link      *mcpws.Link
	OnControl func(typ string, frame []byte)
	Logger    *slog.Logger // nil: slog.Default()
}

// Connect implements mcp.Transport. It may be called once.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	if t.Link == nil {
		return nil, errors.New("mcpws: Transport without a Link")
	}
	return &conn{t: t}, nil
}

type conn struct{ t *Transport }

var _ mcp.Connection = (*conn)(nil)

// Read returns the next JSON-RPC message (ReadMessage); Close unblocks it
// (the link's read fails).
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := mcpws.ReadMessage(c.t.Link, c.t.OnControl, c.t.Logger)
	if err != nil {
		select {
		case <-c.t.Link.Done():
			return nil, io.EOF
		default:
		}
		return nil, err
	}
	return msg, nil
}

// Write sends msg as one text frame.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.t.Link.WriteFrame(b)
}

// Close closes the link.
func (c *conn) Close() error { return c.t.Link.Close() }

// SessionID is empty: the link has no session id of its own.
func (c *conn) SessionID() string { return "" }
