package flows

import (
	"io/fs"
	"testing"

	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/format"
	"github.com/rpa-dev/rpa/lang/parse"
)

// Every example flow loads and checks clean (no errors, no warnings), as a
// folder, so `call` targets and their with: keys are checked too.
func TestFlowsCheckClean(t *testing.T) {
	flows, ds := lang.LoadDir(".")
	for _, d := range ds {
		t.Errorf("%s", d.OneLine())
	}
	want := []string{"query_power_data", "all_pages", "region_total", "compare_regions"}
	if len(flows) != len(want) {
		t.Errorf("LoadDir found %d flows, want %d", len(flows), len(want))
	}
	for _, name := range want {
		if _, ok := flows[name]; !ok {
			t.Errorf("flow %s missing", name)
		}
	}
}

// The embedded copies are the files on disk, and each one loads from memory.
func TestEmbedded(t *testing.T) {
	names, err := fs.Glob(FS, "*")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 4 {
		t.Errorf("embedded %v, want the 4 flows", names)
	}
	for _, n := range names {
		src, err := fs.ReadFile(FS, n)
		if err != nil {
			t.Fatal(err)
		}
		f, ds := lang.Load(n, src)
		if f == nil || ds.HasErrors() {
			t.Errorf("%s: %v", n, ds)
		}
	}
}

// The .flow examples are in canonical form (`rpa fmt` leaves them as they
// are), so they can serve as style references.
func TestFlowsCanonical(t *testing.T) {
	names, err := fs.Glob(FS, "*.flow")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		src, _ := fs.ReadFile(FS, n)
		f, ds := parse.Flow(n, src)
		if ds.HasErrors() {
			t.Fatalf("%s: %v", n, ds)
		}
		if got := format.Flow(f); string(got) != string(src) {
			t.Errorf("%s is not in canonical form; run rpa fmt -w on it. Canonical:\n%s", n, got)
		}
	}
}
