package profiles

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/rpa-dev/rpa/internal/host/home"
)

// endOrphans kills every process whose command line holds the argument
// --user-data-dir=dir, with its process group (a launched Chromium leads
// a group of its own holding its helpers), and waits up to 5 s for them to
// go. It never kills this process or its group.
func endOrphans(dir string) int {
	want := []byte("--user-data-dir=" + dir)
	self := os.Getpid()
	selfGroup, _ := syscall.Getpgid(self)
	var pids []int
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !hasArg(b, want) || !home.ProcessAlive(pid) {
			continue
		}
		pids = append(pids, pid)
	}
	for _, pid := range pids {
		// The group of a Chromium we launched is led by its main process;
		// a group whose leader is gone is one whose main process died.
		if g, err := syscall.Getpgid(pid); err == nil && g > 1 && g != selfGroup && (g == pid || !home.ProcessAlive(g)) {
			_ = syscall.Kill(-g, syscall.SIGKILL)
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for home.ProcessAlive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return len(pids)
}

// hasArg reports whether the NUL-separated command line b has an argument
// equal to want.
func hasArg(b, want []byte) bool {
	for _, a := range bytes.Split(b, []byte{0}) {
		if bytes.Equal(a, want) {
			return true
		}
	}
	return false
}
