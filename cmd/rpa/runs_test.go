package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/runs"
)

func TestRunsCommand(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ok := &runs.Run{Flow: "alpha", Caller: runs.Caller{Kind: runs.CallerCLI}, Args: map[string]any{"pw": "***"}}
	st.Begin(ok)
	st.AddStep(ok.ID, runs.Step{Index: 1, Action: "click", Line: 3, Status: "ok", Selector: "#b", SelectorIndex: 1, Target: "#a"})
	st.Finish(ok.ID, runs.Outcome{Status: runs.StatusOK, DurationMs: 120})
	bad := &runs.Run{Flow: "beta", Caller: runs.Caller{Kind: runs.CallerMCP, Client: "claude"}}
	st.Begin(bad)
	st.Finish(bad.ID, runs.Outcome{Status: runs.StatusFailed, ErrorKind: "covered", ErrorLine: 7, ErrorMessage: "click: covered"})
	st.Close()

	run := func(args ...string) (string, string, int) {
		var o, e bytes.Buffer
		code := runRuns(args, &o, &e)
		return o.String(), e.String(), code
	}
	out, _, code := run()
	if code != 0 || !strings.Contains(out, ok.ID) || !strings.Contains(out, "covered at line 7") || strings.Index(out, bad.ID) > strings.Index(out, ok.ID) {
		t.Fatalf("rpa runs (%d):\n%s", code, out)
	}
	out, _, _ = run("--failed", "--json")
	var l []map[string]any
	if err := json.Unmarshal([]byte(out), &l); err != nil || len(l) != 1 || l[0]["id"] != bad.ID {
		t.Fatalf("--failed --json: %s", out)
	}
	out, _, _ = run("--flow", "alpha")
	if !strings.Contains(out, ok.ID) || strings.Contains(out, bad.ID) {
		t.Fatalf("--flow alpha:\n%s", out)
	}
	out, _, code = run("show", ok.ID)
	if code != 0 || !strings.Contains(out, "#b (fallback 2)") || !strings.Contains(out, `"pw":"***"`) {
		t.Fatalf("show:\n%s", out)
	}
	out, _, code = run("report", bad.ID)
	if code != 0 || !strings.HasSuffix(strings.TrimSpace(out), "report.html") {
		t.Fatalf("report: %q", out)
	}
	copyTo := filepath.Join(t.TempDir(), "r.html")
	if _, _, code = run("report", bad.ID, "-o", copyTo); code != 0 {
		t.Fatal("report -o failed")
	}
	if b, err := os.ReadFile(copyTo); err != nil || !bytes.Contains(b, []byte("covered")) {
		t.Fatalf("copy: %v", err)
	}
	if _, e, code := run("show", "nope"); code != exitUsage || !strings.Contains(e, "not a run ID") {
		t.Fatalf("show nope: %d %s", code, e)
	}
	out, _, code = run("prune", "--keep", "1")
	if code != 0 || !strings.Contains(out, "removed 1 run") {
		t.Fatalf("prune: %q", out)
	}
	if out, _, _ = run(); strings.Contains(out, ok.ID) || !strings.Contains(out, bad.ID) {
		t.Fatalf("after prune:\n%s", out)
	}
}
