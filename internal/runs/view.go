package runs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/internal/columns"
	"github.com/rpa-dev/rpa/internal/msg"
)

// ParseSince reads `rpa runs --since`: a duration back from now (24h,
// 30m, or whole days 7d) or a local date (2006-01-02, 2006-01-02T15:04,
// RFC 3339). Anything else is an error naming the value.
func ParseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	if strings.HasSuffix(s, "d") {
		if n, err := strconv.Atoi(strings.TrimSuffix(s, "d")); err == nil && n > 0 {
			return now.AddDate(0, 0, -n), nil
		}
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q: want a duration (24h, 7d) or a date (2026-12-01)", s)
}

// CallerText is c in a table cell: "mcp Claude @laptop-1" (kind, client
// name, @device when there is one).
func CallerText(c Caller) string {
	s := c.Kind
	if c.Client != "" {
		s += " " + c.Client
	}
	if c.Device != "" {
		s += " @" + c.Device
	}
	return s
}

// CallerTextIn is CallerText with the caller's kind in lang ("zh" or "en",
// package msg): "命令行", "计划任务 daily"; the client's and device's names
// stay as they are.
func CallerTextIn(lang string, c Caller) string {
	if _, ok := msg.Lookup("caller." + c.Kind); ok {
		c.Kind = msg.T(lang, "caller."+c.Kind)
	}
	return CallerText(c)
}

// RunCallerTextIn is RunCallerText with the caller's kind in lang (CallerTextIn).
func RunCallerTextIn(lang string, r *Run) string {
	s := CallerTextIn(lang, r.Caller)
	if r.Schedule != "" {
		s += " " + r.Schedule
	}
	return s
}

func init() {
	msg.Register(map[string]msg.Text{
		"caller.cli":      {En: "cli", Zh: "命令行"},
		"caller.mcp":      {En: "mcp", Zh: "MCP"},
		"caller.link":     {En: "link", Zh: "远程连接"},
		"caller.gateway":  {En: "gateway", Zh: "网关"},
		"caller.schedule": {En: "schedule", Zh: "计划任务"},
		// The error kinds (core.Kind): English keeps the machine's word.
		"errkind.timeout":       {En: "timeout", Zh: "超时"},
		"errkind.not_found":     {En: "not_found", Zh: "找不到元素"},
		"errkind.not_visible":   {En: "not_visible", Zh: "元素不可见"},
		"errkind.covered":       {En: "covered", Zh: "元素被遮挡"},
		"errkind.disabled":      {En: "disabled", Zh: "元素已禁用"},
		"errkind.navigation":    {En: "navigation", Zh: "页面跳转失败"},
		"errkind.browser":       {En: "browser", Zh: "浏览器出错"},
		"errkind.assertion":     {En: "assertion", Zh: "断言不成立"},
		"errkind.fail":          {En: "fail", Zh: "流程报错"},
		"errkind.expression":    {En: "expression", Zh: "表达式出错"},
		"errkind.hitl_timeout":  {En: "hitl_timeout", Zh: "等待人工回答超时"},
		"errkind.hitl_declined": {En: "hitl_declined", Zh: "人工拒绝回答"},
		"errkind.exec_refused":  {En: "exec_refused", Zh: "命令被拒绝执行"},
		"errkind.cancelled":     {En: "cancelled", Zh: "已取消"},
		"errkind.busy":          {En: "busy", Zh: "浏览器配置正忙"},
	})
}

// KindText is an error kind (core.Kind: "not_found") for a person reading
// lang: English keeps the kind, Chinese says it in words ("找不到元素"); a
// kind the catalog does not know comes back as it is.
func KindText(lang, kind string) string {
	if _, ok := msg.Lookup("errkind." + kind); ok {
		return msg.T(lang, "errkind."+kind)
	}
	return kind
}

// RunCallerText is CallerText of r's caller, with the schedule's name for
// a scheduled run ("schedule daily").
func RunCallerText(r *Run) string {
	s := CallerText(r.Caller)
	if r.Schedule != "" {
		s += " " + r.Schedule
	}
	return s
}

// ErrorActionShown is r.ErrorAction where a line naming the error should
// name it, "" when r.ErrorMessage already starts with it ("wait: timed out
// ..."), so the action is said once.
func ErrorActionShown(r *Run) string {
	if r.ErrorAction == "" || strings.HasPrefix(r.ErrorMessage, r.ErrorAction+":") || strings.HasPrefix(r.ErrorMessage, r.ErrorAction+" ") {
		return ""
	}
	return r.ErrorAction
}

// WriteJSON writes v as indented JSON (HTML characters not escaped) and a
// newline: the --json output of `rpa runs`.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// RunSteps is one run with its steps: the JSON of `rpa runs show --json`
// (the run's fields and "steps").
type RunSteps struct {
	*Run
	Steps []Step `json:"steps"`
	// Outputs are the outputs kept with the run (absent when none were);
	// OutputsTruncated says only their first rows were kept.
	Outputs          json.RawMessage `json:"outputs,omitempty"`
	OutputsTruncated bool            `json:"outputsTruncated,omitempty"`
}

// ShowRows is how many rows of a table `rpa runs show` prints.
const ShowRows = 20

// WriteOutputs writes the outputs kept with run id as `rpa runs show`
// prints them after the run: each table (Tables) with its columns in
// order, aligned by display width (package columns), its first ShowRows
// rows (cells cut to 40 columns, on one line) and how to export it, then the JSON of
// what else they hold (Rest). Nothing when out is nil.
func WriteOutputs(w io.Writer, id string, out *Outputs) error {
	if out == nil {
		return nil
	}
	ts, err := Tables(out.JSON)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\noutputs")
	if out.Truncated {
		fmt.Fprintf(w, "(%d bytes, over the %d kept with a run: only the first rows were kept)\n", out.Bytes, MaxOutputBytes)
	}
	for _, t := range ts {
		name := t.Name
		if name == "" {
			name = "outputs"
		}
		fmt.Fprintf(w, "\n%s: %d rows\n", name, len(t.Rows))
		tw := columns.NewWriter(w, 0, 2)
		fmt.Fprintln(tw, strings.Join(t.Columns, "\t"))
		for i, r := range t.Rows {
			if i == ShowRows {
				break
			}
			cells := make([]string, len(r))
			for j, c := range r {
				cells[j] = columns.Clip(oneLine.Replace(c), 40)
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		tw.Flush()
		flag := ""
		if t.Name != "" && len(ts) > 1 {
			flag = " --output " + t.Name
		}
		if len(t.Rows) > ShowRows {
			fmt.Fprintf(w, "... %d more rows; ", len(t.Rows)-ShowRows)
		}
		fmt.Fprintf(w, "export: rpa runs export %s%s -o %s.xlsx\n", id, flag, exportBase(name))
	}
	if js := Rest(out.JSON, ts); js != "" {
		fmt.Fprintf(w, "\n%s\n", clip(js, 2000))
	}
	return nil
}

// exportBase is name as a file name (letters, digits, - and _ kept).
func exportBase(name string) string {
	b := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127 {
			return r
		}
		return '_'
	}, name)
	return b
}

// WriteList writes l as the table of `rpa runs`: run, flow, status, local
// start time, duration, actions, caller, and the error kind with its line.
func WriteList(w io.Writer, l []*Run) error {
	tw := columns.NewWriter(w, 0, 2)
	fmt.Fprintln(tw, "RUN\tFLOW\tSTATUS\tSTARTED\tDURATION\tACTIONS\tCALLER\tERROR")
	for _, r := range l {
		errs := ""
		if r.ErrorKind != "" {
			errs = r.ErrorKind
			if r.ErrorLine > 0 {
				errs += " at line " + strconv.Itoa(r.ErrorLine)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", r.ID, r.Flow, r.Status, r.Start.Local().Format("2006-01-02 15:04:05"),
			(time.Duration(r.DurationMs) * time.Millisecond).String(), r.Actions, RunCallerText(r), errs)
	}
	return tw.Flush()
}

// WriteRun writes one run as `rpa runs show` prints it: a header (ID,
// flow, status, start, duration, caller, profile, resumed run, flow file,
// masked arguments), the table of its steps (aligned by display width,
// Chinese characters two columns; targets and selectors cut to 40
// columns; a fallback selector numbered from 1), the error, and
// the run's folder dir.
func WriteRun(w io.Writer, r *Run, steps []Step, dir string) error {
	fmt.Fprintf(w, "run %s  %s  %s\n", r.ID, r.Flow, strings.ToUpper(r.Status))
	fmt.Fprintf(w, "started %s, %s, caller %s", r.Start.Local().Format("2006-01-02 15:04:05"),
		time.Duration(r.DurationMs)*time.Millisecond, RunCallerText(r))
	if r.Profile != "" {
		fmt.Fprintf(w, ", profile %s", r.Profile)
	}
	if r.RetryOf != "" {
		fmt.Fprintf(w, ", retries %s", r.RetryOf)
	}
	if r.ResumedFrom != "" {
		fmt.Fprintf(w, ", resumes %s", r.ResumedFrom)
	}
	fmt.Fprintln(w)
	if r.FlowPath != "" {
		fmt.Fprintf(w, "flow file %s\n", r.FlowPath)
	}
	if len(r.Args) > 0 {
		b, _ := json.Marshal(r.Args)
		fmt.Fprintf(w, "arguments %s\n", b)
	}
	tw := columns.NewWriter(w, 0, 2)
	fmt.Fprintln(tw, "\n#\tLINE\tACTION\tTARGET\tSELECTOR\tSTATUS\tDURATION")
	for _, s := range steps {
		sel := s.Selector
		if s.SelectorIndex > 0 {
			sel += fmt.Sprintf(" (fallback %d)", s.SelectorIndex+1)
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%d ms\n", s.Index, s.Line, s.Action, columns.Clip(oneLine.Replace(s.Target), 40), columns.Clip(sel, 40), s.Status, s.DurationMs)
	}
	tw.Flush()
	if r.ErrorKind != "" {
		fmt.Fprintf(w, "\n%s", r.ErrorKind)
		if r.ErrorLine > 0 {
			fmt.Fprintf(w, " at line %d", r.ErrorLine)
		}
		if a := ErrorActionShown(r); a != "" {
			fmt.Fprintf(w, " (%s)", a)
		}
		fmt.Fprintf(w, ": %s\n", r.ErrorMessage)
	}
	_, err := fmt.Fprintf(w, "\nfolder %s\n", dir)
	return err
}

// oneLine keeps a table's cell on its line and in its column.
var oneLine = strings.NewReplacer("\t", " ", "\r\n", " ", "\n", " ", "\r", " ")

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// ResumeRefusal is the answer of `rpa run --resume ID`: one process runs
// one flow, so another process's run cannot be resumed (the variables it
// bound are gone, and secrets are never stored). The error names the run
// (flow, status, failed line) when st holds it, says so when st does not;
// st may be nil (the store could not be opened).
func ResumeRefusal(st *Store, id string) error {
	what := "run " + id
	if st != nil {
		if r, err := st.Get(id); err == nil {
			what = fmt.Sprintf("run %s (%s, %s at line %d)", r.ID, r.Flow, r.Status, r.ErrorLine)
		} else if errors.Is(err, ErrNotFound) {
			return fmt.Errorf("--resume: no run %s in %s", id, st.Dir())
		}
	}
	return fmt.Errorf("--resume: %s cannot be resumed here: the variables it had bound lived in the process that ran it "+
		"and are gone (secrets are never stored). Resume works over MCP while the server still holds the run "+
		"(workflow tool arguments resumeRunId and resumeFrom); here, run the flow again", what)
}

// ResumeRefusalIn is ResumeRefusal with the store under home (nil when it
// cannot be opened).
func ResumeRefusalIn(home, id string) error {
	st, err := OpenHome(home, 0, 0)
	if err != nil {
		return ResumeRefusal(nil, id)
	}
	defer st.Close()
	return ResumeRefusal(st, id)
}
