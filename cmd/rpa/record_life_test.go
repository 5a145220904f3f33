//go:build linux

package main

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-rod/rod"
)

// TestRecordHeadlessProfileAndDevTools: `rpa record --headless` records in
// a profile under $RPA_HOME (removed at the end), prints the DevTools URL
// a script can drive it with, and exits 0 on Ctrl-C.
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
			if l := sc.Text(); strings.HasPrefix(l, "DevTools listening on ws://") {
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
	b := rod.New().ControlURL(u)
	if err := b.Connect(); err != nil {
		t.Fatalf("cannot drive the recording browser at %s: %v", u, err)
	}
	pages, err := b.Pages()
	if err != nil || len(pages) == 0 {
		t.Fatalf("pages of the recording browser: %v, %v", pages, err)
	}
	if n := len(browsersOn(filepath.Join(home, "tmp"))); n == 0 {
		t.Fatal("the recording browser's profile is not under $RPA_HOME/tmp")
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
}
