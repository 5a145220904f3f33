package cluster_test

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rpa-dev/rpa/internal/link/cluster"
)

// A replica whose heartbeat leaves the bucket without a marker reaching the watchers (the
// server places none for a key that expires while its stream has no leader, as when the dying
// replica led it) still counts as gone, ReplicaTTL after its last beat was seen. The heartbeat
// is removed here by purging its subject from the stream, which places no marker either.
func TestReplicaGoneWithoutMarker(t *testing.T) {
	nodes := shared(t)
	ctx := ctxT(t, 60*time.Second)
	reg, err := nodes[0].StartRegistry(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Stop()
	if err := reg.Beat(ctx, cluster.ReplicaRecord{Name: "ghost"}); err != nil {
		t.Fatal(err)
	}
	for !reg.Alive("ghost") {
		select {
		case <-ctx.Done():
			t.Fatal("the heartbeat never arrived")
		case <-time.After(20 * time.Millisecond): // (polling: Alive has no change event)
		}
	}
	kv, err := nodes[0].JetStream().KeyValue(ctx, cluster.ReplicasBucket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Get(ctx, "ghost"); err != nil {
		t.Fatal(err)
	}
	st, err := nodes[0].JetStream().Stream(ctx, "KV_"+cluster.ReplicasBucket)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Purge(ctx, jetstream.WithPurgeSubject("$KV."+cluster.ReplicasBucket+".ghost")); err != nil {
		t.Fatal(err)
	}
	for reg.Alive("ghost") {
		select {
		case <-ctx.Done():
			t.Fatal("a replica whose heartbeat vanished without a marker never counted as gone")
		case <-time.After(50 * time.Millisecond):
		}
	}
}
