package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rpa-dev/rpa/internal/runs"
)

const stuckFlow = `flow stuck "Waits for an element that never comes"

open "data:text/html,<p id=there>here</p>"
wait "#never" wait: 60s retries: 0 timeout: 90s
`

// kill -9 of `rpa serve` during a run: the next start lists the run as
// interrupted and the database opens cleanly.
func TestServeKilledMidRun(t *testing.T) {
	bin := rpaBin(t)
	home, flows := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(flows, "stuck.flow"), []byte(stuckFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startStdio(t, bin, home, flows)
	s.send("tools/call", `{"name":"workflow_stuck","arguments":{}}`) // never answered: it waits

	// Wait until the run is recorded and its wait has started (the store
	// another process writes).
	var id string
	waitFor(t, "the run to show up as running with its first step", func() bool {
		st, err := runs.Open(home, runs.Options{})
		if err != nil {
			return false
		}
		defer st.Close()
		if l, _ := st.List(runs.Filter{}); len(l) == 1 && l[0].Status == runs.StatusRunning {
			if steps, _ := st.Steps(l[0].ID); len(steps) == 1 {
				id = l[0].ID // open finished: the wait is running
			}
		}
		return id != ""
	})
	if err := s.cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = s.cmd.Wait()

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
