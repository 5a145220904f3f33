package gateway

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// stopAsProcess stops replica i as `rpa gateway` does on SIGTERM: Serve's end (the drain, then
// the links, the cluster and the HTTP server) and then the node, its embedded server last. It
// returns how long that took.
func (rs *replicaSet) stopAsProcess(i int) time.Duration {
	x := rs.gws[i]
	start := time.Now()
	x.g.stopServing(x.hs, 30*time.Second)
	rs.nodes[i].Close()
	x.dead = true
	return time.Since(start)
}

// stopGuard only catches a replica whose stop hangs: it is met in well under a second; the
// old code took 10-25 s to stop the last replica of a cluster (waiting out JetStream timeouts
// and an agent's open event stream).
const stopGuard = 10 * time.Second

// Every replica of a cluster SIGTERM'd at once: the last one has no majority left (its peers'
// servers are gone), so no JetStream write or read it makes is answered. Its stop must not wait
// for one: what it had under way (looking for tasks to take over, here) ends at once, it does
// not try to delete its heartbeat (nobody is left to read it), and the agents' open event
// streams end with it. Fails on the old code: the last replica waited out a 10 s read of the
// task bucket, a 2 s write and its HTTP server's 3 s.
func TestClusterLastReplicaStopsPromptly(t *testing.T) {
	rs := startReplicas(t, 3, nil)
	var ran runCount
	for i, id := range []string{"d1", "d2", "d3"} {
		rs.deskOn(t, i, id, deskServer(id, &ran))
	}
	rs.waitLinked(t, map[string]string{"d1": "r1", "d2": "r2", "d3": "r3"})
	for i := range rs.gws {
		agentAt(t, rs.gws[i].mcpURL(), nil, "2025-11-25") // an open event stream on each
	}

	// r1 and r2 first, at once (their peers are still up: they leave the cluster properly).
	took := make(chan string, 2)
	for i := range 2 {
		go func() { took <- fmt.Sprintf("r%d %v", i+1, rs.stopAsProcess(i)) }()
	}
	for range 2 {
		t.Logf("stopped %s", <-took)
	}
	last := rs.gws[2].g.rep
	await(t, func() bool {
		reg := last.reg.Load()
		return reg != nil && len(reg.Replicas()) == 1
	}, func() string { return "r3 still sees the replicas that left" })

	// The registry changes that came with the others leaving make r3 look for tasks to take
	// over; one more makes sure such a look is under way (its read of the task bucket has no
	// majority to answer it) when r3 is stopped.
	last.changed(nil)
	await(t, func() bool { return len(last.taskKick) == 0 }, func() string { return "r3 does not look for tasks" })

	done := make(chan time.Duration, 1)
	go func() { done <- rs.stopAsProcess(2) }()
	guard := time.NewTimer(stopGuard) // a hang guard, not a time the test relies on
	defer guard.Stop()
	select {
	case d := <-done:
		t.Logf("stopped r3 (no majority left) in %v", d)
	case <-guard.C:
		t.Fatalf("the last replica did not stop within %v", stopGuard)
	}
	if s := rs.gws[2].logs.String(); strings.Contains(s, "did not stop in time") {
		t.Errorf("r3's stop waited on the cluster:\n%s", s)
	}
}
