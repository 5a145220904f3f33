package interp

import (
	"os"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/drivers"
)

// TestEvidenceChecks: a step's evidence carries the fallback list and the
// checks its Locate used, as stdlib ran it (so a failure report re-checks
// `click force:` with drivers.Attached, not the pointer checks, and sees
// `press on:`'s selector), and nothing for an action that located nothing.
func TestEvidenceChecks(t *testing.T) {
	f := load(t, `flow t
click "#a" force: true
press "Enter" on: ["#zz", "#b"]
click ["#a", "#b"]
fill "#a" "x"
t = text "#a"
log "no locate"
`)
	type seen struct {
		sels   string
		checks drivers.Checks
	}
	var got []seen
	res := run(t, f, Options{Browser: newBrowser(stdPage), Events: func(ev Event) {
		if ev.Kind == EventFinished && ev.Evidence != nil {
			got = append(got, seen{strings.Join(ev.Evidence.Selectors, ","), ev.Evidence.Checks})
		}
	}})
	if !res.Success {
		t.Fatalf("%+v", res.Error)
	}
	want := []seen{
		{"#a", drivers.Attached},
		{"#zz,#b", drivers.Attached},
		{"#a,#b", drivers.ForPointer},
		{"#a", drivers.ForInput},
		{"#a", drivers.ForRead},
	}
	if len(got) != len(want) {
		t.Fatalf("evidence of %d steps, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("step %d: evidence %+v, want %+v", i+1, got[i], want[i])
		}
	}
}

// TestRemoveTempFiles: the picture a `screenshot` without path: wrote to the
// temporary folder is the run's to remove (stdlib marks it); one written to
// the flow's own path: stays.
func TestRemoveTempFiles(t *testing.T) {
	dir := t.TempDir()
	f := load(t, "flow t\nparam dir: string\nopen \"http://x/\"\na = screenshot\nb = screenshot path: \"{{ dir }}/kept.png\"\nreturn [a, b]\n")
	res := run(t, f, Options{Browser: newBrowser(stdPage), Args: argsOf(t, f, map[string]any{"dir": dir})})
	if !res.Success {
		t.Fatalf("%+v", res.Error)
	}
	out := res.Outputs.([]any)
	temp, kept := out[0].(string), out[1].(string)
	for _, p := range []string{temp, kept} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("before: %v", err)
		}
	}
	res.RemoveTempFiles()
	if _, err := os.Stat(temp); !os.IsNotExist(err) {
		t.Errorf("the temporary screenshot %s is still there (%v)", temp, err)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("the flow's own screenshot was removed: %v", err)
	}
	res.RemoveTempFiles() // twice is harmless
	(*Result)(nil).RemoveTempFiles()
}
