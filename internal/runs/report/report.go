// Package report writes a run's report.html: one self-contained file a
// person opens in a browser (inline CSS, no script, images as data URIs):
// the flow, its arguments (secrets "***"), the status, a timeline of the
// steps with their durations as bars, per step the source line and the
// selector used (which fallback won), the screenshots, the error with its
// kind, the failure packet's reasons and hints, and the page's console and
// network errors. The file is size-capped: screenshots are downscaled to
// JPEG and the oldest step screenshots are left out first, which the
// report says.
//
// The report is built from the run store (package runs) and the run's
// folder (events.jsonl, screenshots/, failure.json), so it can be
// (re)written at any time after the run, e.g. by `rpa runs report`.
package report

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/internal/atomicfile"
	"github.com/rpa-dev/rpa/internal/msg"
	"github.com/rpa-dev/rpa/internal/runs"
)

func init() {
	msg.Register(map[string]msg.Text{
		"report.run":            {En: "run %s", Zh: "运行 %s"},
		"report.runLabel":       {En: "run", Zh: "运行"},
		"report.actions":        {En: "%d actions", Zh: "%d 个动作"},
		"report.failedActions":  {En: ", %d failed or skipped", Zh: "，%d 个失败或跳过"},
		"report.caller":         {En: "caller", Zh: "调用方"},
		"report.device":         {En: "device", Zh: "设备"},
		"report.profile":        {En: "profile", Zh: "浏览器配置"},
		"report.resumes":        {En: "resumes run", Zh: "续跑自运行"},
		"report.flowFile":       {En: "flow file", Zh: "流程文件"},
		"report.args":           {En: "Arguments", Zh: "参数"},
		"report.outputs":        {En: "Outputs", Zh: "输出"},
		"report.outputsCut":     {En: "The outputs were over the size kept with a run: only their first rows were kept.", Zh: "输出超过了每次运行保存的上限：只保存了前面的行。"},
		"report.rows":           {En: "%d rows", Zh: "%d 行"},
		"report.rowsShown":      {En: ", the first %d shown", Zh: "，显示前 %d 行"},
		"report.export":         {En: "Export:", Zh: "导出："},
		"report.error":          {En: "Error", Zh: "错误"},
		"report.in":             {En: "in", Zh: "于"},
		"report.atLine":         {En: "at line %d", Zh: "第 %d 行"},
		"report.selectors":      {En: "Selectors tried", Zh: "尝试过的选择器"},
		"report.selector":       {En: "selector", Zh: "选择器"},
		"report.why":            {En: "why it did not match", Zh: "未匹配的原因"},
		"report.page":           {En: "page", Zh: "页面"},
		"report.heal":           {En: "Healing", Zh: "自愈"},
		"report.healWhat":       {En: "What healing found", Zh: "自愈找到的元素"},
		"report.healSelectors":  {En: "Selectors it proposes", Zh: "建议的选择器"},
		"report.healScore":      {En: "Score", Zh: "匹配度"},
		"report.healHealed":     {En: "healed to", Zh: "已自愈为"},
		"report.healFound":      {En: "a candidate (not acted on)", Zh: "候选元素（未采用）"},
		"report.healApply":      {En: "To apply:", Zh: "应用方法："},
		"report.healApplyAfter": {En: "shows the patch of the flow (add --write to write it), or Apply on the console's healing page.", Zh: "会显示流程的补丁（加 --write 写入文件），也可以在控制台的自愈建议页面点击应用。"},
		"report.failPage":       {En: "The page at the failure", Zh: "失败时的页面"},
		"report.failShot":       {En: "screenshot at the failure", Zh: "失败时的截图"},
		"report.timeline":       {En: "Timeline", Zh: "时间线"},
		"report.line":           {En: "line", Zh: "行"},
		"report.action":         {En: "action", Zh: "动作"},
		"report.target":         {En: "target / selector", Zh: "目标 / 选择器"},
		"report.status":         {En: "status", Zh: "状态"},
		"report.duration":       {En: "duration", Zh: "耗时"},
		"report.matched":        {En: "matched", Zh: "匹配了"},
		"report.shot":           {En: "screenshot", Zh: "截图"},
		"report.shotAfter":      {En: "screenshot after step", Zh: "步骤之后的截图"},
		"report.noAction":       {En: "no action ran", Zh: "没有执行任何动作"},
		"report.dropped":        {En: "%d screenshot(s) left out to keep this report under %s MB (the oldest first); they are in the run's screenshots folder.", Zh: "为使报告小于 %[2]s MB，省略了 %[1]d 张截图（先省略最早的）；它们在运行的 screenshots 文件夹中。"},
		"report.shrunk":         {En: "The failure screenshot was downscaled to fit the size cap.", Zh: "失败截图已缩小以符合大小上限。"},
		"report.problems":       {En: "Console and network errors", Zh: "控制台和网络错误"},
		"report.kind":           {En: "kind", Zh: "类型"},
		"report.message":        {En: "message", Zh: "消息"},
		"report.snapshot":       {En: "Accessibility snapshot at the failure", Zh: "失败时的无障碍快照"},
		"report.log":            {En: "Run log", Zh: "运行日志"},
		"report.written":        {En: "Written by rpa at %s. Secrets are shown as ***.", Zh: "由 rpa 于 %s 生成。密文显示为 ***。"},
		"report.fallback":       {En: "fallback %d of the list won", Zh: "列表中的第 %d 个备选选择器生效"},
		"report.st.ok":          {En: "ok", Zh: "成功"},
		"report.st.failed":      {En: "failed", Zh: "失败"},
		"report.st.skipped":     {En: "skipped", Zh: "已跳过"},
		"report.st.cancelled":   {En: "cancelled", Zh: "已取消"},
		"report.st.interrupted": {En: "interrupted", Zh: "已中断"},
		"report.st.running":     {En: "running", Zh: "运行中"},
	})
}

// DefaultMaxBytes is the default size cap of report.html (3 MB).
const DefaultMaxBytes = 3 << 20

// FileName is the report's name inside a run's folder.
const FileName = "report.html"

// Options shape a report.
type Options struct {
	// MaxBytes caps the file (0: DefaultMaxBytes). The text part is never
	// cut; screenshots are shrunk and dropped to fit.
	MaxBytes int
	// Lang is the report's language, "zh" or "en" ("": msg.Env, the
	// process's LANG).
	Lang string
	// Source is the flow's source lines (nil: read Run.FlowPath, when it
	// still has the run's content hash... or any content: the report says
	// the line numbers are the run's).
	Source []string
}

// WriteFile renders the report of run id into its folder (temp file +
// rename) and returns the path.
func WriteFile(s *runs.Store, id string, o Options) (string, error) {
	var b bytes.Buffer
	if err := Render(&b, s, id, o); err != nil {
		return "", err
	}
	path := filepath.Join(s.RunDir(id), FileName)
	if err := atomicfile.Write(path, b.Bytes(), 0o600); err != nil {
		return "", err
	}
	return path, nil
}

// Packet is the part of failure.json the report shows (runs/record writes
// the file; the report reads it loosely so either side may grow).
type Packet struct {
	Line      int    `json:"line"`
	Action    string `json:"action"`
	Source    string `json:"source"`
	Selectors []struct {
		Selector string `json:"selector"`
		Reason   string `json:"reason"`
	} `json:"selectors"`
	URL      string   `json:"url"`
	Title    string   `json:"title"`
	Hints    []string `json:"hints"`
	Snapshot string   `json:"snapshot"`
	// Heal is what healing found at the failing step (PROTOCOL.md's
	// failure.heal): its candidates, best first.
	Heal *struct {
		Status     string `json:"status"`
		Candidates []struct {
			Score     float64  `json:"score"`
			Desc      string   `json:"desc"`
			Selectors []string `json:"selectors"`
		} `json:"candidates"`
	} `json:"heal"`
	// HealPatch is the change healing proposes for the failing line
	// (failure.heal_patch): the new selector list.
	HealPatch *struct {
		Line int      `json:"line"`
		New  []string `json:"new"`
	} `json:"heal_patch"`
}

// healRow is one line healing has something to say about: the element it
// healed to in this run, or the best candidate it found and did not act on.
type healRow struct {
	Line      int
	Healed    bool   // the step healed (else a suggestion)
	Desc      string // the candidate's role and name ("textbox 'Customer 客户'"), "" when unknown
	Selectors string // its selector list as the patch would write it
	Score     string // 0.59
}

type stepView struct {
	runs.Step
	Source   string
	BarPct   float64
	Fallback string // "fallback 2 of the list won"
	Shot     template.URL
	ShotNote string
	Failed   bool
}

type problemView struct {
	Type, Text, URL string
	Status          int
}

type view struct {
	Lang       string // "zh" or "en" (msg)
	StatusText string
	Run        *runs.Run
	Status     string
	Start      string
	Args       []kv
	Steps      []stepView
	Log        []string
	Problems   []problemView
	Packet     *Packet
	FailShot   template.URL
	Dropped    int
	Shrunk     bool
	MaxMB      string
	Generated  string
	// Outputs are the run's kept outputs: its tables (the first
	// ReportRows rows of each) and the JSON of what else they hold.
	Outputs          []outTable
	OutputsJSON      string
	OutputsTruncated bool
	// Heal are the lines healing found a candidate for (healRows), and
	// HealCmd the command that proposes their patch (`rpa heal FLOW`).
	Heal    []healRow
	HealCmd string
}

// ReportRows is how many rows of each output table the report shows.
const ReportRows = 200

type outTable struct {
	runs.Table
	Total  int    // its rows
	More   int    // rows left out
	Export string // the command that exports it
}

type kv struct{ K, V string }

// Render writes the report of run id to w.
func Render(w io.Writer, s *runs.Store, id string, o Options) error {
	run, err := s.Get(id)
	if err != nil {
		return err
	}
	steps, err := s.Steps(id)
	if err != nil {
		return err
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	src := o.Source
	if src == nil && run.FlowPath != "" {
		if b, err := os.ReadFile(run.FlowPath); err == nil {
			src = strings.Split(string(b), "\n")
		}
	}
	dir := s.RunDir(id)
	if o.Lang == "" {
		o.Lang = msg.Env()
	}
	v := &view{Lang: o.Lang, StatusText: msg.T(o.Lang, "report.st."+run.Status), Run: run, Status: run.Status, Start: run.Start.Format("2006-01-02 15:04:05 UTC"),
		MaxMB: strconv.FormatFloat(float64(o.MaxBytes)/(1<<20), 'f', -1, 64), Generated: time.Now().UTC().Format(time.RFC3339)}
	keys := make([]string, 0, len(run.Args))
	for k := range run.Args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b, _ := json.Marshal(run.Args[k])
		if s, ok := run.Args[k].(string); ok {
			b = []byte(s)
		}
		v.Args = append(v.Args, kv{k, string(b)})
	}
	var maxDur int64 = 1
	for _, st := range steps {
		maxDur = max(maxDur, st.DurationMs)
	}
	for _, st := range steps {
		sv := stepView{Step: st, Failed: st.Status == "failed", BarPct: float64(st.DurationMs) * 100 / float64(maxDur)}
		if st.Line >= 1 && st.Line <= len(src) {
			sv.Source = strings.TrimSpace(src[st.Line-1])
		}
		if st.SelectorIndex > 0 {
			sv.Fallback = msg.T(o.Lang, "report.fallback", st.SelectorIndex+1)
		}
		v.Steps = append(v.Steps, sv)
	}
	if err := v.addOutputs(s, id); err != nil {
		return err
	}
	v.Log, v.Problems = readEvents(filepath.Join(dir, "events.jsonl"))
	if b, err := os.ReadFile(filepath.Join(dir, "failure.json")); err == nil {
		var p Packet
		if json.Unmarshal(b, &p) == nil {
			v.Packet = &p
		}
	}
	v.Heal = healRows(s, run, v.Packet)
	if len(v.Heal) > 0 {
		flow := run.Flow
		if run.FlowPath != "" {
			flow = run.FlowPath
		}
		v.HealCmd = "rpa heal " + flow
	}
	// Text first: what is left of the cap goes to the screenshots.
	var text bytes.Buffer
	if err := page().Execute(&text, v); err != nil {
		return err
	}
	v.placeShots(dir, o.MaxBytes-text.Len()-1024)
	return page().Execute(w, v)
}

// healRows are the lines of run healing found a candidate for: the steps
// it healed (the run's marks) and the failing step's best candidate (the
// failure packet's heal, the selectors of its heal_patch when there is
// one), by line.
func healRows(s *runs.Store, run *runs.Run, p *Packet) []healRow {
	var out []healRow
	seen := map[int]bool{}
	if marks, err := s.Marks(run.Flow, 0); err == nil {
		for _, m := range marks {
			if m.Run != run.ID || m.Matched != runs.MatchedHealed || len(m.Healed) == 0 || seen[m.Line] {
				continue
			}
			seen[m.Line] = true
			out = append(out, healRow{Line: m.Line, Healed: true, Selectors: selectorList(m.Healed), Score: strconv.FormatFloat(m.Score, 'f', 2, 64)})
		}
	}
	if p != nil && p.Heal != nil && len(p.Heal.Candidates) > 0 && !seen[p.Line] {
		c := p.Heal.Candidates[0]
		sels := c.Selectors
		if p.HealPatch != nil && len(p.HealPatch.New) > 0 {
			sels = p.HealPatch.New
		}
		if len(sels) > 0 {
			out = append(out, healRow{Line: p.Line, Desc: c.Desc, Selectors: selectorList(sels), Score: strconv.FormatFloat(c.Score, 'f', 2, 64)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// selectorList is sels as a flow writes a list: ["#a", "text=B"].
func selectorList(sels []string) string {
	q := make([]string, len(sels))
	for i, x := range sels {
		q[i] = strconv.Quote(x)
	}
	if len(q) == 1 {
		return q[0]
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// T is key's text in the report's language (package msg).
func (v *view) T(key string, args ...any) string { return msg.T(v.Lang, key, args...) }

// Loc is an engine's message in the report's language (msg.Localize: said in Chinese where the
// catalog can, else as it is).
func (v *view) Loc(s string) string { return msg.Localize(v.Lang, s) }

// Kind is an error kind in the report's language (runs.KindText).
func (v *view) Kind(kind string) string { return runs.KindText(v.Lang, kind) }

// Caller is the run's caller in the report's language: its kind in words, the client's name
// as it is (runs.CallerTextIn without the device, which the report names apart).
func (v *view) Caller() string {
	return runs.CallerTextIn(v.Lang, runs.Caller{Kind: v.Run.Caller.Kind})
}

// addOutputs adds the outputs kept with run id.
func (v *view) addOutputs(s *runs.Store, id string) error {
	out, err := s.Outputs(id)
	if err != nil || out == nil {
		return err
	}
	ts, err := runs.Tables(out.JSON)
	if err != nil {
		return err
	}
	v.OutputsTruncated = out.Truncated
	for _, t := range ts {
		ot := outTable{Table: t, Total: len(t.Rows), Export: "rpa runs export " + id}
		if t.Name != "" && len(ts) > 1 {
			ot.Export += " --output " + t.Name
		}
		ot.Export += " -o FILE.xlsx"
		if len(t.Rows) > ReportRows {
			ot.More = len(t.Rows) - ReportRows
			ot.Rows = t.Rows[:ReportRows]
		}
		v.Outputs = append(v.Outputs, ot)
	}
	if js := runs.Rest(out.JSON, ts); js != "" {
		if r := []rune(js); len(r) > 20000 {
			js = string(r[:20000]) + "…"
		}
		v.OutputsJSON = js
	}
	return nil
}

// placeShots embeds the screenshots within budget bytes: the failure's
// (step of the error line) first, then the step shots newest first; the
// oldest ones that do not fit are dropped (counted in Dropped).
func (v *view) placeShots(dir string, budget int) {
	files, _ := filepath.Glob(filepath.Join(dir, "screenshots", "*.*"))
	type shot struct {
		index int
		path  string
	}
	byIndex := map[int]string{}
	for _, f := range files {
		base := filepath.Base(f)
		ext := filepath.Ext(base)
		if ext != ".png" && ext != ".jpg" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSuffix(base, ext))
		if err == nil && (byIndex[n] == "" || ext == ".png") {
			byIndex[n] = f // a step with both: the PNG (a failure's)
		}
	}
	var shots []shot
	for n, f := range byIndex {
		shots = append(shots, shot{n, f})
	}
	sort.Slice(shots, func(i, j int) bool { return shots[i].index > shots[j].index }) // newest first
	failIdx := -1
	for _, st := range v.Steps {
		if st.Failed {
			failIdx = st.Index // the last failed step
		}
	}
	pos := map[int]int{}
	for i, st := range v.Steps {
		pos[st.Index] = i
	}
	uri := func(jpg []byte) template.URL {
		return template.URL("data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(jpg))
	}
	cost := func(jpg []byte) int { return base64.StdEncoding.EncodedLen(len(jpg)) }
	for _, sh := range shots {
		data, err := os.ReadFile(sh.path)
		if err != nil {
			continue
		}
		if sh.index == failIdx {
			for _, sz := range []struct{ w, q int }{{960, 75}, {640, 60}, {400, 50}} {
				jpg, err := Shrink(data, sz.w, sz.q)
				if err != nil {
					break
				}
				if cost(jpg) <= budget {
					v.FailShot = uri(jpg)
					budget -= cost(jpg)
					if sz.w < 960 {
						v.Shrunk = true
					}
					break
				}
			}
			if v.FailShot == "" {
				v.Dropped++
			}
			continue
		}
		i, ok := pos[sh.index]
		if !ok {
			continue
		}
		jpg := data
		if filepath.Ext(sh.path) != ".jpg" { // step JPEGs are already small
			jpg, err = Shrink(data, 640, 60)
		}
		if err != nil || cost(jpg) > budget {
			v.Dropped++
			continue
		}
		v.Steps[i].Shot = uri(jpg)
		budget -= cost(jpg)
	}
}

// readEvents returns the log lines and page problems of events.jsonl.
func readEvents(path string) (log []string, problems []problemView) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var e struct {
			Kind   string `json:"kind"`
			Text   string `json:"text"`
			Type   string `json:"type"`
			URL    string `json:"url"`
			Status int    `json:"status"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue // a line cut by a kill
		}
		switch e.Kind {
		case "log":
			log = append(log, e.Text)
		case "problem":
			problems = append(problems, problemView{e.Type, e.Text, e.URL, e.Status})
		}
	}
	return log, problems
}

// page is the report's template, parsed at its first use (a process that
// writes no report does not keep it; issue 24).
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"ms": func(n int64) string {
			if n >= 10000 {
				return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + " s"
			}
			return strconv.FormatInt(n, 10) + " ms"
		},
		"pct":           func(f float64) string { return strconv.FormatFloat(max(f, 0.5), 'f', 1, 64) + "%" },
		"errorActionOf": runs.ErrorActionShown,
		"base":          filepath.Base, // a report is a resource: no host path in it
	}).Parse(`<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Run.Flow}} · {{.StatusText}} · {{$.T "report.run" .Run.ID}}</title>
<style>
:root{--ok:#1a7f37;--bad:#cf222e;--skip:#9a6700;--mut:#57606a;--line:#d0d7de;--bg:#f6f8fa}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1f2328;background:#fff}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
.badge{display:inline-block;padding:2px 10px;border-radius:12px;color:#fff;font-weight:600;font-size:13px;vertical-align:middle}
.st-ok{background:var(--ok)}.st-failed,.st-interrupted,.st-cancelled{background:var(--bad)}.st-running{background:var(--skip)}
.meta{color:var(--mut)}.meta span{margin-right:16px}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--bg);font-weight:600}
code,pre{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--bg);padding:10px;overflow:auto;border-radius:6px;white-space:pre-wrap}
.err{border:1px solid var(--bad);background:#ffebe9;border-radius:6px;padding:10px 14px}
.hint{border-left:4px solid var(--skip);background:#fff8c5;padding:6px 10px;margin:6px 0}
.bar{height:8px;background:#0969da;border-radius:4px;min-width:2px}
tr.failed td{background:#ffebe9}tr.skipped td{color:var(--skip)}
.s-ok{color:var(--ok)}.s-failed{color:var(--bad);font-weight:600}.s-skipped{color:var(--skip)}
.src{color:var(--mut)}img{max-width:100%;border:1px solid var(--line);border-radius:4px}
.note{color:var(--mut);font-style:italic}
</style></head>
<body><main>
<h1 id="flow">{{.Run.Flow}} <span id="status" class="badge st-{{.Status}}">{{.StatusText}}</span></h1>
<div class="meta"><span>{{$.T "report.runLabel"}} <code id="run-id">{{.Run.ID}}</code></span><span>{{.Start}}</span><span>{{ms .Run.DurationMs}}</span>
<span>{{$.T "report.actions" .Run.Actions}}{{if .Run.FailedActions}}{{$.T "report.failedActions" .Run.FailedActions}}{{end}}</span>
<span>{{$.T "report.caller"}} {{$.Caller}}{{with .Run.Caller.Client}} ({{.}}){{end}}{{with .Run.Caller.Device}} {{$.T "report.device"}} {{.}}{{end}}</span>
{{with .Run.Profile}}<span>{{$.T "report.profile"}} {{.}}</span>{{end}}{{with .Run.ResumedFrom}}<span>{{$.T "report.resumes"}} <code>{{.}}</code></span>{{end}}</div>
{{with .Run.FlowPath}}<div class="meta">{{$.T "report.flowFile"}} <code>{{base .}}</code></div>{{end}}
{{if .Args}}<h2>{{$.T "report.args"}}</h2><table id="args">{{range .Args}}<tr><th>{{.K}}</th><td><code>{{.V}}</code></td></tr>{{end}}</table>{{end}}
{{if or .Outputs .OutputsJSON}}<h2>{{$.T "report.outputs"}}</h2>
{{if .OutputsTruncated}}<p class="note">{{$.T "report.outputsCut"}}</p>{{end}}
{{range .Outputs}}<h3>{{with .Name}}{{.}}{{else}}outputs{{end}} <span class="meta">{{$.T "report.rows" .Total}}{{if .More}}{{$.T "report.rowsShown" (len .Rows)}}{{end}}</span></h3>
<table class="output" id="output-{{with .Name}}{{.}}{{else}}outputs{{end}}"><tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</table>
<p class="note">{{$.T "report.export"}} <code>{{.Export}}</code></p>{{end}}
{{with .OutputsJSON}}<pre id="outputs-json">{{.}}</pre>{{end}}{{end}}
{{if .Run.ErrorKind}}<h2>{{$.T "report.error"}}</h2>
<div class="err" id="error"><b>{{$.Kind .Run.ErrorKind}}</b>{{with errorActionOf .Run}} {{$.T "report.in"}} <code>{{.}}</code>{{end}}{{if .Run.ErrorLine}} {{$.T "report.atLine" .Run.ErrorLine}}{{end}}: {{$e := $.Loc .Run.ErrorMessage}}<span{{if eq $e .Run.ErrorMessage}} translate="no"{{end}}>{{$e}}</span></div>{{end}}
{{with .Packet}}
{{range .Hints}}<div class="hint">{{.}}</div>{{end}}
{{if .Selectors}}<h2>{{$.T "report.selectors"}}</h2><table id="selectors"><tr><th>{{$.T "report.selector"}}</th><th>{{$.T "report.why"}}</th></tr>
{{range .Selectors}}<tr><td><code>{{.Selector}}</code></td><td>{{.Reason}}</td></tr>{{end}}</table>{{end}}
{{if or .URL .Title}}<p class="meta">{{$.T "report.page"}} <code>{{.URL}}</code>{{with .Title}} — “{{.}}”{{end}}</p>{{end}}
{{end}}
{{if .Heal}}<h2>{{$.T "report.heal"}}</h2>
<table id="heal"><tr><th>{{$.T "report.line"}}</th><th>{{$.T "report.healWhat"}}</th><th>{{$.T "report.healSelectors"}}</th><th>{{$.T "report.healScore"}}</th></tr>
{{range .Heal}}<tr><td>{{.Line}}</td><td>{{if .Healed}}{{$.T "report.healHealed"}}{{else}}{{$.T "report.healFound"}}{{end}}{{with .Desc}} <span translate="no">{{.}}</span>{{end}}</td><td><code>{{.Selectors}}</code></td><td>{{.Score}}</td></tr>{{end}}</table>
<p class="note" id="heal-apply">{{$.T "report.healApply"}} <code>{{.HealCmd}}</code> {{$.T "report.healApplyAfter"}}</p>{{end}}
{{if .FailShot}}<h2>{{$.T "report.failPage"}}</h2><img id="failure-shot" alt="{{$.T "report.failShot"}}" src="{{.FailShot}}">{{end}}
<h2>{{$.T "report.timeline"}}</h2>
<table id="timeline"><tr><th>#</th><th>{{$.T "report.line"}}</th><th>{{$.T "report.action"}}</th><th>{{$.T "report.target"}}</th><th>{{$.T "report.status"}}</th><th style="width:22%">{{$.T "report.duration"}}</th></tr>
{{range .Steps}}<tr class="{{.Status}}" id="step-{{.Index}}"><td>{{.Index}}</td><td>{{.Line}}</td><td><code>{{.Action}}</code></td>
<td>{{with .Target}}<code>{{.}}</code>{{end}}{{if and .Selector (ne .Selector .Target)}}<br>{{$.T "report.matched"}} <code>{{.Selector}}</code>{{end}}{{with .Fallback}}<br><span class="note">{{.}}</span>{{end}}
{{with .Source}}<div class="src"><code>{{.}}</code></div>{{end}}{{with .Error}}{{$e := $.Loc .}}<div class="s-failed"{{if eq $e .}} translate="no"{{end}}>{{$e}}</div>{{end}}
{{with .Shot}}<details><summary>{{$.T "report.shot"}}</summary><img alt="{{$.T "report.shotAfter"}}" src="{{.}}"></details>{{end}}</td>
<td class="s-{{.Status}}">{{$.T (print "report.st." .Status)}}{{with .ErrorKind}} ({{$.Kind .}}){{end}}</td>
<td><div class="bar" style="width:{{pct .BarPct}}"></div>{{ms .DurationMs}}</td></tr>
{{else}}<tr><td colspan="6" class="note">{{$.T "report.noAction"}}</td></tr>{{end}}</table>
{{if .Dropped}}<p class="note" id="dropped">{{$.T "report.dropped" .Dropped .MaxMB}}</p>{{end}}
{{if .Shrunk}}<p class="note">{{$.T "report.shrunk"}}</p>{{end}}
{{if .Problems}}<h2>{{$.T "report.problems"}}</h2><table id="problems"><tr><th>{{$.T "report.kind"}}</th><th>{{$.T "report.message"}}</th><th>URL</th></tr>
{{range .Problems}}<tr><td>{{.Type}}</td><td>{{.Text}}</td><td><code>{{.URL}}</code></td></tr>{{end}}</table>{{end}}
{{with .Packet}}{{with .Snapshot}}<h2>{{$.T "report.snapshot"}}</h2><pre id="snapshot">{{.}}</pre>{{end}}{{end}}
{{if .Log}}<h2>{{$.T "report.log"}}</h2><pre id="log">{{range .Log}}{{.}}
{{end}}</pre>{{end}}
<p class="note">{{$.T "report.written" .Generated}}</p>
</main></body></html>
`))
})
