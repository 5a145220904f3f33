package gateway

import (
	"context"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rpa-dev/rpa/internal/link/cluster"
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

// TestClusterBeatsWhileBucketsOpen: a replica goes on beating while a bucket it opens after
// its registry's is not available. Its heartbeat used to be written once and then only after
// those buckets opened: a bucket whose stream took longer than ReplicaTTL to be created
// (JetStream settling after a start: 5.4 s seen) let the heartbeat expire, and every other
// replica counted it gone and dropped its desktops (TestClusterPausedCall failed 2 runs in 50:
// r2 listed no desktop offering "ask"). Here the late answers' bucket has its one copy on a
// server that is down, so it cannot be opened until that server comes back: the two replicas
// left beat again all the same, and a desktop linked to one is listed on the other.
func TestClusterBeatsWhileBucketsOpen(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS cluster")
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	nodes := clustertest.Start(t, 3)
	reg, err := nodes[0].StartRegistry(ctx, nil) // the registry's buckets, while all three are up
	if err != nil {
		t.Fatal(err)
	}
	reg.Stop()
	late, err := nodes[0].JetStream().CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: LateBucket, Replicas: 1})
	if err != nil {
		t.Fatal(err)
	}
	st, err := late.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	holder := st.(*jetstream.KeyValueBucketStatus).StreamInfo().Cluster.Leader
	rs := &replicaSet{}
	for _, nd := range nodes {
		if nd.Name() == holder {
			nd.Kill()
		} else {
			rs.nodes = append(rs.nodes, nd)
		}
	}
	if len(rs.nodes) != 2 {
		t.Fatalf("the late answers' bucket is on %q", holder)
	}
	for _, nd := range rs.nodes {
		rs.gws = append(rs.gws, startGateway(t, "", Options{Cluster: nd}))
	}
	for _, x := range rs.gws {
		await(t, func() bool { return x.g.rep.reg.Load() != nil }, func() string { return x.g.rep.name + " never had the cluster state" })
	}

	a := rs.gws[0].g.rep
	kv, err := rs.nodes[1].Bucket(ctx, cluster.ReplicasBucket, cluster.BucketOptions{TTL: cluster.ReplicaTTL, Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	w, err := kv.Watch(ctx, a.name)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var first uint64
	for e := range w.Updates() {
		if e == nil {
			continue // (the current value came first)
		}
		if e.Operation() != jetstream.KeyValuePut {
			t.Fatalf("%s's heartbeat expired (%s at revision %d) while it opened its other buckets", a.name, e.Operation(), e.Revision())
		}
		if first == 0 {
			first = e.Revision()
			continue
		}
		break // a beat after the first
	}
	if ctx.Err() != nil {
		t.Fatalf("timed out: %s never beat twice", a.name)
	}
	if a.late.kv.Load() != nil {
		t.Fatalf("%s opened the late answers' bucket, whose server is down: the test tests nothing", a.name)
	}
	rs.gws[1].waitAttached(t, 2)
	rs.deskOn(t, 0, "A", deskServer("A", nil))
	rs.waitLinked(t, map[string]string{"A": a.name})
}
