package heal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/stdlib"
)

// marksOf is a MarkSource over a fixed list.
type marksOf []runs.Mark

func (m marksOf) Marks(flow string, _ int) ([]runs.Mark, error) {
	var out []runs.Mark
	for _, k := range m {
		if k.Flow == flow {
			out = append(out, k)
		}
	}
	return out, nil
}

// TestProposeFile: the file's marks give the patch and its diff; no marks,
// no patch; a file that does not parse gives its diagnostics.
func TestProposeFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.flow")
	os.WriteFile(path, []byte(patchSrc), 0o644)
	ms := marksOf{{Flow: "p", Line: 5, Selectors: []string{"#go"}, Matched: -1, Healed: []string{"#start"}, Score: 0.9}, {Flow: "other", Line: 5}}
	p, ds, err := ProposeFile(path, ms, 0)
	if err != nil || ds != nil || p.Flow != "p" || p.Marks != 1 || len(p.Proposals) != 1 {
		t.Fatalf("ProposeFile = %+v %v %v", p, ds, err)
	}
	if d := p.Diff(path); !strings.HasPrefix(d, "--- a/p.flow\n") || !strings.Contains(d, `+click ["#start", "#go"]`) {
		t.Errorf("diff:\n%s", d)
	}
	p, _, err = ProposeFile(path, marksOf{}, 0)
	if err != nil || len(p.Proposals) != 0 || p.Out != nil || p.Diff(path) != "" {
		t.Errorf("without marks: %+v %v", p, err)
	}
	bad := filepath.Join(dir, "bad.flow")
	os.WriteFile(bad, []byte("flow bad\nclick \"#x\n"), 0o644)
	if p, ds, err := ProposeFile(bad, ms, 0); p != nil || err != nil || !ds.HasErrors() {
		t.Errorf("bad flow: %+v %v %v", p, ds, err)
	}
	if _, _, err := ProposeFile(filepath.Join(dir, "none.flow"), ms, 0); err == nil {
		t.Error("missing file: no error")
	}
}

// TestAttach: a hook is attached unless the mode is off (flag over the
// flow's defaults); CheckFlag accepts "" and the modes only.
func TestAttach(t *testing.T) {
	f, ds := lang.Load("a.flow", []byte("flow a\n\nopen \"about:blank\"\n"))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	for _, c := range []struct {
		flag string
		hook bool
	}{{"", true}, {"auto", true}, {"off", false}} {
		ctx, flush := Attach(context.Background(), c.flag, f, nil, "")
		if got := stdlib.LocateHookOf(ctx) != nil; got != c.hook {
			t.Errorf("--heal %q: hook %v, want %v", c.flag, got, c.hook)
		}
		if err := flush(); err != nil {
			t.Errorf("--heal %q: flush: %v", c.flag, err)
		}
	}
	if CheckFlag("") != nil || CheckFlag("auto") != nil || CheckFlag("sometimes") == nil {
		t.Error("CheckFlag")
	}
}
