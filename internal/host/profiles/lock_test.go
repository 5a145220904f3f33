package profiles

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rpa-dev/rpa/internal/testutil/holder"
)

// TestMain lets a test start this binary as another process that holds a
// profile lock (holdLock).
func TestMain(m *testing.M) {
	holder.Serve(map[string]holder.Hold{"lock": func(dir string) (func(), error) {
		_, err := LockDir(dir) // held until the process exits
		return nil, err
	}})
	os.Exit(m.Run())
}

// holdLock starts a process holding dir's lock; the returned func ends it.
func holdLock(t *testing.T, dir string) (pid int, stop func()) {
	t.Helper()
	p := holder.Start(t, "lock", dir)
	return p.PID(), p.Stop
}

func TestLockDirAcrossProcesses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "work")
	pid, stop := holdLock(t, dir)
	_, err := LockDir(dir)
	var ie *InUseError
	if !errors.As(err, &ie) || !errors.Is(err, ErrInUse) {
		t.Fatalf("LockDir = %v, want an InUseError", err)
	}
	if want := "profile work is in use by rpa (pid " + strconv.Itoa(pid) + ")"; err.Error() != want {
		t.Fatalf("message %q, want %q", err.Error(), want)
	}
	stop() // the holder exits: the kernel drops its lock
	l, err := LockDir(dir)
	if err != nil {
		t.Fatalf("after the holder exited: %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, LockFileName))
	if string(b) != strconv.Itoa(os.Getpid())+"\n" {
		t.Errorf("lock file holds %q, want our pid", b)
	}
	l.Unlock()
	l.Unlock()
}

func TestLockDirSharedInProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "p")
	a, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LockDir(dir)
	if err != nil {
		t.Fatalf("second hold in one process: %v", err)
	}
	a.Unlock()
	a.Unlock() // once only: b still holds
	locksMu.Lock()
	held := locks[dir] != nil
	locksMu.Unlock()
	if !held {
		t.Fatal("the lock went with the first of two holds")
	}
	b.Unlock()
	locksMu.Lock()
	held = locks[dir] != nil
	locksMu.Unlock()
	if held {
		t.Fatal("the lock stayed after the last hold")
	}
}

func TestStaleSingletonLockRemoved(t *testing.T) {
	host, _ := os.Hostname()
	for _, tc := range []struct {
		name   string
		target string
		kept   bool
	}{
		{"dead pid", host + "-999999999", false},
		{"other host", "elsewhere-1", false},
		{"garbage", "nonsense", false},
		{"live pid", host + "-" + strconv.Itoa(os.Getpid()), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			lock := filepath.Join(dir, "SingletonLock")
			if err := os.Symlink(tc.target, lock); err != nil {
				t.Skip("no symlinks here:", err)
			}
			_ = os.WriteFile(filepath.Join(dir, "SingletonCookie"), nil, 0o600)
			l, err := Claim(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Unlock()
			_, err = os.Lstat(lock)
			if kept := err == nil; kept != tc.kept {
				t.Fatalf("SingletonLock kept = %v, want %v", kept, tc.kept)
			}
		})
	}
}

func TestSweepTemp(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	base := filepath.Join(home, "tmp")
	left := filepath.Join(base, "profile-left")   // a killed run's: lock file, nobody holds it
	busy := filepath.Join(base, "profile-busy")   // another process's, running
	fresh := filepath.Join(base, "profile-fresh") // being created: no lock file yet
	for _, d := range []string{left, fresh} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.WriteFile(filepath.Join(left, LockFileName), []byte("12345\n"), 0o600)
	_ = os.WriteFile(filepath.Join(left, "History"), []byte("x"), 0o600)
	holdLock(t, busy)
	dir, cleanup, err := Temp() // sweeps first
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("a killed run's temp profile was not swept: %v", err)
	}
	for _, d := range []string{busy, fresh, dir} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was swept: %v", filepath.Base(d), err)
		}
	}
	// Our own live temp profile survives another sweep.
	SweepTemp()
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("our own temp profile was swept: %v", err)
	}
}
