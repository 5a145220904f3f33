package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/rpa-dev/rpa/internal/link/cluster"
	"github.com/rpa-dev/rpa/internal/link/mcpws"
)

// Account leases across desktops (issue 28, "one run per account at a time ... across desktops
// through the gateway when it runs as a cluster"; PROTOCOL.md, "Accounts"): a desktop's
// run that signs in with a vault account takes the account's lease on its own machine (package
// lease, a file lock; flowserver.LinkLeaser) and then asks the gateway for it with mcpws.MethodLeaseAcquire. A gateway
// replica holds it for that desktop as a cluster.Lease in the cluster's lease bucket (a key per
// account with a TTL, renewed while held: no consensus of ours), so a run of the same account on
// any desktop of any replica waits for it, in turn, or is told who holds it. The lease ends with
// mcpws.MethodLeaseRelease, with the desktop's link (a desktop killed with kill -9 frees its
// accounts), or with the replica (its renewals stop and the key expires within LeaseTTL).
// A gateway alone answers -32601: a desktop's own lease is the only one then.

// LeaseTTL is how long an account's lease outlives the replica holding it (renewed every third
// of it while held).
const LeaseTTL = 15 * time.Second

// leasePoll is how often a held account is asked for again while a run waits for it.
const leasePoll = 200 * time.Millisecond

// maxLeaseWait bounds the wait a desktop may ask for.
const maxLeaseWait = 10 * time.Minute

// heldLease is an account's lease a replica holds for one of its desktops' links.
type heldLease struct {
	device string
	link   *device
	stop   context.CancelFunc
	done   <-chan struct{}
}

// leaseTable is the leases a replica holds, by id.
type leaseTable struct {
	mu   sync.Mutex
	held map[string]*heldLease
	seq  uint64
}

type leaseParams struct {
	Account string      `json:"account"`
	Holder  leaseHolder `json:"holder"`
	WaitMs  int64       `json:"waitMs"`
	LeaseID string      `json:"leaseId"`
}

// leaseHolder is who holds an account, as the desktop's lease.Holder says it (its JSON).
type leaseHolder struct {
	RunID string    `json:"run"`
	PID   int       `json:"pid,omitempty"`
	Host  string    `json:"host,omitempty"`
	Since time.Time `json:"since"`
}

// leaseRequest answers a desktop's mcpws.MethodLeaseAcquire or MethodLeaseRelease.
func (g *Gateway) leaseRequest(d *device, method string, raw json.RawMessage) (any, error) {
	if g.rep == nil {
		return nil, notAvailable("this gateway runs alone: account leases are each desktop's own")
	}
	var p leaseParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "lease params: " + err.Error()}
	}
	if method == mcpws.MethodLeaseRelease {
		g.releaseLease(p.LeaseID)
		return map[string]any{}, nil
	}
	if p.Account == "" || len(p.Account) > 1024 {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "account: want a vault entry's name"}
	}
	if p.Holder.Host == "" {
		p.Holder.Host = d.id
	}
	if p.Holder.Since.IsZero() {
		p.Holder.Since = time.Now().UTC()
	}
	holder, _ := json.Marshal(p.Holder)
	wait := min(max(time.Duration(p.WaitMs)*time.Millisecond, 0), maxLeaseWait)
	ctx, cancel := context.WithTimeout(d.linkLife(), wait+taskOpTimeout)
	defer cancel()
	start := time.Now()
	name := "account/" + p.Account
	for {
		l, err := g.rep.n.AcquireLease(ctx, name, string(holder), LeaseTTL)
		if err == nil {
			return map[string]any{"leaseId": g.keepLease(d, l)}, nil
		}
		var held *cluster.LeaseHeldError
		if !errors.As(err, &held) {
			return nil, &jsonrpc.Error{Code: CodeUnreachable, Message: "the cluster's account leases cannot be reached: " + err.Error()}
		}
		if time.Since(start) >= wait {
			var h leaseHolder
			_ = json.Unmarshal([]byte(held.Holder), &h)
			data, _ := json.Marshal(map[string]any{"kind": "account_busy", "account": p.Account, "holder": h})
			msg := fmt.Sprintf("account %s is in use by run %s on desktop %s", p.Account, h.RunID, h.Host)
			if h.RunID == "" {
				msg = fmt.Sprintf("account %s is in use on desktop %s", p.Account, h.Host)
			}
			return nil, &jsonrpc.Error{Code: CodeUnreachable, Message: msg, Data: data}
		}
		t := time.NewTimer(leasePoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, &jsonrpc.Error{Code: CodeUnreachable, Message: "the desktop's link ended while its run waited for account " + p.Account}
		case <-t.C:
		}
	}
}

// keepLease renews l for d's link until it is released or the link ends, and returns its id.
func (g *Gateway) keepLease(d *device, l *cluster.Lease) string {
	ctx, stop := context.WithCancel(context.Background())
	h := &heldLease{device: d.id, link: d, stop: stop, done: l.Keep(ctx)}
	t := &g.leases
	t.mu.Lock()
	if t.held == nil {
		t.held = map[string]*heldLease{}
	}
	t.seq++
	id := fmt.Sprintf("%s-%d", g.epoch, t.seq)
	t.held[id] = h
	t.mu.Unlock()
	// The lease lives as long as the link: a desktop that is gone (killed, unlinked) frees it.
	context.AfterFunc(d.linkLife(), func() { g.releaseLease(id) })
	return id
}

// releaseLease gives lease id back (nothing when it is not held here).
func (g *Gateway) releaseLease(id string) {
	t := &g.leases
	t.mu.Lock()
	h := t.held[id]
	delete(t.held, id)
	t.mu.Unlock()
	if h != nil {
		h.stop()
		<-h.done
	}
}
