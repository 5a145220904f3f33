package export

import (
	"fmt"
	"io"
	"testing"

	"github.com/rpa-dev/rpa/internal/runs"
)

// benchTable is n rows of the demo table's six columns.
func benchTable(n int) runs.Table {
	t := runs.Table{Name: "rows", Columns: []string{"date", "region", "kWh", "peak", "valley", "cost"}}
	for i := 0; i < n; i++ {
		t.Rows = append(t.Rows, []string{fmt.Sprintf("2024-%03d", i), "北京市", "120.5", "80", "40.5", "60.25"})
		t.Numeric = append(t.Numeric, []bool{false, false, false, false, false, false})
	}
	return t
}

// BenchmarkExport: a 1000-row table of six columns as CSV and as XLSX.
func BenchmarkExport(b *testing.B) {
	t := benchTable(1000)
	for _, f := range Formats {
		b.Run(f, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := Write(io.Discard, t, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
