package parse_test

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/diag"
	"github.com/rpa-dev/rpa/lang/format"
	"github.com/rpa-dev/rpa/lang/parse"
	"github.com/rpa-dev/rpa/lang/parse/internal/grammar"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const testdata = "../testdata/parse"

// golden compares got with the file at path, or rewrites it with -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (run go test -update to accept):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff shows the first differing line of two texts.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + itoa(i+1) + ":\n  want: " + a + "\n  got:  " + b
		}
	}
	return "(no line differs)"
}

func itoa(i int) string {
	s := ""
	for {
		s = string(rune('0'+i%10)) + s
		i /= 10
		if i == 0 {
			return s
		}
	}
}

func render(ds diag.Diagnostics) string {
	var sb strings.Builder
	for _, d := range ds {
		sb.WriteString(d.OneLine())
		sb.WriteByte('\n')
	}
	return sb.String()
}

// TestParseGolden parses every lang/testdata/parse/*.flow and compares
// ast.Dump (plus diagnostics, if any) with NAME.ast.golden.
func TestParseGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testdata, "*.flow"))
	if len(files) < 3 {
		t.Fatalf("expected test flows in %s, found %d", testdata, len(files))
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, ds := parse.Flow(name, src)
			got := ast.Dump(f)
			if len(ds) > 0 {
				got += "--- diagnostics\n" + render(ds)
			}
			if !strings.HasPrefix(name, "err_") && len(ds) > 0 {
				t.Errorf("unexpected diagnostics:\n%s", render(ds))
			}
			checkRanges(t, string(src), f)
			grammar.FastPath = false
			slow, slowDs := parse.Flow(name, src)
			grammar.FastPath = true
			if ast.Dump(slow) != ast.Dump(f) || render(slowDs) != render(ds) {
				t.Errorf("the fast path and the grammar disagree:\n--- fast\n%s--- grammar\n%s", ast.Dump(f), ast.Dump(slow))
			}
			golden(t, strings.TrimSuffix(path, ".flow")+".ast.golden", got)
			if len(ds) == 0 {
				roundTrip(t, f)
			}
		})
	}
}

// TestGrammarEBNF catches drift of the participle grammar.
func TestGrammarEBNF(t *testing.T) {
	golden(t, filepath.Join(testdata, "grammar.ebnf.golden"), grammar.Parser.String()+"\n")
}

// roundTrip checks that the formatted file parses cleanly to an Equal tree
// and formats to the same text again.
func roundTrip(t *testing.T, f *ast.File) {
	t.Helper()
	out := format.Flow(f)
	f2, ds := parse.Flow("formatted.flow", out)
	if len(ds) > 0 {
		t.Fatalf("formatted output does not parse:\n%s\n%s", render(ds), out)
	}
	if !ast.Equal(f, f2) {
		t.Fatalf("formatted output parses to a different tree:\n%s\n--- before\n%s--- after\n%s", out, ast.Dump(f), ast.Dump(f2))
	}
	if out2 := format.Flow(f2); string(out2) != string(out) {
		t.Fatalf("format is not idempotent:\n%s", lineDiff(string(out), string(out2)))
	}
}

// checkRanges verifies the position invariants of every node: Line/Col
// agree with Offset, End >= Start, and an ExprSrc's Source is exactly the
// file text of its range.
func checkRanges(t *testing.T, src string, f *ast.File) {
	t.Helper()
	if err := rangeErrors(src, f); err != "" {
		t.Error(err)
	}
}

func rangeErrors(src string, f *ast.File) string {
	var msg string
	lines := lineStarts(src)
	check := func(what string, r ast.Range) {
		if msg != "" || r.Start.Line == 0 {
			return
		}
		for _, p := range []ast.Pos{r.Start, r.End} {
			if want := posAt(src, lines, p.Offset); want != p {
				msg = what + ": position " + p.String() + " does not match its offset (want " + want.String() + ")"
				return
			}
		}
		if r.End.Offset < r.Start.Offset {
			msg = what + ": range ends before it starts"
		}
	}
	ast.Walk(f, func(n ast.Node) bool {
		check("node", n.Rng())
		if e, ok := n.(*ast.ExprSrc); ok && msg == "" {
			if got := src[e.Start.Offset:e.End.Offset]; got != e.Source {
				msg = "ExprSrc at " + e.Start.String() + ": Source " + quoteS(e.Source) + " but file text " + quoteS(got)
			}
		}
		return true
	})
	for _, c := range f.Comments {
		check("comment", c.Range)
		if msg == "" && src[c.Start.Offset:c.End.Offset] != c.Text {
			msg = "comment text differs from its range"
		}
	}
	return msg
}

func quoteS(s string) string { return "`" + s + "`" }

// lineStarts lists the offset of each line's first byte (a leading BOM is
// not counted in columns).
func lineStarts(src string) []int {
	starts := []int{0}
	if strings.HasPrefix(src, "\xef\xbb\xbf") {
		starts[0] = 3
	}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// posAt is an independent offset → line:col conversion.
func posAt(src string, starts []int, off int) ast.Pos {
	i := sort.SearchInts(starts, off+1) - 1
	if i < 0 {
		return ast.Pos{Line: 1, Col: 1, Offset: off} // inside a BOM: the file's start
	}
	return ast.Pos{Line: i + 1, Col: off - starts[i] + 1, Offset: off}
}
