package gateway

import (
	"context"
	"testing"

	"github.com/rpa-dev/rpa/internal/link/cluster/clustertest"
	"github.com/rpa-dev/rpa/internal/runs"
)

// TestClusterStartingReplicaKnowsOpenSessions: an agent session is open on r1; r3 starts. Asked
// right away, r3 counts that session open (it counted it closed until its buckets opened, so
// another session of the same token could have taken the open one's runs), and r3's /status says
// ready only once it can tell.
func TestClusterStartingReplicaKnowsOpenSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS cluster")
	}
	nodes := clustertest.Start(t, 3)
	var gws []*gw
	for _, nd := range nodes[:2] {
		gws = append(gws, startGateway(t, "", Options{Cluster: nd}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	for _, x := range gws {
		x.waitAttached(t, 2)
		await(t, func() bool { return x.g.Status(ctx).Ready }, func() string { return "r1 or r2 not ready: " + x.g.Status(ctx).Reason })
	}
	ag := newRawAgent(t, gws[0].mcpURL())
	ag.call(t, "tasks/list", map[string]any{}) // marks the session open for the cluster
	digest := runs.SessionDigest(ag.session)
	if !gws[1].g.liveAgent(digest) {
		t.Fatal("r2 counts the session open on r1 closed")
	}

	r3 := startGateway(t, "", Options{Cluster: nodes[2]})
	if !r3.g.liveAgent(digest) {
		t.Error("r3, just started, counts the session open on r1 closed")
	}
	await(t, func() bool { return r3.g.Status(ctx).Ready }, func() string { return "r3 not ready: " + r3.g.Status(ctx).Reason })
	if r3.g.rep.owners.agents.Load() == nil {
		t.Error("r3's /status says ready before it can tell which agent sessions are open")
	}
	if !r3.g.liveAgent(digest) {
		t.Error("r3 counts the session open on r1 closed")
	}
	ag.delete(t)
	// (poll: the mark's removal from the bucket is announced to nobody)
	poll(t, func() bool { return !r3.g.liveAgent(digest) }, func() string { return "r3 counts the ended session open" })
}
