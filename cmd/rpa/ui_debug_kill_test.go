package main

import (
	"bufio"
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// kill -9 of `rpa ui` while its debugger holds a run paused: the run's Chromium does not outlive
// it (the browser dies with the process that launched it).
func TestUIKilledWhileDebugging(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "rpa")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home := t.TempDir()
	flows := filepath.Join(home, "flows")
	if err := os.MkdirAll(flows, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(flows, "hello.flow"), []byte("flow hello \"Say hello\"\n\nopen \"data:text/html,<h1>hi</h1>\"\nlog \"hi\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "ui", "--listen", "127.0.0.1:0", "--flows", flows)
	cmd.Env = append(os.Environ(), "RPA_HOME="+home)
	out, _ := cmd.StdoutPipe()
	var errb lockedWriter
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL printed: %v; stderr %s", err, errb.String())
	}
	m := regexp.MustCompile(`(http://127\.0\.0\.1:\d+)/\?t=([0-9a-f]+)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("stdout %q has no console URL", line)
	}
	base, token := m[1], m[2]
	c := &http.Client{Timeout: 120 * time.Second}
	req, _ := http.NewRequest("POST", base+"/api/debug", strings.NewReader(`{"file":"hello.flow","breakpoints":[4]}`))
	req.Header.Set("X-RPA-Token", token)
	req.Header.Set("Origin", base)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var id struct{ ID string }
	b := new(bytes.Buffer)
	_, _ = b.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("debug: %d %s", resp.StatusCode, b)
	}
	if m := regexp.MustCompile(`"id":"([0-9a-f]+)"`).FindStringSubmatch(b.String()); m != nil {
		id.ID = m[1]
	}
	// Watch it (a debug run nobody watches stops by itself) until it pauses before line 4.
	req, _ = http.NewRequest("GET", base+"/api/debug/"+id.ID+"/events", nil)
	req.Header.Set("X-RPA-Token", token)
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	paused := false
	for !paused && sc.Scan() {
		paused = sc.Text() == "event: paused"
	}
	if !paused {
		t.Fatalf("the debug run never paused: %v; stderr %s", sc.Err(), errb.String())
	}
	if len(chromiumOf(home)) == 0 {
		t.Fatal("paused, the run has no Chromium under $RPA_HOME")
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = cmd.Wait()
	// The browser goes with its parent (a bound that only catches a hang).
	deadline := time.Now().Add(30 * time.Second)
	for len(chromiumOf(home)) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if left := chromiumOf(home); len(left) > 0 {
		t.Fatalf("Chromium outlived the killed rpa ui:\n%s", strings.Join(left, "\n"))
	}
}

// chromiumOf lists the live processes whose command line names dir.
func chromiumOf(dir string) []string {
	var out []string
	des, _ := os.ReadDir("/proc")
	for _, de := range des {
		b, err := os.ReadFile(filepath.Join("/proc", de.Name(), "cmdline"))
		if err != nil || !bytes.Contains(b, []byte(dir)) || bytes.HasPrefix(b, []byte(os.Args[0])) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", de.Name(), "stat")); err == nil && bytes.Contains(st, []byte(") Z ")) {
			continue
		}
		out = append(out, de.Name()+" "+strings.ReplaceAll(string(b[:min(len(b), 120)]), "\x00", " "))
	}
	return out
}
