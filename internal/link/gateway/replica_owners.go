package gateway

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/rpa-dev/rpa/internal/link/cluster"
	"github.com/rpa-dev/rpa/internal/runs"
)

// Run ownership in a cluster (owners.go): the agent of every call forwarded through any replica
// is kept in OwnersBucket, by the call id and by the run id its answer named, and the agent
// sessions open on every replica in AgentsBucket, so a replica applies the owner rule to a run or
// a kept answer another replica forwarded exactly as that replica would: the agent's session
// while it is open anywhere, then an agent presenting the same token.

// OwnersBucket is the key-value bucket of the agents of forwarded calls and runs (runs.Owner by
// Key(id)), kept LateTTL.
const OwnersBucket = "rpa_owners"

// AgentsBucket is the key-value bucket of the agent sessions open on the replicas (by
// Key(runs.SessionDigest)); a mark is renewed while its session makes requests and removed when
// it closes; one whose replica died expires after agentMarkTTL.
const AgentsBucket = "rpa_agents"

// agentMarkTTL is how long an open session's mark lasts without a renewal.
const agentMarkTTL = 30 * time.Minute

// ownerShare keeps the owners and the open sessions in their buckets (cluster only).
type ownerShare struct {
	r              *replica
	owners, agents atomic.Pointer[jetstream.KeyValue]
	mu             sync.Mutex
	marked         map[string]time.Time // session digests marked open by this replica, when
	// Before the buckets open (the replica attaching to the cluster): what is to be written
	// once they are (at most maxPending owners).
	early map[string]runs.Owner
}

// maxPending bounds the owners kept for the bucket before it opens.
const maxPending = 4096

// start opens the buckets (after the cluster state is attached).
func (s *ownerShare) start(ctx context.Context) {
	kv, err := s.r.n.Bucket(ctx, OwnersBucket, cluster.BucketOptions{TTL: s.r.g.opts.LateTTL, Description: "rpa gateway: the agent of each forwarded call and run"})
	if err != nil {
		s.r.log.Warn("run owners stay on this replica: their bucket is not available", "err", err)
		return
	}
	s.owners.Store(&kv)
	ka, err := s.r.n.Bucket(ctx, AgentsBucket, cluster.BucketOptions{TTL: agentMarkTTL, Description: "rpa gateway: agent sessions open on the replicas"})
	if err != nil {
		s.r.log.Warn("open agent sessions stay on this replica: their bucket is not available", "err", err)
		return
	}
	s.agents.Store(&ka)
	s.mu.Lock()
	early, marks := s.early, make([]string, 0, len(s.marked))
	s.early = nil
	for d := range s.marked {
		marks = append(marks, d)
	}
	s.mu.Unlock()
	for id, o := range early {
		s.put(id, o)
	}
	for _, d := range marks { // sessions opened before the bucket was
		_, _ = ka.Put(ctx, cluster.Key(d), []byte(s.r.name))
	}
}

// put records the agent of call or run id (in the background: the call does not wait).
func (s *ownerShare) put(id string, o runs.Owner) {
	if id == "" {
		return
	}
	p := s.owners.Load()
	if p == nil {
		s.mu.Lock()
		if s.early == nil {
			s.early = map[string]runs.Owner{}
		}
		if len(s.early) < maxPending {
			s.early[id] = o
		}
		s.mu.Unlock()
		return
	}
	b, err := json.Marshal(o)
	if err != nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := (*p).Put(ctx, cluster.Key(id), b); err != nil {
			s.r.log.Debug("cannot share a run's owner", "id", id, "err", err)
		}
	}()
}

// get returns the agent of call or run id as another replica recorded it.
func (s *ownerShare) get(id string) (runs.Owner, bool) {
	p := s.owners.Load()
	if p == nil || id == "" {
		return runs.Owner{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	e, err := (*p).Get(ctx, cluster.Key(id))
	if err != nil {
		return runs.Owner{}, false
	}
	var o runs.Owner
	if json.Unmarshal(e.Value(), &o) != nil {
		return runs.Owner{}, false
	}
	return o, true
}

// opened marks session digest open (renewed at most every agentMarkTTL/3).
func (s *ownerShare) opened(digest string) {
	p := s.agents.Load()
	now := time.Now()
	s.mu.Lock()
	if s.marked == nil {
		s.marked = map[string]time.Time{}
	}
	if at, ok := s.marked[digest]; ok && now.Sub(at) < agentMarkTTL/3 {
		s.mu.Unlock()
		return
	}
	if p == nil {
		s.marked[digest] = time.Time{} // written when the bucket opens (start)
		s.mu.Unlock()
		return
	}
	s.marked[digest] = now
	s.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = (*p).Put(ctx, cluster.Key(digest), []byte(s.r.name))
	}()
}

// closed removes session digest's mark.
func (s *ownerShare) closed(digest string) {
	s.mu.Lock()
	delete(s.marked, digest)
	s.mu.Unlock()
	p := s.agents.Load()
	if p == nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = (*p).Delete(ctx, cluster.Key(digest))
	}()
}

// open reports whether session digest is open on some replica.
func (s *ownerShare) open(digest string) bool {
	p := s.agents.Load()
	if p == nil || digest == "" {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := (*p).Get(ctx, cluster.Key(digest))
	return err == nil
}
