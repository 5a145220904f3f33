package lease

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/rpa-dev/rpa/internal/atomicfile"
)

// LocksDir is the folder of the account locks inside $RPA_HOME, next to
// the vault.
const LocksDir = "vault/locks"

// Local is the Leaser of one machine. For each account it holds an OS
// file lock, Dir/a-NAME.lock (flock on Unix, LockFileEx on Windows,
// through github.com/gofrs/flock), for as long as the lease is held: the
// kernel drops it when the process ends, however it ends, so a killed run
// never keeps its account. Beside it, Dir/a-NAME.holder (JSON of Holder,
// written atomically after the lock is taken) names the holder for the
// busy error and says when the account was last used.
//
// Within one process the waiters of an account queue in arrival order (at
// most MaxQueue); across processes a waiter polls the file lock (every 20
// ms at first, backing off to 250 ms), so runs of different processes are
// served in no particular order.
type Local struct {
	// Dir holds the lock files ($RPA_HOME/vault/locks); created on demand.
	Dir string
	// MaxQueue bounds the waiters of one account in this process (0:
	// DefaultMaxQueue).
	MaxQueue int

	mu    sync.Mutex
	accts map[string]*acct
}

// acct is one account's state in this process.
type acct struct {
	held   bool            // a lease of this process holds (or is taking) it
	holder Holder          // the holder in this process, once it has the file lock
	queue  []chan struct{} // waiters in arrival order; closing one hands it the turn
}

// NewLocal returns the Leaser of the machine whose rpa data folder is home
// ($RPA_HOME): its locks live in home/LocksDir.
func NewLocal(home string) *Local {
	return &Local{Dir: filepath.Join(home, filepath.FromSlash(LocksDir))}
}

var _ Leaser = (*Local)(nil)

// Acquire implements Leaser.
func (l *Local) Acquire(ctx context.Context, req Request) (Lease, error) {
	if req.Account == "" || strings.ContainsRune(req.Account, 0) {
		return nil, fmt.Errorf("lease: bad account name %q", req.Account)
	}
	start := time.Now()
	deadline := start.Add(req.Wait)
	if err := l.turn(ctx, req, start, deadline); err != nil {
		return nil, err
	}
	fl, err := l.lockFile(ctx, req, start, deadline)
	if err != nil {
		l.mu.Lock()
		l.handOff(req.Account)
		l.mu.Unlock()
		return nil, err
	}
	h := req.Holder
	if h.PID == 0 {
		h.PID = os.Getpid()
	}
	if h.Host == "" {
		h.Host, _ = os.Hostname()
	}
	if h.Since.IsZero() {
		h.Since = time.Now().UTC()
	}
	if b, err := json.Marshal(h); err == nil {
		_ = atomicfile.WriteNoSync(l.path(req.Account, ".holder"), append(b, '\n'), 0o600)
	}
	l.mu.Lock()
	l.accts[req.Account].holder = h
	l.mu.Unlock()
	return &localLease{l: l, account: req.Account, fl: fl}, nil
}

// turn waits for this process's turn on the account: no other lease of
// this process holds it and every earlier waiter has had its turn.
func (l *Local) turn(ctx context.Context, req Request, start, deadline time.Time) error {
	l.mu.Lock()
	if l.accts == nil {
		l.accts = map[string]*acct{}
	}
	a := l.accts[req.Account]
	if a == nil {
		a = &acct{}
		l.accts[req.Account] = a
	}
	if !a.held && len(a.queue) == 0 {
		a.held = true
		l.mu.Unlock()
		return nil
	}
	max := l.MaxQueue
	if max <= 0 {
		max = DefaultMaxQueue
	}
	if req.Wait <= 0 || len(a.queue) >= max {
		busy := &BusyError{Account: req.Account, Holder: a.holder, QueueFull: req.Wait > 0}
		l.mu.Unlock()
		return busy
	}
	ch := make(chan struct{})
	a.queue = append(a.queue, ch)
	l.mu.Unlock()

	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	var why error
	select {
	case <-ch:
		return nil // handed over: a.held stays true for us
	case <-t.C:
	case <-ctx.Done():
		why = ctx.Err()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-ch:
		l.handOff(req.Account) // handed over just now: pass it on
	default:
		a.queue = slices.DeleteFunc(a.queue, func(c chan struct{}) bool { return c == ch })
	}
	if why != nil {
		return why
	}
	return &BusyError{Account: req.Account, Holder: a.holder, Waited: time.Since(start)}
}

// handOff ends this process's turn on account: the next waiter gets it,
// else the account is free. l.mu is held.
func (l *Local) handOff(account string) {
	a := l.accts[account]
	if a == nil {
		return
	}
	a.holder = Holder{}
	if len(a.queue) > 0 {
		next := a.queue[0]
		a.queue = a.queue[1:]
		close(next)
		return
	}
	a.held = false
	delete(l.accts, account)
}

// lockFile takes the account's file lock, polling while another process
// holds it until deadline.
func (l *Local) lockFile(ctx context.Context, req Request, start, deadline time.Time) (*flock.Flock, error) {
	if err := os.MkdirAll(l.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("account lock: %w", err)
	}
	fl := flock.New(l.path(req.Account, ".lock"), flock.SetPermissions(0o600))
	delay := 20 * time.Millisecond
	for {
		ok, err := fl.TryLock()
		if err != nil {
			return nil, fmt.Errorf("account lock: %w", err)
		}
		if ok {
			return fl, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			h, _ := l.Last(req.Account)
			var waited time.Duration
			if req.Wait > 0 {
				waited = time.Since(start)
			}
			return nil, &BusyError{Account: req.Account, Holder: h, Waited: waited}
		}
		t := time.NewTimer(min(delay, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		delay = min(2*delay, 250*time.Millisecond)
	}
}

// Last returns the account's holder as its holder file says: the current
// one while the account is leased, else the last one (its Since is when
// the account was last used). ok is false when the account was never
// leased on this machine (or the file cannot be read).
func (l *Local) Last(account string) (h Holder, ok bool) {
	b, err := os.ReadFile(l.path(account, ".holder"))
	if err != nil || json.Unmarshal(b, &h) != nil {
		return Holder{}, false
	}
	return h, true
}

// path is the account's lock file (ext ".lock") or holder file
// (".holder"): "a-" and the name query-escaped (portal/admin →
// a-portal%2Fadmin.lock, safe on every file system, no device name of
// Windows), or the SHA-256 of a long name.
func (l *Local) path(account, ext string) string {
	base := "a-" + url.QueryEscape(account)
	if len(base) > 200 {
		sum := sha256.Sum256([]byte(account))
		base = "h-" + hex.EncodeToString(sum[:])
	}
	return filepath.Join(l.Dir, base+ext)
}

// localLease is a lease of Local.
type localLease struct {
	l       *Local
	account string
	once    sync.Once
	fl      *flock.Flock
}

func (ll *localLease) Account() string { return ll.account }

// Release unlocks the file, then hands the account to the next waiter of
// this process.
func (ll *localLease) Release() error {
	var err error
	ll.once.Do(func() {
		err = ll.fl.Unlock()
		ll.l.mu.Lock()
		ll.l.handOff(ll.account)
		ll.l.mu.Unlock()
	})
	if err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("account lock: %w", err)
	}
	return nil
}

// NoteRun rewrites the holder note with runID (RunNoter).
func (ll *localLease) NoteRun(runID string) {
	ll.l.mu.Lock()
	a := ll.l.accts[ll.account]
	var h Holder
	if a != nil {
		a.holder.RunID = runID
		h = a.holder
	}
	ll.l.mu.Unlock()
	if h.Since.IsZero() {
		return
	}
	if b, err := json.Marshal(h); err == nil {
		_ = atomicfile.WriteNoSync(ll.l.path(ll.account, ".holder"), append(b, '\n'), 0o600)
	}
}
