package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// LeaseBucket is the key-value bucket of leases (one key per lease name, a TTL per key).
const LeaseBucket = "rpa_leases"

// ErrLeaseHeld is returned (wrapped in a *LeaseHeldError) by AcquireLease when another holder
// has the lease.
var ErrLeaseHeld = errors.New("the lease is held by another holder")

// ErrLeaseLost is returned by Lease.Renew and Lease.Release when the lease expired or was
// taken over since it was acquired or last renewed: the holder must stop acting on it.
var ErrLeaseLost = errors.New("the lease was lost (expired or taken over)")

// LeaseHeldError says who holds a lease AcquireLease could not get. It matches ErrLeaseHeld.
type LeaseHeldError struct {
	Name   string // the lease
	Holder string // its holder, as it named itself
}

// Error names the lease and its holder.
func (e *LeaseHeldError) Error() string {
	return fmt.Sprintf("lease %q is held by %q", e.Name, e.Holder)
}

// Is matches ErrLeaseHeld.
func (e *LeaseHeldError) Is(target error) bool { return target == ErrLeaseHeld }

// Lease is a cluster-wide lease: while it is held, no other AcquireLease of its name succeeds
// on any replica. It lasts TTL after its last acquire or renewal (JetStream's per-key TTL on the
// stream leader's clock, so clocks of replicas do not matter) and is then free for the next
// holder. Revision grows at every acquire and renewal: a store that remembers the highest
// revision it saw can refuse writes of an older holder (a fencing token).
//
// Use: AcquireLease, then Keep (or Renew before TTL ends), and Release when done. Issue 28's
// per-account lease is a Lease named after the account; a schedule that must fire once across
// replicas can hold a Lease named after the schedule, or use a Queue.
type Lease struct {
	n      *Node
	kv     jetstream.KeyValue
	name   string
	holder string
	ttl    time.Duration

	mu  sync.Mutex
	rev uint64
}

type leaseValue struct {
	Holder string `json:"holder"`
	TTLms  int64  `json:"ttlMs"`
}

// leaseKey maps a lease name (any string) to its key.
func leaseKey(name string) string { return "l." + Key(name) }

// AcquireLease takes the lease name for holder (a name for logs and LeaseHeldError, such as
// the replica's) for ttl (at least 1 s). It returns a *LeaseHeldError (matching ErrLeaseHeld)
// when another holder has it; other errors are NATS's (JetStream not ready: retried until ctx
// ends).
func (n *Node) AcquireLease(ctx context.Context, name, holder string, ttl time.Duration) (*Lease, error) {
	if ttl < time.Second {
		return nil, fmt.Errorf("lease %q: ttl %v is under 1s", name, ttl)
	}
	kv, err := n.Bucket(ctx, LeaseBucket, BucketOptions{KeyTTL: true, Description: "rpa cluster leases"})
	if err != nil {
		return nil, err
	}
	val, _ := json.Marshal(leaseValue{Holder: holder, TTLms: ttl.Milliseconds()})
	l := &Lease{n: n, kv: kv, name: name, holder: holder, ttl: ttl}
	var rev uint64
	err = retry(ctx, func(ctx context.Context) error {
		var err error
		rev, err = kv.Create(ctx, leaseKey(name), val, jetstream.KeyTTL(ttl))
		return err
	})
	if errors.Is(err, jetstream.ErrKeyExists) {
		who := "?"
		if e, gerr := kv.Get(ctx, leaseKey(name)); gerr == nil {
			var v leaseValue
			if json.Unmarshal(e.Value(), &v) == nil {
				who = v.Holder
			}
		}
		return nil, &LeaseHeldError{Name: name, Holder: who}
	}
	if err != nil {
		return nil, fmt.Errorf("lease %q: %w", name, err)
	}
	l.rev = rev
	return l, nil
}

// LeaseHolder returns who holds the lease name and its revision; ("", 0, nil) when it is free.
func (n *Node) LeaseHolder(ctx context.Context, name string) (string, uint64, error) {
	kv, err := n.Bucket(ctx, LeaseBucket, BucketOptions{KeyTTL: true, Description: "rpa cluster leases"})
	if err != nil {
		return "", 0, err
	}
	e, err := kv.Get(ctx, leaseKey(name))
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return "", 0, nil
	}
	if err != nil {
		return "", 0, err
	}
	var v leaseValue
	if err := json.Unmarshal(e.Value(), &v); err != nil {
		return "", 0, fmt.Errorf("lease %q: bad value: %w", name, err)
	}
	return v.Holder, e.Revision(), nil
}

// Name is the lease's name.
func (l *Lease) Name() string { return l.name }

// Revision is the lease's revision since its last acquire or renewal (the fencing token).
func (l *Lease) Revision() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rev
}

// Renew extends the lease by its TTL from now. ErrLeaseLost when it expired or another holder
// took it meanwhile.
func (l *Lease) Renew(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	val, _ := json.Marshal(leaseValue{Holder: l.holder, TTLms: l.ttl.Milliseconds()})
	msg := &nats.Msg{Subject: "$KV." + LeaseBucket + "." + leaseKey(l.name), Data: val}
	ack, err := l.n.js.PublishMsg(ctx, msg, jetstream.WithExpectLastSequencePerSubject(l.rev), jetstream.WithMsgTTL(l.ttl))
	if err != nil {
		var apiErr *jetstream.APIError
		if errors.As(err, &apiErr) && apiErr.Code == 400 {
			return fmt.Errorf("lease %q: %w", l.name, ErrLeaseLost)
		}
		return fmt.Errorf("lease %q: renew: %w", l.name, err)
	}
	l.rev = ack.Sequence
	return nil
}

// Release gives the lease up at once (the next AcquireLease succeeds). ErrLeaseLost when it
// was no longer held.
func (l *Lease) Release(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.kv.Delete(ctx, leaseKey(l.name), jetstream.LastRevision(l.rev))
	if err != nil {
		var apiErr *jetstream.APIError
		if errors.As(err, &apiErr) && apiErr.Code == 400 {
			return fmt.Errorf("lease %q: %w", l.name, ErrLeaseLost)
		}
		return fmt.Errorf("lease %q: release: %w", l.name, err)
	}
	return nil
}

// Keep renews the lease every third of its TTL until ctx ends (then it releases it) or a
// renewal finds it lost. The channel is closed when the lease is no longer held, for either
// reason; the holder must stop acting on it then.
func (l *Lease) Keep(ctx context.Context) <-chan struct{} {
	lost := make(chan struct{})
	go func() {
		defer close(lost)
		t := time.NewTicker(l.ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				rctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				_ = l.Release(rctx)
				cancel()
				return
			case <-t.C:
			}
			rctx, cancel := context.WithTimeout(ctx, l.ttl/3)
			err := l.Renew(rctx)
			cancel()
			if errors.Is(err, ErrLeaseLost) {
				l.n.log.Warn("lease lost", "lease", l.name, "holder", l.holder)
				return
			}
			// A transient error: the next tick tries again while the TTL lasts.
		}
	}()
	return lost
}
