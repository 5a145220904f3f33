// Package lease gives one run per account at a time. A run that signs in
// with a vault account (a `credential` param, docs/spec/LANGUAGE.md) takes
// the account's lease first and releases it when it ends, so two runs never
// sign in as the same account at once and log each other out. A second run
// waits in a bounded queue for the lease (`--account-wait`, default
// DefaultWait) or gets a *BusyError naming the holder's run ID.
//
// Leaser is the interface the hosts (mcpserver, localrun, schedules) call;
// Local is its implementation on one machine: an OS file lock per account
// under $RPA_HOME/vault/locks, which the kernel drops when the holding
// process dies however it dies (kill -9 never leaves an account locked),
// and a FIFO queue for the waiters of one process. A desktop linked to a
// gateway cluster takes the account at the cluster too (flowserver.LinkLeaser:
// a lease in the cluster's shared store, held by the gateway replica).
//
// Use:
//
//	l, err := leaser.Acquire(ctx, lease.Request{Account: "portal/admin",
//		Holder: lease.Holder{RunID: runID}, Wait: lease.DefaultWait})
//	if err != nil {
//		return err // *BusyError (errors.Is ErrBusy), or ctx's error
//	}
//	defer l.Release()
package lease

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// DefaultWait is how long a run waits for an account another run holds
// before it gets a *BusyError (`--account-wait`; issue 28: "default 2 m").
const DefaultWait = 2 * time.Minute

// DefaultMaxQueue is how many runs of one process may wait for one account
// at once; one more gets a *BusyError at once (the bounded queue; the same
// bound as `--max-queue` for a profile).
const DefaultMaxQueue = 32

// Leaser hands out leases on accounts, one holder per account at a time.
// Implementations are safe for concurrent use.
type Leaser interface {
	// Acquire returns the lease on req.Account held for req.Holder. When
	// another holder has it, Acquire waits up to req.Wait (0: not at all)
	// in arrival order and then returns a *BusyError naming that holder;
	// when ctx ends first it returns ctx's error. Release the lease once.
	Acquire(ctx context.Context, req Request) (Lease, error)
}

// Request asks for one account's lease.
type Request struct {
	// Account is the vault entry's name ("portal/admin"); any non-empty
	// string without NUL.
	Account string
	// Holder says who asks; PID, Host and Since are filled in by the
	// Leaser when zero.
	Holder Holder
	// Wait bounds the wait for a held account (0: fail at once when held).
	Wait time.Duration
}

// Holder says who holds (or last held) an account's lease.
type Holder struct {
	// RunID is the run the lease is for (runs.NewID's shape), or another
	// label such as "schedule:NAME" for a holder that is not a run yet.
	RunID string `json:"run"`
	// PID is the holding process's id on Host.
	PID int `json:"pid,omitempty"`
	// Host is the machine (host name, or the device ID in a cluster).
	Host string `json:"host,omitempty"`
	// Since is when the lease was taken.
	Since time.Time `json:"since"`
}

// Lease is a held account. Release it once when the run ends; a second
// Release does nothing.
type Lease interface {
	// Account is the leased account's name.
	Account() string
	// Release gives the account to the next waiter.
	Release() error
}

// ErrBusy matches (errors.Is) every *BusyError.
var ErrBusy = errors.New("account is in use")

// BusyError is an account another holder kept for the whole wait, or
// whose queue was full.
type BusyError struct {
	Account string
	// Holder is who holds it (RunID empty when unknown: a holder that
	// died between the lock and its note, or another kind of leaser).
	Holder Holder
	// Waited is how long this request waited (0 when it did not).
	Waited time.Duration
	// QueueFull is set when the queue of waiters was full.
	QueueFull bool
}

// Error reads "account NAME is in use by run ID (pid N)" and says how
// long it waited or that the queue was full.
func (e *BusyError) Error() string {
	who := "another run"
	if e.Holder.RunID != "" {
		who = "run " + e.Holder.RunID
	}
	if e.Holder.PID > 0 {
		who += fmt.Sprintf(" (pid %d)", e.Holder.PID)
	}
	msg := fmt.Sprintf("account %s is in use by %s", e.Account, who)
	switch {
	case e.QueueFull:
		msg += "; too many runs are waiting for it"
	case e.Waited > 0:
		msg += fmt.Sprintf("; waited %s", e.Waited.Round(time.Second))
	}
	return msg
}

// Is reports target == ErrBusy.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// RunNoter is a Lease that can record the run it is held for after it was
// taken (a host learns the run ID once the run's record starts).
type RunNoter interface {
	NoteRun(runID string)
}

// Note records runID as the holder's run when l is a RunNoter (Local's
// leases rewrite their holder note); other leases are left as they are.
func Note(l Lease, runID string) {
	if n, ok := l.(RunNoter); ok {
		n.NoteRun(runID)
	}
}

// AcquireAll takes the leases of accounts for one run, in name order (two
// runs needing the same accounts never wait for each other), each waiting
// up to wait. release gives back every lease taken (call it once, also
// after an error: it is then a no-op); note records the run ID on them
// (Note). The error is the first Acquire's (a *BusyError naming the
// account and its holder, or ctx's).
func AcquireAll(ctx context.Context, l Leaser, accounts []string, wait time.Duration) (release func(), note func(runID string), err error) {
	var held []Lease
	release = func() {
		for _, h := range held {
			_ = h.Release()
		}
		held = nil
	}
	note = func(runID string) {
		for _, h := range held {
			Note(h, runID)
		}
	}
	for _, a := range slices.Sorted(slices.Values(accounts)) {
		h, err := l.Acquire(ctx, Request{Account: a, Wait: wait})
		if err != nil {
			release()
			return func() {}, func(string) {}, err
		}
		held = append(held, h)
	}
	return release, note, nil
}
