package ui

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rpa-dev/rpa/internal/host/localctl"
)

// browserPIDs lists the Chromium main processes running on the profile
// folder dir: command line with --user-data-dir=DIR and no --type= (the
// renderer, GPU and utility helpers carry a --type).
func browserPIDs(dir string) ([]int, error) {
	want := []byte("--user-data-dir=" + dir)
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		main, has := true, false
		for _, a := range bytes.Split(b, []byte{0}) {
			if bytes.Equal(a, want) {
				has = true
			}
			if bytes.HasPrefix(a, []byte("--type=")) {
				main = false
			}
		}
		if has && main && localctl.Alive(pid) {
			out = append(out, pid)
		}
	}
	return out, nil
}

// stopBrowsers ends the browsers running on dir: SIGTERM to each main
// process (Chromium's clean exit), then, for one still alive after grace,
// SIGKILL to its process group (a launched Chromium leads a group of its
// own) or to it. It returns how many it stopped.
func stopBrowsers(dir string, grace time.Duration) (int, error) {
	pids, err := browserPIDs(dir)
	if err != nil || len(pids) == 0 {
		return 0, err
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for _, pid := range pids {
		for localctl.Alive(pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if localctl.Alive(pid) {
			if g, err := syscall.Getpgid(pid); err == nil && g == pid {
				_ = syscall.Kill(-g, syscall.SIGKILL)
			} else {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	return len(pids), nil
}

// processName is the program and subcommand of pid ("rpa serve"), never
// its flags (they may hold tokens); "" when unknown.
func processName(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return "pid"
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	s := filepath.Base(args[0])
	if len(args) > 1 && args[1] != "" && !strings.HasPrefix(args[1], "-") && !strings.ContainsAny(args[1], "/\\.=:") {
		s += " " + args[1]
	}
	return s
}
