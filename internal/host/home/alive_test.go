package home

import (
	"io"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// TestProcessAlive: this process lives; one that has exited does not; 0
// and negative pids are nobody.
func TestProcessAlive(t *testing.T) {
	if !ProcessAlive(os.Getpid()) {
		t.Error("this process is not alive")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if ProcessAlive(cmd.Process.Pid) {
		t.Errorf("pid %d alive after it exited", cmd.Process.Pid)
	}
	if ProcessAlive(0) || ProcessAlive(-1) {
		t.Error("pid 0 or -1 alive")
	}
}

// TestProcessStart: a process's start mark is stable while it runs and
// differs from that of a process started later.
func TestProcessStart(t *testing.T) {
	a, ok := ProcessStart(os.Getpid())
	if !ok {
		t.Skip("no process start marks on " + runtime.GOOS)
	}
	if b, _ := ProcessStart(os.Getpid()); b != a {
		t.Errorf("the mark changed: %s then %s", a, b)
	}
	time.Sleep(20 * time.Millisecond) // a mark counts clock ticks (10 ms): the child starts in a later one
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c, ok := ProcessStart(cmd.Process.Pid)
	_, _ = io.Copy(io.Discard, out)
	_ = cmd.Wait()
	if !ok || c == a {
		t.Errorf("a later process's mark %q (%v), ours %q", c, ok, a)
	}
	if _, ok := ProcessStart(cmd.Process.Pid); ok {
		t.Error("a mark for a reaped process")
	}
}
