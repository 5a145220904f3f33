// Package export writes a table of a run's outputs (runs.Table) as a file
// a spreadsheet opens: CSV in UTF-8 with a byte order mark (so Excel reads
// Chinese text as such) or XLSX (github.com/xuri/excelize/v2, pure Go). It
// is `rpa runs export` and the console's export links.
package export

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/xuri/excelize/v2"
)

// Formats are the export formats, as --format and the console name them.
var Formats = []string{"csv", "xlsx"}

// ContentType is the MIME type of a format's file.
func ContentType(format string) string {
	if format == "xlsx" {
		return "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	}
	return "text/csv; charset=utf-8"
}

// Write writes t to w as format ("csv" or "xlsx"): a header row of its
// columns, then its rows. An unknown format is an error naming the known
// ones.
func Write(w io.Writer, t runs.Table, format string) error {
	switch format {
	case "csv":
		return writeCSV(w, t)
	case "xlsx":
		return writeXLSX(w, t)
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, " or "))
}

// Bytes is Write into memory.
func Bytes(t runs.Table, format string) ([]byte, error) {
	var b bytes.Buffer
	if err := Write(&b, t, format); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// bom is UTF-8's byte order mark.
const bom = "\xef\xbb\xbf"

func writeCSV(w io.Writer, t runs.Table) error {
	if _, err := io.WriteString(w, bom); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	cw.UseCRLF = true // RFC 4180, as Excel writes it
	if err := cw.Write(t.Columns); err != nil {
		return err
	}
	for i, r := range t.Rows {
		row := make([]string, len(r))
		for j, c := range r {
			row[j] = csvCell(c, j < len(t.Numeric[i]) && t.Numeric[i][j])
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvCell is c as a CSV field: text a spreadsheet would take for a
// formula (it starts with = + - @, a tab or a carriage return, and is not
// a number) gets a leading apostrophe, so a page's text never runs as a
// formula (OWASP, "CSV Injection").
func csvCell(c string, numeric bool) string {
	if c == "" || numeric || !strings.ContainsRune("=+-@\t\r", rune(c[0])) {
		return c
	}
	if _, err := strconv.ParseFloat(c, 64); err == nil {
		return c
	}
	return "'" + c
}

// SheetName is the XLSX sheet of table name: the name with the characters
// Excel refuses replaced, at most 31 characters; "outputs" for "".
func SheetName(name string) string {
	if name == "" {
		return "outputs"
	}
	name = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`[]:*?/\`, r) {
			return '_'
		}
		return r
	}, name)
	if r := []rune(name); len(r) > 31 {
		name = string(r[:31])
	}
	return name
}

func writeXLSX(w io.Writer, t runs.Table) error {
	f := excelize.NewFile()
	defer f.Close()
	sheet := SheetName(t.Name)
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		return err
	}
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return err
	}
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	if err != nil {
		return err
	}
	head := make([]any, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = excelize.Cell{StyleID: bold, Value: c}
	}
	if err := sw.SetRow("A1", head); err != nil {
		return err
	}
	for i, r := range t.Rows {
		vals := make([]any, len(r))
		for j, s := range r {
			vals[j] = s
			if j < len(t.Numeric[i]) && t.Numeric[i][j] {
				if n, err := strconv.ParseFloat(s, 64); err == nil {
					vals[j] = n
				}
			}
		}
		cell, err := excelize.CoordinatesToCellName(1, i+2)
		if err != nil {
			return err
		}
		if err := sw.SetRow(cell, vals); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	_, err = f.WriteTo(w)
	return err
}
