package parse_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/format"
	"github.com/rpa-dev/rpa/lang/parse"
	"github.com/rpa-dev/rpa/lang/parse/internal/grammar"
)

// FuzzParseFlow: Flow never panics or reports an internal error, keeps its
// position invariants, and whatever parses cleanly formats to text that
// parses cleanly to an Equal tree and formats to itself.
//
//	go test ./lang/parse -run XXX -fuzz FuzzParseFlow -fuzztime 5m
func FuzzParseFlow(f *testing.F) {
	for _, dir := range []string{"../testdata/parse", "../testdata/format"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.flow"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	for _, s := range []string{
		"flow a\nif x {\n} else if y {\n} else {\n}\n",
		"flow a\nx = f(a,\n  b) # c\n",
		"flow a\nlog \"{{ '{{' }} {{ x }}\"\n",
		"flow a\ntry {\n} catch e {\n}\n",
		"\xef\xbb\xbfflow a\r\nclick [\"#a\", \"text=A\"] timeout: 5s\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, ds := parse.Flow("fuzz.flow", src)
		if file == nil {
			t.Fatal("nil File")
		}
		for _, d := range ds {
			if strings.Contains(d.Summary, "internal error") {
				t.Fatalf("%s", d.OneLine())
			}
		}
		if msg := rangeErrors(string(src), file); msg != "" {
			t.Fatalf("%s", msg)
		}
		// The hand-written fast path for simple action lines must agree
		// with the participle grammar exactly.
		grammar.FastPath = false
		slow, slowDs := parse.Flow("fuzz.flow", src)
		grammar.FastPath = true
		if ast.Dump(slow) != ast.Dump(file) || render(slowDs) != render(ds) {
			t.Fatalf("fast path differs from the grammar on %q:\n--- fast\n%s%s--- grammar\n%s%s", src, ast.Dump(file), render(ds), ast.Dump(slow), render(slowDs))
		}
		if ds.HasErrors() {
			return
		}
		out := format.Flow(file)
		f2, ds2 := parse.Flow("formatted.flow", out)
		if len(ds2) > 0 {
			t.Fatalf("formatted output does not parse: %v\n--- input\n%q\n--- output\n%s", ds2, src, out)
		}
		if !ast.Equal(file, f2) {
			t.Fatalf("formatted output is a different tree\n--- input\n%q\n--- output\n%s\n--- before\n%s--- after\n%s", src, out, ast.Dump(file), ast.Dump(f2))
		}
		if again := format.Flow(f2); string(again) != string(out) {
			t.Fatalf("format not idempotent\n--- input\n%q\n--- once\n%s--- twice\n%s", src, out, again)
		}
	})
}
