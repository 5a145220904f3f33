package gateway

import (
	"fmt"
	"strings"
	"testing"
)

// TestSecondAnswerDropped: a desktop that answers a call twice gets its first answer to the
// agent and its second dropped: not kept as a late answer, not listed as a resource (the
// gateway kept it before: one extra late answer per call a desktop was sent).
func TestSecondAnswerDropped(t *testing.T) {
	x := startGateway(t, "", Options{})
	a := dialHand(t, x.wsURL(), "A", "ta")
	x.waitDevices(t, 1)
	ag := newRawAgent(t, x.mcpURL())
	done := make(chan map[string]any, 1)
	go func() { done <- ag.call(t, "tools/call", map[string]any{"name": "ta", "arguments": map[string]any{}}) }()
	c := a.call()
	a.answer(c.id, "run-1", "first")
	if m := <-done; !strings.Contains(fmt.Sprint(m["result"]), "first") {
		t.Fatalf("the agent got %v, want the first answer", m)
	}
	a.answer(c.id, "run-2", "second")
	a.answer("gw-made-up", "", "sync") // dropped (logged) after the second answer is dealt with
	await(t, func() bool { return strings.Contains(x.logs.String(), "never issued") }, func() string {
		return "the made-up answer was not dropped; log:\n" + x.logs.String()
	})
	if !strings.Contains(x.logs.String(), "second answer") {
		t.Error("the second answer's drop is not logged")
	}
	for _, id := range []string{c.id, "run-1", "run-2"} {
		if r, ok := x.g.Late(id); ok {
			t.Errorf("the second answer is kept as late answer %s: %+v", id, r)
		}
	}
	if got := fmt.Sprint(ag.call(t, "resources/list", map[string]any{})["result"]); strings.Contains(got, RunURIPrefix) {
		t.Errorf("resources/list lists a late answer: %s", got)
	}
}

// TestClusterSecondAnswerDropped: the same across replicas: an agent on replica 2 calls a
// desktop linked to replica 1, which answers twice there, then once more after linking to
// replica 3 (which hands the answer to replica 2, whose call it is): the agent has the first,
// no replica keeps another.
func TestClusterSecondAnswerDropped(t *testing.T) {
	rs := startReplicas(t, 3, nil)
	a := dialHand(t, rs.gws[0].wsURL(), "A", "ta")
	await(t, func() bool { return len(rs.gws[1].g.offers("ta")) == 1 }, func() string { return "replica 2 does not offer ta" })
	ag := newRawAgent(t, rs.gws[1].mcpURL())
	done := make(chan map[string]any, 1)
	go func() { done <- ag.call(t, "tools/call", map[string]any{"name": "ta", "arguments": map[string]any{}}) }()
	c := a.call()
	a.answer(c.id, "run-1", "first")
	if m := <-done; !strings.Contains(fmt.Sprint(m["result"]), "first") {
		t.Fatalf("the agent got %v, want the first answer", m)
	}
	kept := func() bool { // any replica keeps a late answer of the call
		for _, x := range rs.gws {
			for _, id := range []string{c.id, "run-1", "run-2", "run-3"} {
				if _, ok := x.g.Late(id); ok {
					return true
				}
			}
		}
		return false
	}
	drops := func() (n int) { // second answers dropped, by any replica (replica 1, or 2 when
		// replica 2 asked replica 1 for the call again under load)
		for _, x := range rs.gws {
			n += strings.Count(x.logs.String(), "second answer")
		}
		return n
	}
	logs := func() (s string) {
		for i, x := range rs.gws {
			s += fmt.Sprintf("replica %d:\n%s\n", i+1, x.logs)
		}
		return s
	}
	a.answer(c.id, "run-2", "second")
	await(t, func() bool { return drops() >= 1 || kept() }, func() string { return "the second answer was not dropped; logs:\n" + logs() })
	a.link.Close()
	a.dial(rs.gws[2].wsURL())
	await(t, func() bool { return len(rs.gws[2].g.Devices()) == 1 }, func() string { return "A did not link to replica 3" })
	a.answer(c.id, "run-3", "third")
	await(t, func() bool { return drops() >= 2 || kept() }, func() string { return "the third answer was not dropped; logs:\n" + logs() })
	if kept() {
		t.Error("a replica keeps a second answer as a late answer")
	}
}

// TestAnsweredWindow: this process's ids are remembered exactly within the window, including
// when it moves past earlier ones; others' in a bounded set.
func TestAnsweredWindow(t *testing.T) {
	a := answeredIDs{epoch: "e"}
	id := func(seq uint64) string { return fmt.Sprintf("gw-e-%d-%032x", seq, 0) }
	for _, s := range []uint64{1, 5, 3} {
		if !a.first(id(s)) || a.first(id(s)) {
			t.Fatalf("seq %d: first answer not first, or second one first", s)
		}
	}
	if !a.first(id(4)) {
		t.Error("an unanswered seq below the highest reads as answered")
	}
	a.first(id(answeredWindow + 2)) // the window moves past 1 and 2
	if a.first(id(3)) {
		t.Error("seq 3, still in the window, reads as unanswered")
	}
	if !a.first(id(2)) {
		t.Error("seq 2, out of the window, is not left to the late store")
	}
	if !a.first(id(answeredWindow+1)) || !a.first(id(2*answeredWindow)) || !a.first(id(answeredWindow+3)) {
		t.Error("a slot reused by a later seq reads as answered")
	}
	for i := range answeredOthers + 1 {
		if !a.first(fmt.Sprintf("gw-o-%d-x", i)) {
			t.Fatalf("other id %d not first", i)
		}
	}
	if a.first("gw-o-1-x") || !a.first("gw-o-0-x") {
		t.Error("the set of other processes' ids does not keep the latest answeredOthers")
	}
}
