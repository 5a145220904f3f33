package profiles

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/internal/host/home"
)

// LockFileName is the file inside a profile folder that rpa locks while a
// process of its own uses the folder (flock on Unix, LockFileEx on
// Windows; the kernel drops the lock when the process dies, however it
// dies). It holds the owner's pid in decimal.
const LockFileName = "rpa.lock"

// ErrInUse matches (errors.Is) every *InUseError.
var ErrInUse = errors.New("profile is in use")

// InUseError reports a profile folder that another live process holds:
// another rpa process (its lock file), or a browser of this process.
type InUseError struct {
	// Profile is the folder's base name (the profile id for
	// $RPA_HOME/profiles/ID); never a full path.
	Profile string
	// PID is the holder's process id (0 when unknown).
	PID int
	// Waited is how long the claim waited for the holder to hand the
	// folder over (ClaimWait; 0 when it did not wait).
	Waited time.Duration
}

// Error is "profile ID is in use by rpa (pid N)", with "; waited D" when
// the claim waited for it.
func (e *InUseError) Error() string {
	msg := fmt.Sprintf("profile %s is in use by another rpa process", e.Profile)
	if e.PID > 0 {
		msg = fmt.Sprintf("profile %s is in use by rpa (pid %d)", e.Profile, e.PID)
	}
	if e.Waited > 0 {
		msg += fmt.Sprintf("; waited %s", e.Waited.Round(time.Second))
	}
	return msg
}

// Is reports target == ErrInUse.
func (e *InUseError) Is(target error) bool { return target == ErrInUse }

// Lock is this process's hold on a profile folder (see
// LockDir). Unlock it once; the zero value is not used.
type Lock struct {
	dir     string
	claimed bool // by Claim: a browser of this process holds the folder
	once    sync.Once
}

// heldLock is one locked lock file of this process, shared by every
// Lock of the same folder (flock locks belong to an open file: a
// second open in this process would conflict with the first).
type heldLock struct {
	f    *os.File
	refs int
}

var (
	locksMu sync.Mutex
	locks   = map[string]*heldLock{}
)

// LockDir takes rpa's lock on the profile folder dir (creating dir and
// its LockFileName) and writes this process's pid into it. Within one
// process the lock is shared: each call returns its own Lock and
// the file is unlocked when the last one is unlocked. When another process
// holds it the error is an *InUseError naming that process's pid.
func LockDir(dir string) (*Lock, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	locksMu.Lock()
	defer locksMu.Unlock()
	if h := locks[abs]; h != nil {
		h.refs++
		return &Lock{dir: abs}, nil
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("profile folder: %w", err)
	}
	path := filepath.Join(abs, LockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("profile lock: %w", err)
	}
	if err := lockFile(f); err != nil {
		_ = f.Close()
		if errors.Is(err, errLocked) {
			return nil, &InUseError{Profile: filepath.Base(abs), PID: readPID(path)}
		}
		return nil, fmt.Errorf("profile lock: %w", err)
	}
	// The pid is written in place (the file is locked, readers of a busy
	// lock only read it): truncate, then write.
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	locks[abs] = &heldLock{f: f, refs: 1}
	return &Lock{dir: abs}, nil
}

// Holder says whether another process (an rpa process: only rpa takes
// this lock) holds the profile folder dir's lock (LockFileName) right now,
// and its pid (0 when the file does not say). It does not take the lock:
// it asks for a shared one it gives back at once, which fails while the
// lock is held; a folder without the file is not held. A lock this
// process holds counts as held too (its pid is this process's).
func Holder(dir string) (pid int, held bool) {
	path := filepath.Join(dir, LockFileName)
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	if !probeFile(f) {
		return 0, false
	}
	return readPID(path), true
}

// Unlock releases this hold; the file lock goes when the process's last
// hold on the folder goes. Calling it again does nothing.
func (l *Lock) Unlock() {
	if l == nil {
		return
	}
	l.once.Do(func() {
		if l.claimed {
			claimedMu.Lock()
			delete(claimed, l.dir)
			claimedMu.Unlock()
		}
		locksMu.Lock()
		defer locksMu.Unlock()
		h := locks[l.dir]
		if h == nil {
			return
		}
		if h.refs--; h.refs > 0 {
			return
		}
		delete(locks, l.dir)
		_ = h.f.Truncate(0)
		_ = unlockFile(h.f)
		_ = h.f.Close()
	})
}

// Dir is the locked folder (absolute).
func (l *Lock) Dir() string { return l.dir }

// readPID reads the pid a lock file holds, 0 when unreadable.
func readPID(path string) int {
	// The holder writes its pid right after taking the lock: give it a
	// moment when the file is still empty.
	for i := 0; i < 20; i++ {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0
		}
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0
}

// Claim readies the profile folder dir for a browser of this process, to
// hold until that browser has exited (drivers.LaunchOptions.OnExit): a
// folder a browser of this process already holds (a Claim not yet
// unlocked) is refused with an *InUseError naming this process, before
// Chromium could print its own complaint; it takes the lock (LockDir; an
// *InUseError when another rpa process holds it), ends every browser
// process left running on the folder by a process that died (on Linux:
// processes whose command line has --user-data-dir=DIR, found in /proc;
// there can be no live owner since nobody else holds the lock), and
// removes Chromium's SingletonLock/SingletonSocket/SingletonCookie when the
// process they name is gone. A folder marked dirty (DirtyFileName: a dead
// owner's browser was given secrets it never scrubbed) loses its
// history-like files (WipeHistory) and the marker. Markers of processes
// that died waiting for the folder (WantedDirName) are removed.
func Claim(dir string) (*Lock, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	claimedMu.Lock()
	if claimed[abs] {
		claimedMu.Unlock()
		return nil, &InUseError{Profile: filepath.Base(abs), PID: os.Getpid()}
	}
	claimed[abs] = true
	claimedMu.Unlock()
	l, err := LockDir(abs)
	if err != nil {
		claimedMu.Lock()
		delete(claimed, abs)
		claimedMu.Unlock()
		return nil, err
	}
	l.claimed = true
	EndOrphans(l.dir)
	cleanSingleton(l.dir)
	wipeIfDirty(l.dir)   // dirty.go
	WantedByOther(l.dir) // removes the markers of waiters that died (want.go)
	return l, nil
}

// claimed are the folders a Claim of this process holds (absolute).
var (
	claimedMu sync.Mutex
	claimed   = map[string]bool{}
)

// EndOrphans kills the browser processes whose command line names
// --user-data-dir=dir (dir absolute), with their process groups, and waits
// (at most 5 s) until they are gone. It returns how many it found. Call
// it only while holding dir's lock. Linux only; elsewhere it returns 0.
func EndOrphans(dir string) int { return endOrphans(dir) }

// browserRuns reports whether dir's SingletonLock ("HOST-PID") names a
// process running on this host.
func browserRuns(dir string) bool {
	target, err := os.Readlink(filepath.Join(dir, "SingletonLock"))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(target, '-')
	if i < 0 {
		return false
	}
	host, _ := os.Hostname()
	pid, perr := strconv.Atoi(target[i+1:])
	return perr == nil && target[:i] == host && home.ProcessAlive(pid)
}

// cleanSingleton removes Chromium's singleton files in dir when the
// process SingletonLock names ("HOST-PID") is not running on this host.
func cleanSingleton(dir string) {
	lock := filepath.Join(dir, "SingletonLock")
	if _, err := os.Lstat(lock); err != nil {
		return // no lock
	}
	if browserRuns(dir) {
		return // a live browser that is not ours holds it
	}
	for _, n := range []string{"SingletonLock", "SingletonSocket", "SingletonCookie"} {
		_ = os.Remove(filepath.Join(dir, n))
	}
}

// SweepTemp removes the temporary profiles under home.Dir()/tmp that
// no live process holds (left by a run that was killed), after ending any
// browser still running on them. A folder without a lock file is removed
// only when it is older than ten minutes (it may be one being created).
// It returns how many it removed.
func SweepTemp() int { return SweepTempIn(home.Dir()) }

// SweepTempIn is SweepTemp for the rpa home homeDir (`rpa doctor --fix`).
func SweepTempIn(homeDir string) int {
	n := 0
	for _, dir := range staleTemps(homeDir) {
		l, err := LockDir(dir)
		if err != nil {
			continue // in use (or unreadable): leave it
		}
		EndOrphans(l.dir)
		l.Unlock()
		if os.RemoveAll(dir) == nil {
			n++
		}
	}
	return n
}

// StaleTemp lists (by folder name) the temporary profiles under
// homeDir/tmp that SweepTempIn would remove now: left by runs that were
// killed, they may still hold what a run typed (a secret in Sessions), so
// `rpa doctor` reports them.
func StaleTemp(homeDir string) []string {
	var out []string
	for _, dir := range staleTemps(homeDir) {
		if _, held := Holder(dir); !held {
			out = append(out, filepath.Base(dir))
		}
	}
	return out
}

// staleTemps lists the temporary profile folders under homeDir/tmp that
// are not this process's and either have a lock file (whether a live
// process holds it is the caller's to find out) or are older than ten
// minutes without one.
func staleTemps(homeDir string) []string {
	base := filepath.Join(homeDir, "tmp")
	ents, err := os.ReadDir(base)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "profile-") {
			continue
		}
		dir := filepath.Join(base, e.Name())
		if _, err := os.Stat(filepath.Join(dir, LockFileName)); err != nil {
			info, err := e.Info()
			if err != nil || time.Since(info.ModTime()) < 10*time.Minute {
				continue
			}
		}
		locksMu.Lock()
		mine := locks[dir] != nil
		locksMu.Unlock()
		if !mine {
			out = append(out, dir)
		}
	}
	return out
}
