package gateway

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/rpa-dev/rpa/internal/link/cluster"
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
// it closes; one whose replica died expires after agentMarkTTL. Its reads go to the stream's
// leader (cluster.BucketOptions.Fresh): a copy that lags could call a closed session open (its
// token's other sessions refused) or, worse, an open one closed.
const AgentsBucket = "rpa_agents"

// agentMarkTTL is how long an open session's mark lasts without a renewal.
const agentMarkTTL = 30 * time.Minute

// ownerShare keeps the owners and the open sessions in their buckets (cluster only).
type ownerShare struct {
	r              *replica
	owners, agents atomic.Pointer[jetstream.KeyValue]
	mu             sync.Mutex
	writing        sync.Mutex           // serialises syncMark's writes
	syncing        sync.WaitGroup       // syncMark calls under way
	marked         map[string]time.Time // session digests marked open by this replica, when
	// Before the buckets open (the replica attaching to the cluster): what is to be written
	// once they are (at most maxPending owners).
	early map[string]ownerRec
	// ready is closed once start has opened the buckets (or given up on them): until then this
	// replica cannot tell an agent session open on another replica from a closed one.
	ready chan struct{}
}

// openWait bounds, from the replica's start, how long questions about agent sessions wait for
// the buckets to open (the replica attaching to the cluster); past it (its peers out of reach)
// they are answered at once from what the replica holds itself.
const openWait = 10 * time.Second

// maxPending bounds the owners kept for the bucket before it opens.
const maxPending = 4096

// start opens the buckets (after the cluster state is attached).
func (s *ownerShare) start(ctx context.Context) {
	defer func() {
		close(s.ready)
		s.r.g.stateChanged() // (Status: ready)
	}()
	kv, err := s.r.n.Bucket(ctx, OwnersBucket, cluster.BucketOptions{TTL: s.r.g.opts.LateTTL, Description: "rpa gateway: the agent of each forwarded call and run"})
	if err != nil {
		s.r.log.Warn("run owners stay on this replica: their bucket is not available", "err", err)
		return
	}
	s.owners.Store(&kv)
	ka, err := s.r.n.Bucket(ctx, AgentsBucket, cluster.BucketOptions{TTL: agentMarkTTL, Fresh: true, Description: "rpa gateway: agent sessions open on the replicas"})
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

// put records what is known of call or run id (in the background: the call does not wait).
func (s *ownerShare) put(id string, rec ownerRec) {
	if id == "" {
		return
	}
	p := s.owners.Load()
	if p == nil {
		s.mu.Lock()
		if s.early == nil {
			s.early = map[string]ownerRec{}
		}
		if len(s.early) < maxPending {
			s.early[id] = rec
		}
		s.mu.Unlock()
		return
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(s.r.life, 5*time.Second)
		defer cancel()
		if _, err := (*p).Put(ctx, cluster.Key(id), b); err != nil {
			s.r.log.Debug("cannot share a run's owner", "id", id, "err", err)
		}
	}()
}

// get returns what another replica recorded of call or run id.
func (s *ownerShare) get(id string) (ownerRec, bool) {
	p := s.owners.Load()
	if p == nil || id == "" {
		return ownerRec{}, false
	}
	ctx, cancel := context.WithTimeout(s.r.life, 2*time.Second)
	defer cancel()
	e, err := (*p).Get(ctx, cluster.Key(id))
	if err != nil {
		return ownerRec{}, false
	}
	var rec ownerRec
	if json.Unmarshal(e.Value(), &rec) != nil {
		return ownerRec{}, false
	}
	return rec, true
}

// opened marks session digest open (renewed at most every agentMarkTTL/3). The first mark of a
// session on this replica is written before its request goes on, so a mark never lands after
// the session's close on another replica (the client's DELETE may reach any replica).
func (s *ownerShare) opened(digest string) {
	p := s.agents.Load()
	now := time.Now()
	s.mu.Lock()
	if s.marked == nil {
		s.marked = map[string]time.Time{}
	}
	at, renew := s.marked[digest]
	if renew && now.Sub(at) < agentMarkTTL/3 {
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
	s.syncing.Add(1)
	if renew {
		go s.syncMark(digest)
		return
	}
	s.syncMark(digest)
}

// closed removes session digest's mark.
func (s *ownerShare) closed(digest string) {
	s.mu.Lock()
	delete(s.marked, digest)
	s.mu.Unlock()
	if s.agents.Load() == nil {
		return
	}
	s.syncing.Add(1)
	go s.syncMark(digest)
}

// markRetry bounds how long syncMark keeps trying a write the cluster refused (the stream
// without a leader for a moment, a slow replica); a replica going down (its life ended) tries
// no more.
const markRetry = 30 * time.Second

// syncMark makes the bucket say what this replica knows of session digest now: marked open,
// or not. Writes of one replica are serialised and each writes the state current when it runs,
// so a renewal that was scheduled before the session closed can never land after its removal
// (the order of goroutines would otherwise decide). A write that fails is tried again, the
// state re-read each time, for up to markRetry: a failed removal would leave the session
// "open" for agentMarkTTL and lock its token's other sessions out of its runs. Once the replica
// goes down (its life ends) the write under way ends and none is tried again: its marks then
// expire (agentMarkTTL) as a dead replica's. The caller has added one to s.syncing.
func (s *ownerShare) syncMark(digest string) {
	defer s.syncing.Done()
	p := s.agents.Load()
	if p == nil {
		return
	}
	deadline := time.Now().Add(markRetry)
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
		s.writing.Lock()
		s.mu.Lock()
		_, open := s.marked[digest]
		s.mu.Unlock()
		ctx, cancel := context.WithTimeout(s.r.life, 5*time.Second)
		var err error
		if open {
			_, err = (*p).Put(ctx, cluster.Key(digest), []byte(s.r.name))
		} else {
			err = (*p).Delete(ctx, cluster.Key(digest))
		}
		cancel()
		s.writing.Unlock()
		if err == nil || s.r.life.Err() != nil || time.Now().After(deadline) {
			if err != nil && s.r.life.Err() == nil {
				s.r.log.Warn("cannot share whether an agent session is open", "open", open, "err", err)
			}
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-s.r.life.Done():
			t.Stop()
		}
	}
}

// started reports whether start is done (the buckets open, or given up on).
func (s *ownerShare) started() bool {
	select {
	case <-s.ready:
		return true
	default:
		return false
	}
}

// open reports whether session digest is open on some replica. Right after this replica
// started, before its buckets are open, it waits for them (until openWait after the start):
// "not known yet" must not read as "closed" (another session of the token could take the open
// one's runs).
func (s *ownerShare) open(digest string) bool {
	if digest == "" {
		return false
	}
	p := s.agents.Load()
	if left := time.Until(s.r.started.Add(openWait)); p == nil && left > 0 {
		t := time.NewTimer(left)
		select {
		case <-s.ready:
		case <-s.r.stop:
		case <-t.C:
		}
		t.Stop()
		p = s.agents.Load()
	}
	if p == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(s.r.life, 2*time.Second)
	defer cancel()
	_, err := (*p).Get(ctx, cluster.Key(digest))
	return err == nil
}
