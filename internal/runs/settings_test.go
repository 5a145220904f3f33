package runs

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

// TestSettings: Check names the bad flag; Open keeps the retention given.
func TestSettings(t *testing.T) {
	for _, c := range []struct {
		s    Settings
		want string
	}{
		{Settings{}, ""},
		{Settings{Evidence: EvidenceFull, Keep: 3, MaxMB: 1.5, PacketBudget: 100}, ""},
		{Settings{Evidence: "all"}, `--evidence "all"`},
		{Settings{Keep: -1}, "must not be negative"},
		{Settings{PacketBudget: -1}, "must not be negative"},
	} {
		err := c.s.Check()
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.s, err, c.want)
		}
	}
	t.Setenv("RPA_RUNS_KEEP", "")
	t.Setenv("RPA_RUNS_MAX_MB", "")
	st, err := Settings{Keep: 7}.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.opts.Keep != 7 {
		t.Errorf("keep %d, want 7", st.opts.Keep)
	}
}

// TestFilterRegister: the listing flags fill the filter; a bad --since is
// the flag's error.
func TestFilterRegister(t *testing.T) {
	var f Filter
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.Register(fs)
	if err := fs.Parse([]string{"--flow", "login", "--failed", "--since", "24h", "--limit", "3"}); err != nil {
		t.Fatal(err)
	}
	if f.Flow != "login" || !f.Failed || f.Limit != 3 || time.Since(f.Since) < 23*time.Hour || time.Since(f.Since) > 25*time.Hour {
		t.Errorf("%+v", f)
	}
	if err := fs.Parse([]string{"--since", "yesterday-ish"}); err == nil || !strings.Contains(err.Error(), "since") {
		t.Errorf("bad --since: %v", err)
	}
}
