package ui

import (
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"net/http"
	"regexp"
	"strings"

	"github.com/rpa-dev/rpa/interp"
)

func init() {
	RegisterText(map[string]Text{
		"live.title":        {En: "Run of %s", Zh: "%s 的运行"},
		"live.notfound":     {En: "The console does not know this run (it keeps the last runs it started; the Runs page has them all).", Zh: "控制台不知道这次运行（它只保留最近启动的运行；“运行记录”页面有全部记录）。"},
		"live.profile":      {En: "Profile: %s", Zh: "配置：%s"},
		"live.steps":        {En: "Steps", Zh: "步骤"},
		"live.waiting":      {En: "Starting…", Zh: "正在启动…"},
		"live.stop":         {En: "Stop the run", Zh: "停止运行"},
		"live.status":       {En: "Status", Zh: "状态"},
		"st.running":        {En: "running", Zh: "运行中"},
		"st.ok":             {En: "ok", Zh: "成功"},
		"st.failed":         {En: "failed", Zh: "失败"},
		"st.skipped":        {En: "skipped", Zh: "跳过"},
		"st.cancelled":      {En: "cancelled", Zh: "已取消"},
		"st.error":          {En: "not run", Zh: "未运行"},
		"st.healed":         {En: "healed", Zh: "已修复"},
		"live.outcome":      {En: "Run %s in %s", Zh: "运行%s，用时 %s"},
		"live.outputs":      {En: "Outputs", Zh: "输出"},
		"live.nooutputs":    {En: "The flow returned nothing.", Zh: "流程没有返回内容。"},
		"live.log":          {En: "Run log", Zh: "运行日志"},
		"live.error":        {En: "Error", Zh: "错误"},
		"live.packet":       {En: "Failure packet", Zh: "失败报告包"},
		"live.shot":         {En: "Screenshot at the failure", Zh: "失败时的截图"},
		"live.runid":        {En: "Recorded as run %s.", Zh: "已记录为运行 %s。"},
		"live.notstarted":   {En: "The run could not start: %s", Zh: "运行无法开始：%s"},
		"live.profilebusy":  {En: "The browser profile %q is being used by another program (%s). Pick another profile in the Profile picker of the Run form, or stop that program on the Status page.", Zh: "浏览器配置 %q 正被另一个程序（%s）使用。请在运行表单的“配置”选择器中选另一个配置，或在“状态”页面停止那个程序。"},
		"live.rerun":        {En: "Run again", Zh: "再次运行"},
		"live.rows":         {En: "%d rows", Zh: "%d 行"},
		"live.rows1":        {En: "1 row", Zh: "1 行"},
		"live.profile_flow": {En: "the flow's", Zh: "流程指定的"},
		"live.table":        {En: "Table %s", Zh: "表格 %s"},
		"live.col.step":     {En: "Step", Zh: "步骤"},
		"live.col.action":   {En: "Action", Zh: "动作"},
		"live.col.line":     {En: "Line", Zh: "行"},
		"live.col.status":   {En: "Status", Zh: "状态"},
		"live.col.time":     {En: "Time", Zh: "用时"},
	})
	Handle("GET /live/{id}", livePage)
	Handle("GET /live/{id}/events", sseEvents)
	Handle("GET /live/{id}/shot", liveShot)
	Handle("POST /live/{id}/stop", liveStop)
}

// liveStep is one row of the live page's step list.
type liveStep struct {
	Index      int
	Action     string
	Target     string
	Line       int
	Status     string
	DurationMs int64
	Summary    string
}

// liveData is the live page's data.
type liveData struct {
	Run     *LiveRun
	Steps   []liveStep
	LastSeq int
	Out     *RunOutcome
	Outputs template.HTML
	Packet  template.HTML
	Error   string
	// Busy is set when the run could not start because another process holds its profile.
	Busy *profileBusy
}

// profileBusy is a profile held by another process (profiles.InUseError's text).
type profileBusy struct {
	Profile, Holder string
}

// busyProfile matches drivers' "profile X is in use by rpa (pid N)" / "... by another rpa
// process" in a call's error.
var busyProfile = regexp.MustCompile(`profile (\S+) is in use by (rpa \(pid \d+\)|another rpa process)`)

// profileBusyOf finds a profile held by another process in a call error.
func profileBusyOf(msg string) *profileBusy {
	m := busyProfile.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	return &profileBusy{Profile: strings.Trim(m[1], `"`), Holder: m[2]}
}

// stepsOf folds the run's events into one row per action.
func stepsOf(evs []LiveEvent) []liveStep {
	var out []liveStep
	at := map[int]int{}
	for _, ev := range evs {
		if ev.Index == 0 || (ev.Kind != interp.EventStarted && ev.Kind != interp.EventFinished) {
			continue
		}
		i, ok := at[ev.Index]
		if !ok {
			out = append(out, liveStep{Index: ev.Index, Action: ev.Action, Target: ev.Target, Line: ev.Line, Status: "running"})
			i = len(out) - 1
			at[ev.Index] = i
		}
		if ev.Kind == interp.EventFinished {
			out[i].Status, out[i].DurationMs, out[i].Summary = ev.Status, ev.DurationMs, ev.Summary
		}
	}
	return out
}

func livePage(s *Server, w http.ResponseWriter, r *http.Request) {
	lr, ok := s.LiveRun(r.PathValue("id"))
	if !ok {
		s.RenderError(w, r, http.StatusNotFound, "live.notfound")
		return
	}
	evs, _, _ := lr.Events(0)
	d := liveData{Run: lr, Steps: stepsOf(evs), Out: lr.Outcome()}
	if len(evs) > 0 {
		d.LastSeq = evs[len(evs)-1].Seq
	}
	lg := s.Lang(r)
	if d.Out != nil {
		d.Outputs = renderValue(lg, d.Out.Outputs, "outputs", 0)
		if d.Out.Failure != nil {
			d.Packet = renderValue(lg, d.Out.Failure, "failure", 0)
		}
		if d.Out.Error != nil {
			d.Error = d.Out.Error.Error()
		}
		if d.Out.CallError != "" {
			d.Busy = profileBusyOf(d.Out.CallError)
		} else if d.Out.Error != nil {
			d.Busy = profileBusyOf(d.Error)
		}
	}
	s.RenderTitle(w, r, "flows_live", s.T(r, "live.title", lr.Tool), d)
}

func liveShot(s *Server, w http.ResponseWriter, r *http.Request) {
	lr, ok := s.LiveRun(r.PathValue("id"))
	var out *RunOutcome
	if ok {
		out = lr.Outcome()
	}
	if out == nil || len(out.Image) == 0 {
		http.NotFound(w, r)
		return
	}
	t := out.ImageType
	if t != "image/png" && t != "image/jpeg" {
		t = http.DetectContentType(out.Image)
	}
	w.Header().Set("Content-Type", t)
	w.Write(out.Image)
}

func liveStop(s *Server, w http.ResponseWriter, r *http.Request) {
	lr, ok := s.LiveRun(r.PathValue("id"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	lr.Stop()
	http.Redirect(w, r, lr.URL(), http.StatusSeeOther)
}

// renderValue renders a JSON value (ordered) as HTML: a list of objects as a table (columns in
// the first row's key order, then new keys as they appear), an object as a definition list,
// a list of scalars as a list, a scalar as text. name labels tables.
func renderValue(lg string, v any, name string, depth int) template.HTML {
	var b strings.Builder
	writeValue(&b, lg, v, name, depth)
	return template.HTML(b.String())
}

func writeValue(b *strings.Builder, lg string, v any, name string, depth int) {
	esc := html.EscapeString
	if depth > 6 {
		raw, _ := json.Marshal(plain(v))
		b.WriteString("<code>" + esc(string(raw)) + "</code>")
		return
	}
	switch v := v.(type) {
	case nil:
		b.WriteString(`<span class="muted">—</span>`)
	case *jsonObject:
		b.WriteString("<dl class=\"value\">")
		for _, k := range v.Keys {
			b.WriteString("<dt>" + esc(k) + "</dt><dd>")
			writeValue(b, lg, v.Vals[k], k, depth+1)
			b.WriteString("</dd>")
		}
		b.WriteString("</dl>")
	case []any:
		if cols, ok := tableColumns(v); ok {
			rows := Translate(lg, "live.rows", len(v))
			if len(v) == 1 {
				rows = Translate(lg, "live.rows1")
			}
			fmt.Fprintf(b, `<table class="output" aria-label="%s"><caption class="muted">%s</caption><thead><tr>`,
				esc(Translate(lg, "live.table", name)), esc(rows))
			for _, c := range cols {
				b.WriteString(`<th scope="col">` + esc(c) + "</th>")
			}
			b.WriteString("</tr></thead><tbody>")
			for _, row := range v {
				o := row.(*jsonObject)
				b.WriteString("<tr>")
				for _, c := range cols {
					b.WriteString("<td>")
					if cell, has := o.Vals[c]; has {
						writeValue(b, lg, cell, c, depth+1)
					}
					b.WriteString("</td>")
				}
				b.WriteString("</tr>")
			}
			b.WriteString("</tbody></table>")
			return
		}
		b.WriteString("<ol class=\"value\">")
		for _, x := range v {
			b.WriteString("<li>")
			writeValue(b, lg, x, name, depth+1)
			b.WriteString("</li>")
		}
		b.WriteString("</ol>")
	case string:
		if strings.Contains(v, "\n") {
			b.WriteString(`<pre class="value">` + esc(v) + "</pre>")
		} else {
			b.WriteString(esc(v))
		}
	default:
		b.WriteString(esc(formText(v)))
	}
}

// tableColumns reports whether a list is a table (every item an object) and its columns.
func tableColumns(v []any) ([]string, bool) {
	if len(v) == 0 {
		return nil, false
	}
	var cols []string
	seen := map[string]bool{}
	for _, x := range v {
		o, ok := x.(*jsonObject)
		if !ok {
			return nil, false
		}
		for _, k := range o.Keys {
			if !seen[k] {
				seen[k] = true
				cols = append(cols, k)
			}
		}
	}
	return cols, true
}
