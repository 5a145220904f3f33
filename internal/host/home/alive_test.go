package home

import (
	"os"
	"os/exec"
	"testing"
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
