package yamlflow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/parse"
)

// flowFiles lists the .flow files of the repo's lang testdata.
func flowFiles(t *testing.T) []string {
	var out []string
	for _, dir := range []string{"examples", "yaml", "parse", "format", "check"} {
		m, _ := filepath.Glob(filepath.Join("..", "testdata", dir, "*.flow"))
		out = append(out, m...)
	}
	if len(out) == 0 {
		t.Fatal("no .flow testdata found")
	}
	return out
}

// TestFlowYAMLFlowRoundTrip: every .flow that parses cleanly gives, through
// Write and Parse, an ast.Equal tree, and Write is idempotent.
func TestFlowYAMLFlowRoundTrip(t *testing.T) {
	n := 0
	for _, path := range flowFiles(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, ds := parse.Flow(path, src)
		if ds.HasErrors() {
			if strings.Contains(path, "/yaml/") || strings.Contains(path, "/examples/") {
				t.Errorf("%s: %v", path, ds)
			}
			continue // error cases of other suites
		}
		n++
		y := Write(f)
		g, yds := Parse(path+".yaml", y)
		if yds.HasErrors() {
			t.Errorf("%s: written YAML does not parse: %v\n%s", path, yds, y)
			continue
		}
		if !ast.Equal(f, g) {
			t.Errorf("%s: YAML round trip differs\nflow:\n%s\nyaml-back:\n%s\nyaml:\n%s", path, ast.Dump(f), ast.Dump(g), y)
			continue
		}
		if y2 := Write(g); string(y2) != string(y) {
			t.Errorf("%s: Write not idempotent:\n%s\n---\n%s", path, y, y2)
		}
	}
	t.Logf("%d .flow files round-tripped", n)
	if n < 2 {
		t.Fatalf("only %d clean .flow files round-tripped", n)
	}
}

// TestExamplesPairs: each example's hand-written .yaml is the same flow as
// its .flow.
func TestExamplesPairs(t *testing.T) {
	flows, _ := filepath.Glob(filepath.Join("..", "testdata", "examples", "*.flow"))
	if len(flows) < 2 {
		t.Fatalf("want at least 2 examples, got %v", flows)
	}
	for _, fp := range flows {
		yp := strings.TrimSuffix(fp, ".flow") + ".yaml"
		fsrc, _ := os.ReadFile(fp)
		ysrc, err := os.ReadFile(yp)
		if err != nil {
			t.Fatalf("%s has no YAML twin: %v", fp, err)
		}
		f, ds := parse.Flow(fp, fsrc)
		if len(ds) > 0 {
			t.Fatalf("%s: %v", fp, ds)
		}
		y, ds := Parse(yp, ysrc)
		if len(ds) > 0 {
			t.Fatalf("%s: %v", yp, ds)
		}
		if !ast.Equal(f, y) {
			t.Errorf("%s and %s differ\nflow:\n%s\nyaml:\n%s", fp, yp, ast.Dump(f), ast.Dump(y))
		}
	}
}
