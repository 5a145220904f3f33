package yamlflow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/check"
	"github.com/rpa-dev/rpa/lang/parse"
)

// FuzzParseYAML: Parse and check.File never panic (nor report internal
// errors), and whatever parses without errors
// writes and re-parses (without errors) to an ast.Equal tree, and Write is
// stable on the re-parsed tree.
// Seeds: the YAML testdata, the YAML form of every .flow testdata file,
// and testdata/fuzz/FuzzParseYAML.
func FuzzParseYAML(f *testing.F) {
	ys, _ := filepath.Glob(filepath.Join("..", "testdata", "*", "*.yaml"))
	for _, p := range ys {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	fs, _ := filepath.Glob(filepath.Join("..", "testdata", "*", "*.flow"))
	for _, p := range fs {
		b, _ := os.ReadFile(p)
		if fl, ds := parse.Flow(p, b); !ds.HasErrors() {
			f.Add(Write(fl))
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		a, ds := Parse("f.yaml", src)
		for _, d := range ds {
			if strings.Contains(d.Summary, "internal error") {
				t.Fatalf("%s\ninput:\n%s", d.OneLine(), src)
			}
		}
		if ds.HasErrors() || a == nil {
			return
		}
		// The checker must not panic on anything the front end accepts.
		if _, cds := check.File(a, &check.Options{Folder: map[string]*ast.File{a.Name: a}}); len(cds) > 0 {
			for _, d := range cds {
				if strings.Contains(d.Summary, "internal error") {
					t.Fatalf("%s\ninput:\n%s", d.OneLine(), src)
				}
			}
		}
		out := Write(a)
		b, ds2 := Parse("g.yaml", out)
		if ds2.HasErrors() {
			t.Fatalf("written YAML does not parse: %v\ninput:\n%s\nwritten:\n%s", ds2, src, out)
		}
		if !ast.Equal(a, b) {
			t.Fatalf("round trip differs\ninput:\n%s\nwritten:\n%s\nfirst:\n%s\nsecond:\n%s", src, out, ast.Dump(a), ast.Dump(b))
		}
		if out2 := Write(b); string(out2) != string(out) {
			t.Fatalf("Write not stable:\n%s\n---\n%s", out, out2)
		}
	})
}
