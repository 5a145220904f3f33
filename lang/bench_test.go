package lang

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// genFlow writes a flow of about n action lines mixing page actions,
// bound reads, interpolated strings, assignments and conditions, the way
// recorded flows look.
func genFlow(name string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "flow %s \"generated\"\n\nparam user: string\nparam password: secret\nparam region: string = \"110000\"\n\n", name)
	b.WriteString("defaults wait: 10s retries: 2\n\nopen \"https://example.com/login\"\nfill \"#user\" user\nfill \"#pass\" password\n")
	lines := 3
	for i := 0; lines < n; i++ {
		switch i % 8 {
		case 0:
			fmt.Fprintf(&b, "click [\"#btn-%d\", \"text=Button %d\"]\n", i, i)
		case 1:
			fmt.Fprintf(&b, "v%d = text \".cell-%d\"\n", i, i)
		case 2:
			fmt.Fprintf(&b, "fill \"#f%d\" \"{{ region }}-{{ v%d }}\"\n", i, i-1)
		case 3:
			fmt.Fprintf(&b, "wait \"#row-%d\" state: \"visible\" timeout: 5s\n", i)
		case 4:
			fmt.Fprintf(&b, "n%d = len(v%d) + %d\n", i, i-3, i)
		case 5:
			fmt.Fprintf(&b, "select \"#s%d\" region by: \"value\"\n", i)
		case 6:
			fmt.Fprintf(&b, "if n%d > 3 && page.exists(\"#x%d\") {\n    click \"#y%d\"\n}\n", i-2, i, i)
			lines += 2
		case 7:
			fmt.Fprintf(&b, "log \"step %d: {{ n%d }}\"\n", i, i-3)
		}
		lines++
	}
	b.WriteString("return {\"user\": user, \"region\": region}\n")
	return b.String()
}

// BenchmarkParseCheck parses and checks a generated 1,000-action flow
// (parse, check, compile every expression). Reported: ns per line and
// allocations per line.
func BenchmarkParseCheck(b *testing.B) {
	src := []byte(genFlow("big", 1000))
	nlines := strings.Count(string(src), "\n")
	if f, ds := Load("big.flow", src); f == nil || len(ds) > 0 {
		b.Fatalf("generated flow does not check: %v", ds)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Load("big.flow", src)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nlines), "ns/line")
}

// BenchmarkLoadDir200 loads a folder of 200 generated flows of ~40 lines.
func BenchmarkLoadDir200(b *testing.B) {
	dir := b.TempDir()
	if err := writeFlowFolder(dir, 200, 40); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		flows, ds := LoadDir(dir)
		if len(flows) != 200 || len(ds) > 0 {
			b.Fatalf("%d flows, %v", len(flows), ds)
		}
	}
}

func writeFlowFolder(dir string, n, lines int) error {
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("flow_%03d", i)
		if err := os.WriteFile(filepath.Join(dir, name+".flow"), []byte(genFlow(name, lines)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// TestGeneratedFlowsCheckClean keeps the benchmark inputs honest.
func TestGeneratedFlowsCheckClean(t *testing.T) {
	for _, n := range []int{10, 100} {
		if f, ds := Load("g.flow", []byte(genFlow("g", n))); f == nil || len(ds) > 0 {
			t.Fatalf("genFlow(%d): %v", n, ds)
		}
	}
}

// BenchmarkCheckOnly checks (and compiles) the generated 1,000-action flow
// parsed once: the checker's share of BenchmarkParseCheck.
func BenchmarkCheckOnly(b *testing.B) {
	src := []byte(genFlow("big", 1000))
	nlines := strings.Count(string(src), "\n")
	f, ds := Parse("big.flow", src)
	if len(ds) > 0 {
		b.Fatal(ds)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ds := checkFile(f, "big.flow", nil, nil); len(ds) > 0 {
			b.Fatal(ds)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nlines), "ns/line")
}

// TestLoadDirParallel loads a folder of generated flows (run it with
// -race: LoadDir parses and checks on several goroutines).
func TestLoadDirParallel(t *testing.T) {
	dir := t.TempDir()
	if err := writeFlowFolder(dir, 24, 40); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "caller.yaml"), []byte("flow: caller\nsteps:\n  - call: flow_001\n    with: {user: a, password: b}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "broken.flow"), []byte("flow broken\nclik \"#a\"\n"), 0o644)
	flows, ds := LoadDir(dir)
	if len(flows) != 25 {
		t.Errorf("%d flows loaded, want 25", len(flows))
	}
	if len(ds) != 1 || !strings.Contains(ds[0].OneLine(), `broken.flow:2:1: error: unknown action "clik"`) {
		t.Errorf("diagnostics: %v", ds)
	}
	for name, f := range flows {
		if f.File.Name != name || f.Path == "" {
			t.Errorf("flow %q: name %q path %q", name, f.File.Name, f.Path)
		}
	}
}
