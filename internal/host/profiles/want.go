package profiles

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/rpa-dev/rpa/internal/host/home"
)

// Handing a profile over between rpa processes (docs/profiles.md, "A
// profile another process holds"): a process whose launch finds the
// profile folder locked by another rpa process (its lock file,
// LockFileName) leaves a marker in the folder's WantedDirName and waits,
// up to its bound, for the lock. A Pool that holds the folder only for an
// idle warm browser watches that folder (fsnotify) and, seeing the marker
// of a live process, closes the browser as its idle time would (scrubbing
// the secrets its calls used) and lets the lock go; a Pool with a call on
// the profile hands it over when its last call for it ends. The waiter
// wakes on the lock file's events: the holder's unlock writes it, and on
// Linux the kernel's closing of the holder's file when it dies is an
// event too (inotify IN_CLOSE_WRITE), so a killed holder frees the
// waiter at once; elsewhere the holder's death is checked every second.
// A marker names its process (file name: the pid; content: its start
// mark); markers of processes gone are removed by whoever reads them.

// WantedDirName is the folder inside a profile folder holding the markers
// of the processes waiting for it (one file per process, named by its
// pid, holding its start mark; no secret).
const WantedDirName = "rpa-wanted"

// DefaultClaimWait is how long a launch waits for a profile folder
// another rpa process holds, unless its context says otherwise
// (WithClaimWait): enough for an idle browser to be handed over (a second
// or two) and for a short run on it to end.
const DefaultClaimWait = 30 * time.Second

type claimWaitKey struct{}

// WithClaimWait returns ctx carrying how long a launch under it (Launch,
// a Pool's Acquire) waits for a profile folder another rpa process holds
// before it is refused with an *InUseError; d <= 0 refuses at once (no
// hand-over is asked for).
func WithClaimWait(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, claimWaitKey{}, d)
}

// claimWaitOf is ctx's WithClaimWait, else DefaultClaimWait.
func claimWaitOf(ctx context.Context) time.Duration {
	if d, ok := ctx.Value(claimWaitKey{}).(time.Duration); ok {
		return d
	}
	return DefaultClaimWait
}

// ClaimWait is Claim that, when another rpa process holds dir, asks it
// for the folder (a marker in WantedDirName) and waits for its lock up to
// wait, as long as ctx lets it. A holder with an idle warm browser hands
// it over at once; one with a run on the profile when that run ends; one
// that does not let go within wait gives an *InUseError (Waited set).
// It returns a *WaitCancelled (wrapping ctx's error) when ctx ends
// first. A folder a browser of this process holds is refused at once, as
// by Claim.
func ClaimWait(ctx context.Context, dir string, wait time.Duration) (*Lock, error) {
	l, err := Claim(dir)
	var ie *InUseError
	if err == nil || wait <= 0 || !errors.As(err, &ie) || ie.PID == os.Getpid() {
		return l, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	got, err := waitHandOver(ctx, abs, wait)
	if err != nil {
		if errors.As(err, &ie) {
			ie.Waited = time.Since(start)
		}
		return nil, err
	}
	// The lock is this process's: Claim shares it (LockDir), then the
	// wait's own hold goes.
	l, err = Claim(abs)
	got.Unlock()
	return l, err
}

// WaitCancelled is ClaimWait's error when its ctx ended while it waited
// for a profile folder another rpa process holds: errors.Is matches ctx's
// error (context.Canceled, context.DeadlineExceeded) through it, and
// Profile names the folder, so a caller can say what it was waiting for.
type WaitCancelled struct {
	Profile string // the folder's base name (the profile's ID)
	Err     error  // ctx's error
}

func (e *WaitCancelled) Error() string {
	return "waiting for profile " + e.Profile + ", which another rpa process holds: " + e.Err.Error()
}

// Unwrap is ctx's error.
func (e *WaitCancelled) Unwrap() error { return e.Err }

// waitHandOver leaves this process's marker in abs's WantedDirName and
// takes abs's lock as soon as its holder lets it go, waiting up to wait.
func waitHandOver(ctx context.Context, abs string, wait time.Duration) (*Lock, error) {
	path := filepath.Join(abs, LockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("profile lock: %w", err)
	}
	keep := false
	defer func() {
		if !keep {
			_ = f.Close()
		}
	}()
	// Watch first, then ask: no release between the two goes unseen.
	events, stop, err := lockEvents(path)
	if err != nil {
		return nil, fmt.Errorf("profile lock: %w", err)
	}
	defer stop()
	unmark, err := markWanted(abs)
	if err != nil {
		return nil, fmt.Errorf("profile lock: %w", err)
	}
	defer unmark()
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		l, ok, err := lockWith(abs, f)
		if err != nil {
			return nil, err
		}
		if ok {
			keep = true
			return l, nil
		}
		select {
		case <-events:
		case <-t.C:
			return nil, &InUseError{Profile: filepath.Base(abs), PID: readPID(path)}
		case <-ctx.Done():
			return nil, &WaitCancelled{Profile: filepath.Base(abs), Err: ctx.Err()}
		}
	}
}

// lockWith tries abs's lock on f (abs's lock file, opened by the caller
// and kept open while it waits, so its tries make no file events): ok with
// the Lock when taken (f then belongs to the lock, or is closed when this
// process took the lock meanwhile and the Lock shares it).
func lockWith(abs string, f *os.File) (*Lock, bool, error) {
	locksMu.Lock()
	defer locksMu.Unlock()
	if h := locks[abs]; h != nil {
		h.refs++
		_ = f.Close()
		return &Lock{dir: abs}, true, nil
	}
	if err := lockFile(f); err != nil {
		if errors.Is(err, errLocked) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("profile lock: %w", err)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	locks[abs] = &heldLock{f: f, refs: 1}
	return &Lock{dir: abs}, true, nil
}

// markWanted writes this process's marker into abs's WantedDirName
// (temp file + rename: a watcher never reads it half written) and
// returns the func that removes it.
func markWanted(abs string) (func(), error) {
	dir := filepath.Join(abs, WantedDirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	pid := strconv.Itoa(os.Getpid())
	mark, _ := home.ProcessStart(os.Getpid())
	tmp := filepath.Join(dir, "."+pid+".tmp")
	if err := os.WriteFile(tmp, []byte(mark+"\n"), 0o600); err != nil {
		return nil, err
	}
	final := filepath.Join(dir, pid)
	if err := os.Rename(tmp, final); err != nil {
		_ = os.Remove(tmp)
		return nil, err
	}
	return func() { _ = os.Remove(final) }, nil
}

// WantedByOther reports whether a live process other than this one left
// its marker in the profile folder dir's WantedDirName (it waits for the
// folder). Markers of processes that are gone (or whose pid now runs
// another process, by the start mark) are removed.
func WantedByOther(dir string) bool {
	wdir := filepath.Join(dir, WantedDirName)
	ents, err := os.ReadDir(wdir)
	if err != nil {
		return false
	}
	wanted := false
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		p := filepath.Join(wdir, e.Name())
		if !home.ProcessAlive(pid) {
			_ = os.Remove(p)
			continue
		}
		if b, err := os.ReadFile(p); err == nil {
			if want := strings.TrimSpace(string(b)); want != "" {
				if mark, ok := home.ProcessStart(pid); ok && mark != want {
					_ = os.Remove(p) // the pid runs another process now
					continue
				}
			}
		}
		wanted = true
	}
	return wanted
}

// WatchWanted calls fn, from a goroutine of its own, whenever a marker
// appears in the profile folder abs's WantedDirName (abs: an absolute
// path, as Lock.Dir), and once at the start when a live process's marker
// is already there: how a process holding the folder learns that another
// asks for it (Pool hands an idle browser's folder over). stop ends the
// watch (never call it from fn).
func WatchWanted(abs string, fn func()) (stop func(), err error) {
	dir := filepath.Join(abs, WantedDirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if err := w.Add(dir); err != nil {
		_ = w.Close()
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if WantedByOther(abs) {
			fn()
		}
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if ev.Has(fsnotify.Create) && !strings.HasPrefix(filepath.Base(ev.Name), ".") {
					fn()
				}
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
			}
		}
	}()
	return func() {
		_ = w.Close()
		<-done
	}, nil
}
