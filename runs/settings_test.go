package runs

import (
	"strings"
	"testing"
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
