package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/xuri/excelize/v2"
)

// recordOutputs keeps outputs (JSON) with run id of home's store.
func recordOutputs(t *testing.T, home, id, outputs string) {
	t.Helper()
	st, err := runs.OpenHome(home, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.SetOutputs(id, json.RawMessage(outputs), 0); err != nil {
		t.Fatal(err)
	}
}

// TestRunPageOutputs: the run page shows the kept outputs' table in its
// column order with export links; the links give the XLSX and the CSV
// (BOM first) of that table; a wrong output or format is refused.
func TestRunPageOutputs(t *testing.T) {
	c := newConsole(t, map[string]string{"greet.flow": runsFlow})
	id := recordRun(t, c.home, runs.StatusOK, map[string]any{"who": "Ada"})
	var rows []string
	for i := 1; i <= 250; i++ {
		rows = append(rows, fmt.Sprintf(`{"date":"2024-%03d","kWh":"%d","cost":"成本 %d"}`, i, i, i))
	}
	recordOutputs(t, c.home, id, `{"rows":[`+strings.Join(rows, ",")+`],"count":250}`)
	html := c.get(t, "/runs/"+id)
	for _, want := range []string{
		`<h3 id="run-outputs">Outputs</h3>`, `rows: 250 rows`,
		`<th scope="col">date</th><th scope="col">kWh</th><th scope="col">cost</th>`,
		`<td>2024-001</td><td>1</td><td>成本 1</td>`, `The first 200 rows are shown`,
		`href="/runs/` + id + `/export?format=xlsx&amp;output=rows" download>Export rows as Excel (XLSX)</a>`,
		`Export rows as CSV`, `<summary>Outputs as JSON</summary><pre>{&#34;count&#34;:250}</pre>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("run page lacks %q", want)
		}
	}
	if strings.Contains(html, "2024-201") {
		t.Error("the page shows more than 200 rows")
	}
	fetch := func(path string) (*http.Response, []byte) {
		req, _ := http.NewRequest("GET", c.ts.URL+path, nil)
		req.Header.Set(TokenHeader, c.ui.Token())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	resp, b := fetch("/runs/" + id + "/export?format=xlsx&output=rows")
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Disposition"), `filename="greet-rows-`+id+`.xlsx"`) {
		t.Fatalf("xlsx: %d %v", resp.StatusCode, resp.Header)
	}
	f, err := excelize.OpenReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := f.GetRows("rows")
	f.Close()
	if len(got) != 251 || strings.Join(got[0], ",") != "date,kWh,cost" || got[250][2] != "成本 250" {
		t.Fatalf("xlsx rows %d %v", len(got), got[0])
	}
	resp, b = fetch("/runs/" + id + "/export?format=csv&output=rows")
	if resp.StatusCode != 200 || !strings.HasPrefix(string(b), "\xef\xbb\xbfdate,kWh,cost\r\n2024-001,1,成本 1\r\n") ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("csv: %d %q", resp.StatusCode, b[:40])
	}
	if resp, _ := fetch("/runs/" + id + "/export?format=csv&output=count"); resp.StatusCode != 404 {
		t.Errorf("no such table: %d", resp.StatusCode)
	}
	if resp, _ := fetch("/runs/" + id + "/export?format=pdf&output=rows"); resp.StatusCode != 400 {
		t.Errorf("bad format: %d", resp.StatusCode)
	}
}
