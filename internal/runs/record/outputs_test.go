package record_test

import (
	"os"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/runs"
)

// TestOutputsKeptWithRun: a run's outputs are kept with it in the page's
// column order (not alphabetical), masked, and shown by the report and
// `rpa runs show`.
func TestOutputsKeptWithRun(t *testing.T) {
	st, err := runs.Open(t.TempDir(), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, fin := runFlow(t, st, `flow report_rows "rows of a table"

param base: string "server"
param password: secret "password"

open "{{ base }}/table.html"
rows = table "#report"
return {"rows": rows, "note": "pw " + password}
`, "", map[string]any{"base": srv.URL, "password": secret})
	if !res.Success {
		t.Fatalf("run failed: %+v", res.Error)
	}
	out, err := st.Outputs(fin.ID)
	if err != nil || out == nil {
		t.Fatalf("outputs %v %v", out, err)
	}
	js := string(out.JSON)
	if !strings.Contains(js, `"rows":[{"Region":"North","Sales / Q1":"10","Sales / Q2":"12","Notes":"steady"}`) {
		t.Errorf("rows not in the page's column order: %s", js)
	}
	if strings.Contains(js, secret) || !strings.Contains(js, `***`) {
		t.Errorf("secret not masked: %s", js)
	}
	b, err := os.ReadFile(fin.Report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `<tr><th>Region</th><th>Sales / Q1</th><th>Sales / Q2</th><th>Notes</th></tr>`) ||
		!strings.Contains(string(b), "rpa runs export "+fin.ID+" -o FILE.xlsx") {
		t.Errorf("report lacks the outputs table")
	}
	if strings.Contains(string(b), secret) {
		t.Errorf("report holds the secret")
	}
}
