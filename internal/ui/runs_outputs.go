package ui

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/export"
)

// A run's outputs on its page (as kept by the run store: capped, masked,
// tables in the page's column order) and their export as CSV or XLSX
// (package runs/export, as `rpa runs export`).

// pageRows is how many rows of an output table the run page shows.
const pageRows = 200

type outputTable struct {
	runs.Table
	Caption   string // "rows: 50 rows"
	Shown     string // "The first 200 rows are shown..." ("" when all are)
	XLSX, CSV string // export links
	XLSXText  string
	CSVText   string
}

// addOutputs puts the run's kept outputs into data: "Outputs" (its
// tables), "OutputsJSON" (the JSON of what they hold besides tables) and
// "OutputsNote" (when they were cut).
func (s *Server) addOutputs(r *http.Request, st *runs.Store, id string, data map[string]any) error {
	out, err := st.Outputs(id)
	if err != nil || out == nil {
		return err
	}
	ts, err := runs.Tables(out.JSON)
	if err != nil {
		return err
	}
	var tables []outputTable
	for _, t := range ts {
		name := t.Name
		if name == "" {
			name = "outputs"
		}
		q := url.Values{"output": {t.Name}}
		ot := outputTable{Table: t, Caption: s.T(r, "runs.outTable", name, len(t.Rows)),
			XLSXText: s.T(r, "runs.exportXLSX", name), CSVText: s.T(r, "runs.exportCSV", name)}
		q.Set("format", "xlsx")
		ot.XLSX = "/runs/" + id + "/export?" + q.Encode()
		q.Set("format", "csv")
		ot.CSV = "/runs/" + id + "/export?" + q.Encode()
		if len(t.Rows) > pageRows {
			ot.Rows = t.Rows[:pageRows]
			ot.Shown = s.T(r, "runs.outShown", pageRows)
		}
		tables = append(tables, ot)
	}
	data["Outputs"] = tables
	if js := runs.Rest(out.JSON, ts); js != "" {
		if rs := []rune(js); len(rs) > 20000 {
			js = string(rs[:20000]) + "…"
		}
		data["OutputsJSON"] = js
	}
	if out.Truncated {
		data["OutputsNote"] = s.T(r, "runs.outTruncated", fmt.Sprintf("%d MB", runs.MaxOutputBytes>>20))
	}
	return nil
}

// runExport is GET /runs/{id}/export?output=NAME&format=csv|xlsx: a table
// of the run's kept outputs as a file to download, named after the flow,
// the output and the run.
func runExport(s *Server, w http.ResponseWriter, r *http.Request) {
	st, run, ok := s.oneRun(w, r)
	if !ok {
		return
	}
	format, name := r.URL.Query().Get("format"), r.URL.Query().Get("output")
	if format != "csv" && format != "xlsx" {
		s.RenderError(w, r, http.StatusBadRequest, "runs.badFormat", format)
		return
	}
	out, err := st.Outputs(run.ID)
	if err != nil {
		s.RenderError(w, r, http.StatusInternalServerError, "runs.store", err.Error())
		return
	}
	var ts []runs.Table
	if out != nil {
		if ts, err = runs.Tables(out.JSON); err != nil {
			s.RenderError(w, r, http.StatusInternalServerError, "runs.store", err.Error())
			return
		}
	}
	var t *runs.Table
	for i := range ts {
		if ts[i].Name == name {
			t = &ts[i]
		}
	}
	if t == nil {
		s.RenderError(w, r, http.StatusNotFound, "runs.noTable", run.ID, name)
		return
	}
	b, err := export.Bytes(*t, format)
	if err != nil {
		s.RenderError(w, r, http.StatusInternalServerError, "runs.store", err.Error())
		return
	}
	base := run.Flow
	if name != "" {
		base += "-" + name
	}
	file := base + "-" + run.ID + "." + format
	w.Header().Set("Content-Type", export.ContentType(format))
	w.Header().Set("Content-Disposition", "attachment; filename=\""+asciiName(file)+"\"; filename*=UTF-8''"+url.PathEscape(file))
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	_, _ = w.Write(b)
}

// asciiName is name with every character outside printable ASCII (and ")
// as _, for the plain filename= of Content-Disposition.
func asciiName(name string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return '_'
		}
		return r
	}, name)
}
