package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/runs"
)

const stuckFlow = `flow stuck "Waits for an element that never comes"

open "data:text/html,<p id=there>here</p>"
wait "#never" wait: 60s retries: 0 timeout: 90s
`

// kill -9 of `rpa serve` during a run: the next start lists the run as
// interrupted and the database opens cleanly.
func TestServeKilledMidRun(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "rpa")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home, flows := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(flows, "stuck.flow"), []byte(stuckFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--stdio", "--flows", flows)
	cmd.Env = append(os.Environ(), "RPA_HOME="+home)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	send := func(s string) { fmt.Fprintln(in, s) }
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"killer","version":"1"}}}`)
	r := bufio.NewReader(out)
	if line, err := r.ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("initialize: %q %v", line, err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"workflow_stuck","arguments":{}}}`)

	// Wait until the run is recorded and its wait has started (a bound
	// that only catches a hang).
	var id string
	deadline := time.Now().Add(60 * time.Second)
	for id == "" && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		st, err := runs.Open(home, runs.Options{})
		if err != nil {
			continue
		}
		if l, _ := st.List(runs.Filter{}); len(l) == 1 && l[0].Status == runs.StatusRunning {
			if steps, _ := st.Steps(l[0].ID); len(steps) == 1 {
				id = l[0].ID // open finished: the wait is running
			}
		}
		st.Close()
	}
	if id == "" {
		t.Fatal("the run never showed up as running with its first step")
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()

	c := exec.Command(bin, "runs", "--json")
	c.Env = append(os.Environ(), "RPA_HOME="+home)
	listed, err := c.Output()
	if err != nil {
		t.Fatalf("rpa runs: %v", err)
	}
	var l []runs.Run
	if err := json.Unmarshal(listed, &l); err != nil || len(l) != 1 {
		t.Fatalf("rpa runs --json: %s %v", listed, err)
	}
	if l[0].ID != id || l[0].Status != runs.StatusInterrupted || l[0].Actions != 1 || l[0].Caller.Client != "killer" {
		t.Fatalf("after kill -9: %+v", l[0])
	}
	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
}
