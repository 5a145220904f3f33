package flowserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/rpa-dev/rpa/internal/host/lease"
	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/link/mcpws"
)

// LinkLeaser is the lease.Leaser of a linked desktop (issue 28: one run per account at a time,
// on one machine and across the desktops of a gateway cluster): an account's lease on this
// machine first (Local), then the backend's (mcpws.MethodLeaseAcquire on the link, SetClient),
// within one wait. A backend that holds no leases (a gateway alone: -32601), or no link up,
// leaves the machine's lease alone in force. Safe for concurrent use.
type LinkLeaser struct {
	Local lease.Leaser

	mu sync.Mutex
	c  *connect.Client
}

// SetClient names the link's client (Dial makes it after the server that takes the leases).
func (l *LinkLeaser) SetClient(c *connect.Client) {
	l.mu.Lock()
	l.c = c
	l.mu.Unlock()
}

// Acquire implements lease.Leaser. An account held on another desktop for the whole wait is a
// *lease.BusyError naming that desktop's run (Holder.Host is its device id).
func (l *LinkLeaser) Acquire(ctx context.Context, req lease.Request) (lease.Lease, error) {
	start := time.Now()
	loc, err := l.Local.Acquire(ctx, req)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	c := l.c
	l.mu.Unlock()
	if c == nil {
		return loc, nil
	}
	h := req.Holder
	if h.PID == 0 {
		h.PID = os.Getpid()
	}
	wait := max(req.Wait-time.Since(start), 0)
	raw, err := c.Call(ctx, mcpws.MethodLeaseAcquire, map[string]any{"account": req.Account, "holder": h, "waitMs": wait.Milliseconds()})
	var je *jsonrpc.Error
	switch {
	case err == nil:
		var res struct {
			LeaseID string `json:"leaseId"`
		}
		if json.Unmarshal(raw, &res) != nil || res.LeaseID == "" {
			_ = loc.Release()
			return nil, errors.New("connect: the backend sent a bad account lease")
		}
		return &linkLease{Lease: loc, c: c, id: res.LeaseID}, nil
	case errors.Is(err, connect.ErrNotLinked) || errors.As(err, &je) && je.Code == jsonrpc.CodeMethodNotFound:
		return loc, nil // no lease across desktops here: this machine's holds
	case errors.As(err, &je):
		var data struct {
			Kind   string       `json:"kind"`
			Holder lease.Holder `json:"holder"`
		}
		_ = loc.Release()
		if json.Unmarshal(je.Data, &data) == nil && data.Kind == "account_busy" {
			return nil, &lease.BusyError{Account: req.Account, Holder: data.Holder, Waited: time.Since(start)}
		}
		return nil, err
	default:
		_ = loc.Release()
		return nil, err
	}
}

// linkLease is an account's lease held on this machine and at the backend.
type linkLease struct {
	lease.Lease
	c    *connect.Client
	id   string
	once sync.Once
}

// Release gives this machine's lease back, then the backend's (best effort: it also ends with
// the link). In that order, whoever gets the account at the backend next finds this machine's
// lease free too: a run here right after sees the account held by the other desktop, never by
// the run that just ended.
func (l *linkLease) Release() error {
	err := l.Lease.Release()
	l.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = l.c.Call(ctx, mcpws.MethodLeaseRelease, map[string]any{"leaseId": l.id})
	})
	return err
}

// NoteRun passes the run's ID to this machine's lease (lease.RunNoter).
func (l *linkLease) NoteRun(runID string) { lease.Note(l.Lease, runID) }
