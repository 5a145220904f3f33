package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/runs"
)

// TestRunsSubcommandUsage: -h and a wrong flag of `rpa runs SUB` print the
// subcommand's own usage line; prune takes the --runs-keep/--runs-max-mb
// names the README gives, and an explicit 0 is an error, not the default.
func TestRunsSubcommandUsage(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	t.Setenv("RPA_RUNS_KEEP", "")
	t.Setenv("RPA_RUNS_MAX_MB", "")
	run := func(args ...string) (string, string, int) {
		var o, e bytes.Buffer
		code := runRuns(args, &o, &e)
		return o.String(), e.String(), code
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"prune", "--bogus"}, exitUsage, "usage: rpa runs prune [--keep N] [--max-mb MB]\n\nremove the oldest runs"},
		{[]string{"prune", "-h"}, exitOK, "usage: rpa runs prune [--keep N] [--max-mb MB]\n"},
		{[]string{"show", "-h"}, exitOK, "usage: rpa runs show ID [--json]\n"},
		{[]string{"report", "--bogus", "x"}, exitUsage, "usage: rpa runs report ID [-o FILE]\n"},
		{[]string{"prune", "--keep", "0"}, exitUsage, "--keep 0: want at least 1 run"},
		{[]string{"prune", "--runs-max-mb", "0"}, exitUsage, "--runs-max-mb 0: want a positive number of MB"},
	} {
		_, e, code := run(tc.args...)
		if code != tc.code || !strings.Contains(e, tc.want) || strings.Contains(e, "usage: \n") {
			t.Errorf("rpa runs %q: exit %d, stderr:\n%s", tc.args, code, e)
		}
	}
	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		r := &runs.Run{Flow: "a", Caller: runs.Caller{Kind: runs.CallerCLI}}
		if _, err := st.Begin(r); err != nil {
			t.Fatal(err)
		}
		st.Finish(r.ID, runs.Outcome{Status: runs.StatusOK})
	}
	st.Close()
	if out, e, code := run("prune", "--runs-keep", "1", "--runs-max-mb", "100"); code != exitOK || !strings.Contains(out, "removed 2 run") {
		t.Fatalf("prune --runs-keep 1: exit %d %q %q", code, out, e)
	}
}
