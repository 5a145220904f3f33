package mcpserver

import (
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestShareProfilesWith: a session marked shared (the console's own) uses a
// profile another session owns, and never takes it: the owner keeps it, and
// two ordinary sessions stay isolated from each other.
func TestShareProfilesWith(t *testing.T) {
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "hit.flow"), Pool: newPool(t)})
	ctx := t.Context()
	connect := func() *mcp.ServerSession {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.MCP().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cc, err := ct.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cc.Close() })
		return ss
	}
	agent, other, console := connect(), connect(), connect()
	s.ShareProfilesWith(console)
	now := time.Now()
	if !s.owners.claim(agent, "default", now) {
		t.Fatal("agent could not claim a free profile")
	}
	if !s.owners.claim(console, "default", now) {
		t.Error("the shared session was refused the agent's profile")
	}
	s.owners.done(console, "default", now)
	s.owners.done(agent, "default", now)
	if s.owners.claim(other, "default", now) {
		t.Error("another agent got the first agent's profile")
	}
	// The console's call on a free profile does not make it the console's.
	if !s.owners.claim(console, "p2", now) {
		t.Error("shared session refused a free profile")
	}
	s.owners.done(console, "p2", now)
	if !s.owners.claim(other, "p2", now) {
		t.Error("a profile the console used was taken from the agents")
	}
}
