package ui

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/host/localctl"
	"github.com/rpa-dev/rpa/internal/host/profiles"
)

// TestUIBLockHelperProcess is the other rpa process of TestStatusLockedProfile:
// it holds the profile lock of $RPA_UIB_LOCK until its stdin closes.
func TestUIBLockHelperProcess(t *testing.T) {
	dir := os.Getenv("RPA_UIB_LOCK")
	if dir == "" {
		t.Skip("the helper process of TestStatusLockedProfile")
	}
	l, err := profiles.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	reg, err := localctl.Register(os.Getenv("RPA_HOME"), localctl.Entry{Kind: localctl.KindServe, Program: "rpa connect",
		Serves: []string{"MCP over the link to a gateway"}, Gateway: "wss://gw.example/link", GatewayState: "connected"})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	fmt.Println("LOCKED")
	io.Copy(io.Discard, os.Stdin)
}

func TestStatusLockedProfile(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finding and stopping a profile's browser is Linux only")
	}
	c := newConsole(t, nil)
	work := filepath.Join(c.home, "profiles", "work")
	if err := os.MkdirAll(filepath.Join(c.home, "profiles", "spare"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	// Another process holds the profile, and a Chromium runs on it.
	holder := exec.Command(os.Args[0], "-test.run=^TestUIBLockHelperProcess$")
	holder.Env = append(os.Environ(), "RPA_UIB_LOCK="+work, "RPA_HOME="+c.home)
	stdin, _ := holder.StdinPipe()
	stdout, _ := holder.StdoutPipe()
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); holder.Wait() }()
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); strings.TrimSpace(line) != "LOCKED" {
		t.Fatalf("helper: %q", line)
	}
	bin := "/usr/bin/chromium"
	if p := os.Getenv("ROD_BROWSER"); p != "" {
		bin = p
	}
	br := exec.Command(bin, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+work, "--remote-debugging-port=0", "about:blank")
	if err := br.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { br.Wait(); close(exited) }()
	defer func() {
		select {
		case <-exited:
		default:
			br.Process.Kill()
			<-exited
		}
	}()

	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/status?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	waitText(t, pg, "ui.test (pid "+strconv.Itoa(holder.Process.Pid)+")")
	// the browser's own pid first; its helpers that carry the profile's
	// folder may follow it ("running (pid 1, 2, 3)")
	waitText(t, pg, "running (pid "+strconv.Itoa(br.Process.Pid))
	waitText(t, pg, "free") // the spare profile
	waitText(t, pg, "wss://gw.example/link (connected)")
	uibCheck(t, c, pg, "status")

	click(t, pg, "button", "Stop the browser of work")
	waitText(t, pg, "The browser of profiles/work was stopped")
	select {
	case <-exited:
	case <-time.After(time.Minute): // only catches a hang
		out, _ := exec.Command("ps", "-o", "pid,pgid,stat,args", "-p", strconv.Itoa(br.Process.Pid)).CombinedOutput()
		t.Fatalf("the browser is still running after Stop:\n%.300s\n%s", out, c.log.String())
	}
	waitText(t, pg, "not running")
}
