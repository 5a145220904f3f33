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

// TestAccountClaims: an account's own profile is the account's, never a
// session's: the account takes it from a session whose call ended (at
// once), runs beside a session call still on it without taking it, and a
// session's read of it passes without taking it from the account.
func TestAccountClaims(t *testing.T) {
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "hit.flow"), Pool: newPool(t)})
	ctx := t.Context()
	session := func() *mcp.ServerSession {
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
	a, b := session(), session()
	acct := accountOwner("portal/admin")
	const p = "acct-portal_admin"
	now := time.Now()
	steps := []struct {
		who   any
		claim bool // else done
		want  bool
	}{
		{a, true, true},    // a names the profile itself
		{acct, true, true}, // a's call runs: the account's runs beside it
		{a, false, false},
		{acct, false, false},
		{acct, true, true}, // a's call ended: the account takes it at once
		{b, true, true},    // a read passes without taking it
		{acct, true, true}, // the account's next run beside the read
		{b, false, false},
		{acct, false, false},
		{acct, false, false},
		{a, true, true}, // still the account's: a's read passes too
		{a, false, false},
	}
	for i, st := range steps {
		if !st.claim {
			s.owners.done(st.who, p, now)
			continue
		}
		if got := s.owners.claim(st.who, p, now); got != st.want {
			t.Fatalf("step %d: claim by %v = %v, want %v", i, st.who, got, st.want)
		}
	}
	s.owners.mu.Lock()
	owner := s.owners.m[p].who
	s.owners.mu.Unlock()
	if owner != acct {
		t.Errorf("the profile ended up %v's, want the account's", owner)
	}
	// A session's own profile stays its own against another session.
	if !s.owners.claim(a, "p2", now) || s.owners.claim(b, "p2", now) {
		t.Error("sessions are no longer isolated on their own profiles")
	}
}
