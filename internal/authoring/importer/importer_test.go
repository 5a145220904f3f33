package importer

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/diag"
	"github.com/rpa-dev/rpa/lang/format"
)

var update = flag.Bool("update", false, "rewrite the golden .flow and .diag files")

// render is what `rpa import` writes for one import: each flow's .flow text
// and the diagnostics in one-line form (paths relative to testdata).
func render(flows []*Flow, ds diag.Diagnostics) (map[string][]byte, string) {
	out := map[string][]byte{}
	for _, f := range flows {
		out[f.Name] = format.Flow(f.File)
	}
	var sb strings.Builder
	for _, d := range ds {
		sb.WriteString(d.OneLine())
		sb.WriteByte('\n')
	}
	return out, sb.String()
}

// TestGolden imports every recording under testdata (real exports and
// hand-written ones), compares each flow with its golden .flow and the
// diagnostics with the golden .diag, and loads each flow with lang.Load,
// which must report no error. A .side project's flows are checked together
// with lang.LoadDir, so `call` targets resolve.
func TestGolden(t *testing.T) {
	var inputs []string
	for _, pat := range []string{"testdata/chrome/*.json", "testdata/side/*.side", "testdata/jsonflow/*.json"} {
		m, _ := filepath.Glob(pat)
		inputs = append(inputs, m...)
	}
	if len(inputs) < 10 {
		t.Fatalf("only %d inputs found", len(inputs))
	}
	for _, in := range inputs {
		t.Run(strings.TrimPrefix(in, "testdata/"), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			rel := strings.TrimPrefix(in, "testdata/")
			flows, ds := Import(rel, src, Options{})
			texts, diagText := render(flows, ds)
			base := strings.TrimSuffix(in, filepath.Ext(in))
			golden(t, base+".diag", []byte(diagText))
			dir := base + ".flows"
			if *update {
				os.RemoveAll(dir)
			}
			for name, text := range texts {
				golden(t, filepath.Join(dir, name+".flow"), text)
			}
			if !*update {
				have, _ := filepath.Glob(filepath.Join(dir, "*.flow"))
				if len(have) != len(texts) {
					t.Errorf("%s holds %d golden flows, the import made %d", dir, len(have), len(texts))
				}
			}
			if ds.HasErrors() {
				return // the input itself is broken (a golden .diag says how)
			}
			if len(texts) == 1 {
				for name, text := range texts {
					if _, lds := lang.Load(name+".flow", text); lds.HasErrors() {
						t.Errorf("lang.Load of %s:\n%s\n%s", name, lds.Error(), text)
					}
				}
				return
			}
			tmp := t.TempDir()
			for name, text := range texts {
				os.WriteFile(filepath.Join(tmp, name+".flow"), text, 0o644)
			}
			if _, lds := lang.LoadDir(tmp); lds.HasErrors() {
				for _, d := range lds {
					if d.Severity == diag.Error {
						t.Errorf("lang.LoadDir: %s", d.OneLine())
					}
				}
			}
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestFormatRoundTrip checks that what the importer prints parses back to
// an equal tree: the AST it builds is one the .flow grammar can express.
func TestFormatRoundTrip(t *testing.T) {
	for _, in := range []string{"testdata/chrome/keys-frames-popup.json", "testdata/side/site.side", "testdata/jsonflow/order_flow.json"} {
		src, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		flows, _ := Import(in, src, Options{})
		for _, f := range flows {
			text := format.Flow(f.File)
			back, ds := lang.Parse(f.Name+".flow", text)
			if ds.HasErrors() {
				t.Fatalf("%s: %v\n%s", f.Name, ds, text)
			}
			if !ast.Equal(f.File, back) {
				t.Errorf("%s: the printed flow parses to a different tree:\n%s", f.Name, text)
			}
		}
	}
}
