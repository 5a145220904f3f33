//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	rodd "github.com/rpa-dev/rpa/drivers/rod"
)

// TestRecordHeadlessProfileAndDevTools: `rpa record --headless` records in
// a profile under $RPA_HOME (removed at the end), prints the control
// endpoint a script can drive it with (a Unix socket in a folder only this
// user enters), opens no TCP port (its Chromium speaks CDP over its pipe:
// no --remote-debugging-port, no listening TCP socket of its processes),
// and exits 0 on Ctrl-C.
func TestRecordHeadlessProfileAndDevTools(t *testing.T) {
	needLinux(t)
	srv := httptest.NewServer(http.FileServer(http.Dir("../../internal/authoring/recorder/testdata/pages")))
	defer srv.Close()
	home := lifeHome(t)
	out := filepath.Join(t.TempDir(), "x.flow")
	cmd := exec.Command(rpaBin(t), "record", srv.URL+"/login.html", "-o", out, "--headless")
	cmd.Env = append(os.Environ(), "RPA_HOME="+home)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	ws := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if l := sc.Text(); strings.HasPrefix(l, "DevTools listening on ") {
				ws <- strings.TrimPrefix(l, "DevTools listening on ")
			}
		}
	}()
	var u string
	select {
	case u = <-ws:
	case <-time.After(60 * time.Second):
		t.Fatal("rpa record --headless printed no DevTools URL")
	}
	if !strings.HasPrefix(u, rodd.ControlScheme) {
		t.Fatalf("the control endpoint %q is not a Unix socket", u)
	}
	sockDir := filepath.Dir(strings.TrimPrefix(u[:strings.LastIndex(u, ":/")], rodd.ControlScheme))
	if fi, err := os.Stat(sockDir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the control socket's folder: %v, %v (want 0700)", fi, err)
	}
	b, err := rodd.ConnectControl(context.Background(), u)
	if err != nil {
		t.Fatalf("cannot drive the recording browser at %s: %v", u, err)
	}
	pages, err := b.Pages()
	if err != nil || len(pages) == 0 {
		t.Fatalf("pages of the recording browser: %v, %v", pages, err)
	}
	pids := browsersOn(filepath.Join(home, "tmp"))
	if len(pids) == 0 {
		t.Fatal("the recording browser's profile is not under $RPA_HOME/tmp")
	}
	for _, pid := range pids {
		cl, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if strings.Contains(string(cl), "--remote-debugging-port") {
			t.Errorf("pid %d has a DevTools port: %s", pid, bytes.ReplaceAll(cl, []byte{0}, []byte{' '}))
		}
		if ls := tcpListening(pid); len(ls) > 0 {
			t.Errorf("pid %d listens on TCP: %v", pid, ls)
		}
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("rpa record after Ctrl-C: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(home, "tmp")); len(ents) != 0 {
		t.Errorf("the temporary profile was left: %d entries", len(ents))
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("no flow written: %v", err)
	}
	if _, err := os.Stat(sockDir); !os.IsNotExist(err) {
		t.Errorf("the control socket's folder was left: %v", err)
	}
}

// tcpListening returns the local addresses (hex, as /proc/net/tcp writes
// them) of the listening TCP sockets process pid holds.
func tcpListening(pid int) []string {
	inodes := map[string]bool{}
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if ino, ok := strings.CutPrefix(l, "socket:["); ok && err == nil {
			inodes[strings.TrimSuffix(ino, "]")] = true
		}
	}
	var out []string
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fs := strings.Fields(line)
			// sl local rem st tx:rx tr:when retrnsmt uid timeout inode
			if len(fs) > 9 && fs[3] == "0A" && inodes[fs[9]] {
				out = append(out, fs[1])
			}
		}
	}
	return out
}
