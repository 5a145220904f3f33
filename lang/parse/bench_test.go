package parse_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang/parse"
)

// benchFlow generates a flow of n action lines of the usual shapes.
func benchFlow(n int) []byte {
	var b strings.Builder
	b.WriteString("flow bench \"generated\"\n\nparam base_url: string = \"http://127.0.0.1:8080\"\nparam region: string\n\ndefaults wait: 10s retries: 2\n\n")
	for i := 0; i < n; i++ {
		switch i % 8 {
		case 0:
			fmt.Fprintf(&b, "open \"{{ base_url }}/page/%d\"\n", i)
		case 1:
			fmt.Fprintf(&b, "fill \"#field-%d\" region\n", i)
		case 2:
			fmt.Fprintf(&b, "click [\"#submit-%d\", \"text=Submit\"] timeout: 5s\n", i)
		case 3:
			fmt.Fprintf(&b, "wait url: \"/result/%d\" # wait for the result\n", i)
		case 4:
			fmt.Fprintf(&b, "rows%d = table \"#data-table\" header: \"auto\"\n", i)
		case 5:
			fmt.Fprintf(&b, "select \"#region\" rows%d[0].code by: \"value\"\n", i-1)
		case 6:
			fmt.Fprintf(&b, "t%d = text \"td.order-no\" all: true optional: true\n", i)
		case 7:
			fmt.Fprintf(&b, "press \"Enter\" on: \"#search-%d\"\n", i)
		}
	}
	return []byte(b.String())
}

// BenchmarkParse parses a generated 1,000-action flow; one op is 1,000
// action lines (plus a 7-line header).
func BenchmarkParse(b *testing.B) {
	src := benchFlow(1000)
	if _, ds := parse.Flow("bench.flow", src); len(ds) > 0 {
		b.Fatal(ds)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		parse.Flow("bench.flow", src)
	}
}
