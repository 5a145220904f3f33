package ui

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/msg"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/report"
)

// The Runs page: the run history of $RPA_HOME/runs (package runs; the same
// records `rpa runs` lists), filterable by flow and status; each run with its
// steps, its report (runs/report's report.html, written on first view), Rerun
// (the Run form with the same arguments; secret ones are typed again) and the
// healing proposals of its flow (runs_heal.go).

func init() {
	RegisterPage(Page{ID: "runs", Path: "/runs", Order: 30, Title: "nav.runs"})
	RegisterText(map[string]Text{
		"nav.runs":             {En: "Runs", Zh: "运行记录"},
		"runs.filter":          {En: "Filter runs", Zh: "筛选运行记录"},
		"runs.flow":            {En: "Flow", Zh: "流程"},
		"runs.allFlows":        {En: "All flows", Zh: "全部流程"},
		"runs.status":          {En: "Status", Zh: "状态"},
		"runs.anyStatus":       {En: "Any status", Zh: "任意状态"},
		"runs.apply":           {En: "Show", Zh: "显示"},
		"runs.none":            {En: "No run recorded yet matches.", Zh: "没有符合条件的运行记录。"},
		"runs.table":           {En: "Recorded runs, newest first", Zh: "运行记录（最新在前）"},
		"runs.run":             {En: "Run", Zh: "运行"},
		"runs.started":         {En: "Started", Zh: "开始时间"},
		"runs.duration":        {En: "Duration", Zh: "耗时"},
		"runs.actions":         {En: "Actions", Zh: "动作数"},
		"runs.caller":          {En: "Caller", Zh: "调用方"},
		"runs.error":           {En: "Error", Zh: "错误"},
		"runs.older":           {En: "Older runs", Zh: "更早的运行"},
		"runs.st.ok":           {En: "ok", Zh: "成功"},
		"runs.st.failed":       {En: "failed", Zh: "失败"},
		"runs.st.cancelled":    {En: "cancelled", Zh: "已取消"},
		"runs.st.interrupted":  {En: "interrupted", Zh: "已中断"},
		"runs.st.running":      {En: "running", Zh: "运行中"},
		"runs.st.skipped":      {En: "skipped", Zh: "已跳过"},
		"runs.store":           {En: "The run store cannot be opened: %s", Zh: "无法打开运行记录库：%s"},
		"runs.notfound":        {En: "There is no run %s.", Zh: "没有运行记录 %s。"},
		"runs.detail":          {En: "Run %s", Zh: "运行 %s"},
		"runs.summary":         {En: "Summary", Zh: "概要"},
		"runs.profile":         {En: "Browser profile", Zh: "浏览器配置"},
		"runs.file":            {En: "Flow file", Zh: "流程文件"},
		"runs.resumed":         {En: "Resumed from", Zh: "续跑自"},
		"runs.args":            {En: "Arguments", Zh: "参数"},
		"runs.noArgs":          {En: "No arguments.", Zh: "没有参数。"},
		"runs.argName":         {En: "Name", Zh: "名称"},
		"runs.argValue":        {En: "Value (secrets hidden)", Zh: "值（密文已隐藏）"},
		"runs.steps":           {En: "Steps", Zh: "步骤"},
		"runs.noSteps":         {En: "No step was recorded.", Zh: "没有记录到步骤。"},
		"runs.step":            {En: "#", Zh: "序号"},
		"runs.action":          {En: "Action", Zh: "动作"},
		"runs.line":            {En: "Line", Zh: "行"},
		"runs.target":          {En: "Target", Zh: "目标"},
		"runs.selector":        {En: "Selector used", Zh: "使用的选择器"},
		"runs.report":          {En: "Open the report", Zh: "打开报告"},
		"runs.rerun":           {En: "Rerun with the same arguments", Zh: "用相同参数重新运行"},
		"runs.rerunHint":       {En: "Secret arguments are never stored: the form asks for them again.", Zh: "密文参数不会保存：表单会再次要求输入。"},
		"runs.heal":            {En: "Healing proposals for %s", Zh: "%s 的自愈建议"},
		"runs.noFile":          {En: "The flow %s is not in this console's folder: no healing proposals here.", Zh: "流程 %s 不在本控制台的文件夹中：此处没有自愈建议。"},
		"runs.errorLine":       {En: "at line %d", Zh: "第 %d 行"},
		"runs.reportFailed":    {En: "The report could not be written: %s", Zh: "无法生成报告：%s"},
		"runs.badID":           {En: "Not a run ID: %s", Zh: "不是运行记录编号：%s"},
		"runs.count":           {En: "%d runs shown", Zh: "显示 %d 条运行记录"},
		"runs.back":            {En: "All runs", Zh: "全部运行记录"},
		"runs.selectorHealed":  {En: "(healed)", Zh: "（已自愈）"},
		"runs.selectorFallbck": {En: "(selector %d of the list)", Zh: "（列表中第 %d 个选择器）"},
		"runs.outputs":         {En: "Outputs", Zh: "输出"},
		"runs.outTable":        {En: "%s: %d rows", Zh: "%s：%d 行"},
		"runs.outShown":        {En: "The first %d rows are shown; the export holds them all.", Zh: "仅显示前 %d 行；导出文件包含全部行。"},
		"runs.outTruncated":    {En: "The outputs were larger than what a run keeps (%s): only their first rows were kept.", Zh: "输出超过了每次运行保存的上限（%s）：只保存了前面的行。"},
		"runs.exportXLSX":      {En: "Export %s as Excel (XLSX)", Zh: "将 %s 导出为 Excel（XLSX）"},
		"runs.exportCSV":       {En: "Export %s as CSV", Zh: "将 %s 导出为 CSV"},
		"runs.outValue":        {En: "Outputs as JSON", Zh: "输出（JSON）"},
		"runs.noTable":         {En: "The outputs of run %s hold no table %s.", Zh: "运行 %s 的输出中没有表格 %s。"},
		"runs.badFormat":       {En: "Unknown export format %s: use csv or xlsx.", Zh: "未知的导出格式 %s：请使用 csv 或 xlsx。"},
	})
	Handle("GET /runs", runsPage)
	Handle("GET /runs/{id}", runPage)
	Handle("GET /runs/{id}/report", runReport)
	Handle("GET /runs/{id}/export", runExport)
}

type runsKey struct{}

type runStore struct {
	st  *runs.Store
	err error
}

// runStore is $RPA_HOME/runs, opened on first use and kept (an error is
// kept too and shown by the pages).
func (s *Server) runStore() (*runs.Store, error) {
	rs := s.Value(runsKey{}, func() any {
		st, err := runs.OpenHome(s.home(), 0, 0)
		return &runStore{st: st, err: err}
	}).(*runStore)
	return rs.st, rs.err
}

// runStatuses are the statuses the filter offers, in its order.
var runStatuses = []string{runs.StatusOK, runs.StatusFailed, runs.StatusCancelled, runs.StatusInterrupted, runs.StatusRunning}

// runRow is one run as the list and the detail show it.
type runRow struct {
	*runs.Run
	StatusText string
	Started    string // local time
	Duration   string
	CallerText string
	ErrorText  template.HTML
}

func (s *Server) runRow(r *http.Request, run *runs.Run) runRow {
	row := runRow{Run: run, StatusText: s.T(r, "runs.st."+run.Status), Started: run.Start.Local().Format("2006-01-02 15:04:05"),
		CallerText: runs.RunCallerTextIn(s.Lang(r), run)}
	if run.Status != runs.StatusRunning {
		row.Duration = (time.Duration(run.DurationMs) * time.Millisecond).String()
	}
	row.ErrorText = runErrorText(s.Lang(r), run.ErrorKind, run.ErrorLine, run.ErrorAction, run.ErrorMessage)
	return row
}

// runErrorText is a run's error in one line: "not_found at line 7 (click): no element matches",
// leaving out the parts the run store does not have (no empty parentheses, no dangling colon);
// "" when there is no error. In Chinese the kind is said in words (runs.KindText); the action and
// the engine's message are code and data, marked translate="no": the message is the engine's
// English (said in Chinese where the catalog can, msg.Localize, and then not marked), or the
// flow's own words for `fail`.
func runErrorText(lg, kind string, line int, action, message string) template.HTML {
	if kind == "" && message == "" {
		return ""
	}
	zh := lg == "zh"
	esc := template.HTMLEscapeString
	raw := func(s string) string { return `<span translate="no">` + esc(s) + `</span>` }
	var head []string
	if kind != "" {
		head = append(head, esc(runs.KindText(lg, kind)))
	}
	if line > 0 {
		head = append(head, esc(Translate(lg, "runs.errorLine", line)))
	}
	h := strings.Join(head, map[bool]string{true: "，", false: " "}[zh])
	if action != "" {
		if zh {
			h += "（" + raw(action) + "）"
		} else if h != "" {
			h += " (" + raw(action) + ")"
		} else {
			h = raw(action)
		}
	}
	m := raw(message)
	if loc := msg.Localize(lg, message); loc != message {
		m = esc(loc)
	}
	switch {
	case h == "":
		h = m
	case message == "":
	case zh:
		h += "：" + m
	default:
		h += ": " + m
	}
	return template.HTML(h)
}

// runsPageLimit is how many runs a page lists.
const runsPageLimit = 100

// runsPage lists the runs, newest first, filtered by ?flow= and ?status=,
// paged with ?before=ID.
func runsPage(s *Server, w http.ResponseWriter, r *http.Request) {
	st, err := s.runStore()
	if err != nil {
		s.RenderError(w, r, http.StatusInternalServerError, "runs.store", err.Error())
		return
	}
	q := r.URL.Query()
	flow, status, before := q.Get("flow"), q.Get("status"), q.Get("before")
	if status != "" && !slices.Contains(runStatuses, status) {
		status = ""
	}
	if before != "" && runs.ValidID(before) != nil {
		before = ""
	}
	f := runs.Filter{Flow: flow, Before: before, Limit: runsPageLimit}
	if status != "" {
		f.Failed = status != runs.StatusOK && status != runs.StatusRunning
		f.Limit = 1000 // the status is filtered here
	}
	l, err := st.List(f)
	if err != nil {
		s.RenderError(w, r, http.StatusInternalServerError, "runs.store", err.Error())
		return
	}
	var rows []runRow
	more := len(l) == f.Limit
	for _, run := range l {
		if status != "" && run.Status != status {
			continue
		}
		if len(rows) == runsPageLimit {
			more = true
			break
		}
		rows = append(rows, s.runRow(r, run))
	}
	// The flows to filter by: the folder's and those of the runs shown.
	flows := map[string]bool{}
	for _, fi := range s.FlowList() {
		if fi.Name != "" {
			flows[fi.Name] = true
		}
	}
	for _, row := range rows {
		flows[row.Flow] = true
	}
	if flow != "" {
		flows[flow] = true
	}
	names := make([]string, 0, len(flows))
	for n := range flows {
		names = append(names, n)
	}
	sort.Strings(names)
	type option struct {
		Value, Text string
		Selected    bool
	}
	var statusOpts []option
	for _, v := range runStatuses {
		statusOpts = append(statusOpts, option{Value: v, Text: s.T(r, "runs.st."+v), Selected: v == status})
	}
	var flowOpts []option
	for _, n := range names {
		flowOpts = append(flowOpts, option{Value: n, Text: n, Selected: n == flow})
	}
	data := map[string]any{"Runs": rows, "Flows": flowOpts, "Statuses": statusOpts, "Count": s.T(r, "runs.count", len(rows))}
	if flow != "" {
		if file := s.flowFileOf(&runs.Run{Flow: flow}); file != "" {
			data["Heal"] = "/heal/" + url.PathEscape(file)
			data["HealText"] = s.T(r, "runs.heal", flow)
		}
	}
	if more && len(rows) > 0 {
		v := url.Values{"before": {rows[len(rows)-1].ID}}
		if flow != "" {
			v.Set("flow", flow)
		}
		if status != "" {
			v.Set("status", status)
		}
		data["Older"] = "/runs?" + v.Encode()
	}
	s.Render(w, r, "runs", "nav.runs", data)
}

// argRow is one argument of a run.
type argRow struct{ Name, Value string }

// stepRow is one step of a run.
type stepRow struct {
	runs.Step
	StatusText string
	Duration   string
	Fallback   string
}

// runPage shows one run: its summary, arguments (as stored: secrets are
// "***"), steps and error, with the report, Rerun and healing links.
func runPage(s *Server, w http.ResponseWriter, r *http.Request) {
	st, run, ok := s.oneRun(w, r)
	if !ok {
		return
	}
	steps, err := st.Steps(run.ID)
	if err != nil {
		s.RenderError(w, r, http.StatusInternalServerError, "runs.store", err.Error())
		return
	}
	var args []argRow
	keys := make([]string, 0, len(run.Args))
	for k := range run.Args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, argRow{Name: k, Value: formText(run.Args[k])})
	}
	var srows []stepRow
	for _, sp := range steps {
		row := stepRow{Step: sp, StatusText: stepStatus(s, r, sp.Status), Duration: (time.Duration(sp.DurationMs) * time.Millisecond).String()}
		if sp.SelectorIndex > 0 {
			row.Fallback = s.T(r, "runs.selectorFallbck", sp.SelectorIndex+1)
		}
		srows = append(srows, row)
	}
	data := map[string]any{"Run": s.runRow(r, run), "Args": args, "Steps": srows,
		"Rerun": RunFormURL(run.Flow, rerunArgs(s, run))}
	if file := s.flowFileOf(run); file != "" {
		data["Heal"] = "/heal/" + url.PathEscape(file)
		data["HealText"] = s.T(r, "runs.heal", run.Flow)
	} else {
		data["NoFile"] = s.T(r, "runs.noFile", run.Flow)
	}
	if err := s.addOutputs(r, st, run.ID, data); err != nil {
		s.RenderError(w, r, http.StatusInternalServerError, "runs.store", err.Error())
		return
	}
	title := s.T(r, "runs.detail", run.ID)
	s.Render(w, r, "runs_detail", "nav.runs", map[string]any{"Title": title, "D": data})
}

// oneRun reads {id} and its run; on failure it has written the error page.
func (s *Server) oneRun(w http.ResponseWriter, r *http.Request) (*runs.Store, *runs.Run, bool) {
	id := r.PathValue("id")
	if err := runs.ValidID(id); err != nil {
		s.RenderError(w, r, http.StatusNotFound, "runs.badID", id)
		return nil, nil, false
	}
	st, err := s.runStore()
	if err != nil {
		s.RenderError(w, r, http.StatusInternalServerError, "runs.store", err.Error())
		return nil, nil, false
	}
	run, err := st.Get(id)
	if errors.Is(err, runs.ErrNotFound) {
		s.RenderError(w, r, http.StatusNotFound, "runs.notfound", id)
		return nil, nil, false
	}
	if err != nil {
		s.RenderError(w, r, http.StatusInternalServerError, "runs.store", err.Error())
		return nil, nil, false
	}
	return st, run, true
}

// rerunArgs are a run's arguments for the Run form: the stored ones minus
// every secret (a secret param of the flow, or a value stored masked) and
// every argument the record kept cut (over core.MaxMessage bytes, or
// holding such a text), which the form asks for again.
func rerunArgs(s *Server, run *runs.Run) map[string]any {
	secret := map[string]bool{}
	for _, fi := range s.FlowList() {
		if fi.Name == run.Flow {
			for _, p := range fi.Params {
				if p.Secret {
					secret[p.Name] = true
				}
			}
		}
	}
	out := map[string]any{}
	for k, v := range run.Args {
		if secret[k] || v == "***" || holdsCut(v) {
			continue
		}
		out[k] = v
	}
	return out
}

// holdsCut reports whether v is, or holds, a text the run record cut.
func holdsCut(v any) bool {
	switch x := v.(type) {
	case string:
		return core.IsCut(x)
	case []any:
		for _, e := range x {
			if holdsCut(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if holdsCut(e) {
				return true
			}
		}
	}
	return false
}

// flowFileOf is the file name, in the console's folder, of run's flow: the
// run's own file when it lies there, else the folder's flow of that name;
// "" when the folder has none.
func (s *Server) flowFileOf(run *runs.Run) string {
	var byName string
	for _, fi := range s.FlowList() {
		if run.FlowPath != "" && sameBase(fi.Path, run.FlowPath) && fi.Name == run.Flow {
			return fi.File
		}
		if fi.Name == run.Flow && byName == "" {
			byName = fi.File
		}
	}
	return byName
}

// reportCSP lets the report's own inline styles and data: images through
// (the report has no script), nothing else.
const reportCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// runReport serves the run's report in the request's language (its
// report.html is written first when the run's folder has none: `rpa runs
// report`).
func runReport(s *Server, w http.ResponseWriter, r *http.Request) {
	st, run, ok := s.oneRun(w, r)
	if !ok {
		return
	}
	if _, err := report.Ensure(st, run.ID); err != nil {
		s.RenderError(w, r, http.StatusInternalServerError, "runs.reportFailed", err.Error())
		return
	}
	// The run keeps its report.html; the person reads it in the console's language.
	var buf bytes.Buffer
	if err := report.Render(&buf, st, run.ID, report.Options{Lang: s.Lang(r)}); err != nil {
		s.RenderError(w, r, http.StatusInternalServerError, "runs.reportFailed", err.Error())
		return
	}
	b := buf.Bytes()
	w.Header().Set("Content-Security-Policy", reportCSP)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	_, _ = w.Write(b)
}

// stepStatus is a step's status in the request's language.
func stepStatus(s *Server, r *http.Request, st string) string {
	switch st {
	case "ok", "failed", "skipped", "cancelled":
		return s.T(r, "runs.st."+st)
	}
	return st
}
