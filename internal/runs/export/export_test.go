package export

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/orderedjson"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/xuri/excelize/v2"
)

func table() runs.Table {
	ts, err := runs.Tables(json.RawMessage(`{"rows":[{"date":"2024-01","region":"北京市","kWh":120,"cost":"=1+1"},{"date":"2024-02","region":"上海市","kWh":90.5,"cost":"-3"}]}`))
	if err != nil || len(ts) != 1 {
		panic(fmt.Sprint(ts, err))
	}
	return ts[0]
}

// TestCSV: UTF-8 with a BOM, the columns in order, CRLF lines, a page's
// formula-like text made inert (a negative number left alone).
func TestCSV(t *testing.T) {
	b, err := Bytes(table(), "csv")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) {
		t.Fatalf("no BOM: %q", b[:10])
	}
	want := "date,region,kWh,cost\r\n2024-01,北京市,120,'=1+1\r\n2024-02,上海市,90.5,-3\r\n"
	if got := string(b[3:]); got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if _, err := csv.NewReader(bytes.NewReader(b[3:])).ReadAll(); err != nil {
		t.Fatal(err)
	}
}

// TestXLSX: excelize reads back the sheet: header row, cells, numbers
// as numbers, text as text (a formula-like text is not a formula).
func TestXLSX(t *testing.T) {
	b, err := Bytes(table(), "xlsx")
	if err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := f.GetSheetList(); len(got) != 1 || got[0] != "rows" {
		t.Fatalf("sheets %v", got)
	}
	rows, err := f.GetRows("rows")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"date", "region", "kWh", "cost"}, {"2024-01", "北京市", "120", "=1+1"}, {"2024-02", "上海市", "90.5", "-3"}}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Fatalf("rows %v", rows)
	}
	if ty, _ := f.GetCellType("rows", "C2"); ty != excelize.CellTypeNumber && ty != excelize.CellTypeUnset {
		t.Errorf("C2 type %v", ty)
	}
	if fm, _ := f.GetCellFormula("rows", "D2"); fm != "" {
		t.Errorf("D2 is a formula: %q", fm)
	}
	if _, err := Bytes(table(), "pdf"); err == nil || !strings.Contains(err.Error(), `unknown format "pdf" (want csv or xlsx)`) {
		t.Fatalf("pdf: %v", err)
	}
	if SheetName("a/b:c") != "a_b_c" || SheetName("") != "outputs" || len([]rune(SheetName(strings.Repeat("表", 40)))) != 31 {
		t.Fatal("SheetName")
	}
}

// TestCmd: `rpa runs export` writes the run's table as the file's
// extension says, 50 rows with date first; errors are usage errors.
func TestCmd(t *testing.T) {
	home := t.TempDir()
	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &runs.Run{Flow: "usage"}
	if _, err := st.Begin(r); err != nil {
		t.Fatal(err)
	}
	rows := make([]any, 50)
	for i := range rows {
		rows[i] = &orderedjson.Object{Keys: []string{"date", "kWh", "cost"}, Vals: map[string]any{"date": fmt.Sprintf("d%d", i+1), "kWh": "1", "cost": "2"}}
	}
	if err := st.SetOutputs(r.ID, map[string]any{"rows": rows, "count": 50}, 0); err != nil {
		t.Fatal(err)
	}
	if err := st.Finish(r.ID, runs.Outcome{Status: runs.StatusOK}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	cmd := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		c := &runs.Cmd{Home: home, Stdout: &out, Stderr: &errb, Export: Write}
		return c.Run(append([]string{"export"}, args...)), errb.String()
	}
	file := filepath.Join(t.TempDir(), "用电.xlsx")
	if code, msg := cmd(r.ID, "-o", file); code != 0 || !strings.Contains(msg, "50 rows, 3 columns") {
		t.Fatalf("export: %d %s", code, msg)
	}
	f, err := excelize.OpenFile(file)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := f.GetRows("rows")
	f.Close()
	if len(got) != 51 || got[0][0] != "date" || got[50][0] != "d50" {
		t.Fatalf("xlsx rows %d %v", len(got), got[0])
	}
	csvFile := filepath.Join(t.TempDir(), "out.txt")
	if code, msg := cmd(r.ID, "--output", "rows", "--format", "csv", "-o", csvFile); code != 0 {
		t.Fatalf("csv: %d %s", code, msg)
	}
	if b, _ := os.ReadFile(csvFile); !strings.HasPrefix(string(b), "\xef\xbb\xbfdate,kWh,cost\r\nd1,1,2\r\n") {
		t.Fatalf("csv %q", b[:30])
	}
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{r.ID}, 2, "give -o FILE"},
		{[]string{r.ID, "-o", "x.pdf"}, 2, `--format "pdf": want csv or xlsx`},
		{[]string{r.ID, "--output", "nope", "-o", "x.csv"}, 2, `no table "nope" (tables: rows)`},
		{[]string{"20261201T125300123-a1b2", "-o", "x.csv"}, 2, "no such run"},
	} {
		if code, msg := cmd(tt.args...); code != tt.code || !strings.Contains(msg, tt.msg) {
			t.Errorf("%v: %d %q, want %d %q", tt.args, code, msg, tt.code, tt.msg)
		}
	}
}
