package profiles

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestWantedByOther: a marker counts only while its process lives and is
// not this one; a dead process's marker is removed (a waiter killed while
// waiting leaves nothing that keeps a holder handing over).
func TestWantedByOther(t *testing.T) {
	dir := t.TempDir()
	if WantedByOther(dir) {
		t.Fatal("no marker folder: wanted")
	}
	wdir := filepath.Join(dir, WantedDirName)
	if err := os.MkdirAll(wdir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(pid int) string {
		p := filepath.Join(wdir, strconv.Itoa(pid))
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write(os.Getpid())
	if WantedByOther(dir) {
		t.Fatal("this process's own marker counts as another's")
	}
	gone := exec.Command(os.Args[0], "-test.run=^$")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := write(gone.Process.Pid)
	if WantedByOther(dir) {
		t.Fatal("a dead process's marker counts")
	}
	if _, err := os.Stat(dead); err == nil {
		t.Error("a dead process's marker was left")
	}
	// A claim of the folder removes a dead waiter's marker too.
	write(gone.Process.Pid)
	l, err := Claim(dir)
	if err != nil {
		t.Fatal(err)
	}
	l.Unlock()
	if _, err := os.Stat(dead); err == nil {
		t.Error("a claim left a dead process's marker")
	}
	live := exec.Command("cat") // lives until its stdin closes
	stdin, err := live.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stdin.Close(); _ = live.Wait() }()
	write(live.Process.Pid)
	if !WantedByOther(dir) {
		t.Fatal("a live process's marker does not count")
	}
}

// TestClaimWaitOwnHold: a folder a browser of this process holds is
// refused at once (the pool queues its own calls), never waited for.
func TestClaimWaitOwnHold(t *testing.T) {
	dir := t.TempDir()
	l, err := Claim(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a wait would end with ctx's error
	_, err = ClaimWait(ctx, dir, DefaultClaimWait)
	var ie *InUseError
	if !errors.As(err, &ie) || ie.PID != os.Getpid() || ie.Waited != 0 {
		t.Fatalf("ClaimWait on our own claim: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, WantedDirName)); len(ents) != 0 {
		t.Errorf("a marker was left for our own claim: %v", ents)
	}
}

// TestClaimWaitCancelledSaysWhat: a wait for a folder another process
// holds that its ctx ends says which profile it waited for (a
// *WaitCancelled wrapping ctx's error): `rpa run` interrupted there said
// "cancelled while starting the browser" on the old code, which returned
// ctx's bare error.
func TestClaimWaitCancelledSaysWhat(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kept")
	_, stop := holdLock(t, dir)
	defer stop()
	// the ctx's end is what is under test; 30 s is the claim's own bound
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := ClaimWait(ctx, dir, 30*time.Second)
	var wc *WaitCancelled
	if !errors.As(err, &wc) || wc.Profile != "kept" || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ClaimWait = %v, want a *WaitCancelled for kept wrapping the deadline", err)
	}
}
