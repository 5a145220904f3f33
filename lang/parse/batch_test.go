package parse_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/format"
	"github.com/rpa-dev/rpa/lang/parse"
)

// bigNested is a flow of n if/else blocks holding a frame block: about 40
// tokens each, so that a few thousand cross many of the parser's batches
// of lines (blocks open in one batch close in another).
func bigNested(n int) string {
	var b strings.Builder
	b.WriteString("flow big\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "if page.exists(\"#a%d\") {\n    click [\"#b%d\", \"text=B\"]\n    frame \"#f\" {\n        fill \"#c\" \"v%d\"\n    }\n} else {\n    press \"Tab\"\n}\n", i, i, i)
	}
	return b.String()
}

// TestBigFile: a file of many batches parses as one of a single batch
// would: every block in its place, printed back as it was, and an error in
// a late batch at its own line.
func TestBigFile(t *testing.T) {
	const n = 3000
	src := bigNested(n)
	f, ds := parse.Flow("big.flow", []byte(src))
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	if len(f.Body) != n {
		t.Fatalf("%d statements, want %d", len(f.Body), n)
	}
	for i, s := range f.Body {
		ifs, ok := s.(*ast.IfStmt)
		if !ok || len(ifs.Then) != 2 || len(ifs.Else) != 1 {
			t.Fatalf("statement %d: %#v", i, s)
		}
		if fr, ok := ifs.Then[1].(*ast.FrameStmt); !ok || len(fr.Body) != 1 {
			t.Fatalf("statement %d: %#v", i, ifs.Then[1])
		}
		if want := 3 + 8*i; ifs.Range.Start.Line != want {
			t.Fatalf("statement %d at line %d, want %d", i, ifs.Range.Start.Line, want)
		}
	}
	if got := format.Flow(f); !bytes.Equal(got, []byte(src)) {
		t.Errorf("printed back differently")
	}
	at := strings.Index(src, "\"v2900\"")
	bad := src[:at] + strings.Replace(src[at:], "} else {", "} elsewise {", 1)
	_, ds = parse.Flow("big.flow", []byte(bad))
	if want := 3 + 8*2900 + 5; len(ds) == 0 || ds[0].Subject.Start.Line != want || !strings.Contains(ds[0].Summary, "elsewise") {
		t.Errorf("diagnostics %v, want one at line %d", ds, want)
	}
}
