package record

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/snapshot"
	"github.com/rpa-dev/rpa/internal/msg"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/report"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/stdlib"
)

// DefaultPacketBudget is the failure packet's default budget in tokens,
// counted as characters of its JSON / 4.
const DefaultPacketBudget = runs.DefaultPacketBudget

// Packet is the failure packet (PROTOCOL.md, "The failure packet"): what
// an agent needs to recover from a failed run, within a budget. It is the
// field `failure` of the workflow tool's structuredContent, beside `runId`.
type Packet struct {
	// Line, Action and Source are the failing step: its line, action name
	// and source text (trimmed, masked).
	Line   int    `json:"line"`
	Action string `json:"action"`
	Source string `json:"source"`
	// Kind and Message are the run error's kind and message.
	Kind    core.Kind `json:"kind"`
	Message string    `json:"message"`
	// Selectors are the selectors the step tried, each with why it does
	// not match now: "no element matches", "covered by div#consent",
	// "not visible", "disabled", or "passes now" (the page changed since).
	Selectors []SelectorReason `json:"selectors"`
	// URL and Title are the tab's at the failure.
	URL   string `json:"url"`
	Title string `json:"title"`
	// Dialogs are the JS dialogs the tab saw (answered by the dialog
	// policy), Tabs the open tabs.
	Dialogs []drivers.Dialog `json:"dialogs"`
	Tabs    []Tab            `json:"tabs"`
	// Snapshot is a trimmed accessibility snapshot (package snapshot's form)
	// around the target, or of the page when there is no target.
	Snapshot string `json:"snapshot,omitempty"`
	// Problems are the page's last console and network errors.
	Problems []string `json:"problems,omitempty"`
	// Hints are plain sentences drawn from the evidence.
	Hints []string `json:"hints"`
	// Screenshot is the resource URI of the failure screenshot ("" when
	// none was taken); the result also carries it as image content.
	Screenshot string `json:"screenshot,omitempty"`
	// Truncated is true when parts were cut to fit the budget.
	Truncated bool `json:"truncated,omitempty"`
	// Heal is what healing did at the failing step (package heal): the
	// candidates it suggests, or why it refused ("the element seems to be
	// gone", "two elements look alike"); nil when it did not look.
	Heal *stdlib.HealInfo `json:"heal,omitempty"`
	// HealPatch is the change of the flow that Heal proposes for the
	// failing line (heal_packet.go); nil when it proposes none.
	HealPatch *HealPatch `json:"heal_patch,omitempty"`
	// Page is what the page had settled into when the failing step gave
	// up waiting (LANGUAGE.md, "Fail fast"): a sign-in page, an error near
	// the last action, an HTTP error document, or a page on which nothing
	// loaded or changed any more; nil when the step did not wait in vain.
	Page *drivers.PageState `json:"page,omitempty"`
}

// SelectorReason is one selector and why it failed.
type SelectorReason struct {
	Selector string `json:"selector"`
	Reason   string `json:"reason"`
}

// Tab is one open tab.
type Tab struct {
	URL     string `json:"url"`
	Title   string `json:"title"`
	Current bool   `json:"current,omitempty"`
}

// packet builds the failure packet of a failed run and its downscaled
// screenshot.
func (r *Recorder) packet(ctx context.Context, res *interp.Result, page drivers.Page, failed *failedStep) (*Packet, []byte) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 8*time.Second)
	defer cancel()
	e := res.Error
	p := &Packet{Line: e.Line, Action: e.Action, Source: r.SourceLine(e.Line), Kind: e.Kind, Message: r.mask.String(e.Message),
		Selectors: []SelectorReason{}, Dialogs: []drivers.Dialog{}, Tabs: []Tab{}, Hints: []string{}}
	var ev *interp.Evidence
	shot := "" // the failure screenshot's file name
	if failed != nil && failed.line == e.Line && (e.Action == "" || failed.action == e.Action) {
		ev = failed.evidence
		if p.Action == "" {
			p.Action = failed.action
		}
		shot = failed.shot
	}
	if shot == "" && page != nil && (failed == nil || !failed.shotTaken) {
		// the failure was not a step's (fail, assert, a return that could
		// not be built): the picture is of the tab the run ended on
		r.mu.Lock() // screenshot writes the run's events
		shot = r.screenshot(page, 0, nil)
		r.mu.Unlock()
	}
	if shot != "" {
		p.Screenshot = fmt.Sprintf("rpa://runs/%s/screenshots/%s", r.run.ID, shot)
	}
	if ev != nil && ev.Page != nil {
		page = ev.Page
	}
	var frame drivers.Frame = page
	if ev != nil && ev.Frame != nil {
		frame = ev.Frame
	}
	budget := r.o.PacketBudget
	if budget <= 0 {
		budget = DefaultPacketBudget
	}
	maxChars := budget * 4
	var reps []drivers.SelectorReport
	// Re-check the selectors as the step ran them (Live: a selector may hold
	// a secret, and its masked text "#row-***" is not the selector that
	// failed); what the packet shows is masked.
	if ev != nil && len(ev.Live()) > 0 && frame != nil {
		if in, ok := frame.(drivers.Inspector); ok {
			checks := ev.Checks
			if checks == 0 { // the action located nothing itself (wait, frame): is it there
				checks = drivers.ForRead
			}
			reps, _ = in.Diagnose(ctx, ev.Live(), checks)
			for _, rep := range reps {
				reason := rep.Reason
				if rep.Kind == "" {
					reason = msg.T(r.lang(), "packet.passesNow")
				}
				p.Selectors = append(p.Selectors, SelectorReason{Selector: r.mask.String(rep.Selector), Reason: r.mask.String(reason)})
			}
		}
	}
	if page != nil {
		if u, err := page.URL(ctx); err == nil {
			p.URL = p.clip(r.maskURL(u))
		}
		if t, err := page.Title(ctx); err == nil {
			p.Title = p.clip(r.mask.String(t))
		}
		for _, d := range page.Dialogs() {
			p.Dialogs = append(p.Dialogs, drivers.Dialog{Type: d.Type, Message: p.clip(r.mask.String(d.Message))})
		}
	}
	r.mu.Lock()
	pages := append([]drivers.Page(nil), r.pages...)
	r.mu.Unlock()
	for _, tp := range pages {
		u, err := tp.URL(ctx)
		if err != nil {
			continue // closed
		}
		t, _ := tp.Title(ctx)
		p.Tabs = append(p.Tabs, Tab{URL: p.clip(r.maskURL(u)), Title: p.clip(r.mask.String(t)), Current: tp == page})
	}
	for _, tp := range pages {
		if w, ok := tp.(drivers.ProblemWatcher); ok {
			for _, pr := range w.Problems() {
				s := pr.Kind + ": " + pr.Text
				if pr.URL != "" {
					s += " (" + maskURLCredentials(pr.URL) + ")"
				}
				p.Problems = append(p.Problems, p.clip(r.mask.String(s)))
			}
		}
	}
	if n := len(p.Problems); n > 5 {
		p.Problems = p.Problems[n-5:]
	}
	snapText := ""
	if frame != nil {
		opts := snapshot.Options{MaxRows: 5, MaxOptions: 10}
		if ev != nil {
			opts.Around = ev.Live() // the output is masked below
		}
		if s, err := snapshot.Take(ctx, frame, opts); err == nil {
			snapText = maskURLsIn(r.mask.String(s.Render(budget)))
		}
	}
	dialog, alert := "", ""
	if page != nil {
		dialog = r.mask.String(openDialog(ctx, page))
		alert = r.mask.String(pageAlert(ctx, page))
	}
	if st := drivers.StateOf(e); st != nil {
		p.Page = &drivers.PageState{Kind: st.Kind, Text: r.mask.String(st.Text)}
	}
	p.Heal = failedHeal(res, e.Line) // heal_packet.go
	p.HealPatch = healPatch(r.o.Flow, r.source, p.Heal, e.Line, r.mask.String)
	p.Hints = hints(r.lang(), p, reps, snapText, dialog, alert)
	// Fit the budget: the snapshot takes what the rest leaves.
	p.Snapshot = ""
	rest := size(p)
	if room := maxChars - rest; room > 200 && snapText != "" {
		p.Snapshot = cutLines(snapText, room-40)
		if len(p.Snapshot) < len(snapText) {
			p.Truncated = true
		}
	} else if snapText != "" {
		p.Truncated = true
	}
	for size(p) > maxChars && len(p.Problems) > 0 {
		p.Problems, p.Truncated = p.Problems[1:], true
	}
	for size(p) > maxChars && len(p.Tabs) > 1 {
		p.Tabs, p.Truncated = p.Tabs[:len(p.Tabs)-1], true
	}
	var img []byte
	if shot != "" {
		if data, err := readShot(r.dir, shot); err == nil {
			img, _ = report.Shrink(data, 640, 60)
		}
	}
	return p, img
}

// maxPacketField bounds one text of the packet (a URL, a title, a
// dialog's or a problem's text), in bytes: a 2 MB data: URL or a page
// title of a whole article would otherwise crowd out the rest of the
// budget (or, for the current tab, be sent whole: it is never dropped).
const maxPacketField = 1000

// clip is s bounded to maxPacketField bytes: its first half-bound bytes
// (cut at a character boundary) and "… (N bytes)"; it marks p truncated
// when it cuts.
func (p *Packet) clip(s string) string {
	if len(s) <= maxPacketField {
		return s
	}
	p.Truncated = true
	cut := maxPacketField / 2
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}

func size(p *Packet) int {
	b, _ := json.Marshal(p)
	return len(b)
}

// cutLines keeps whole lines of s within n bytes.
func cutLines(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], '\n')
	if cut < 0 {
		return ""
	}
	return s[:cut] + "\n- ... (cut to fit the packet's budget)"
}

func init() {
	msg.Register(map[string]msg.Text{
		"packet.loginRefused": {En: "the page is %s and says %q: the login was refused (check the credentials the flow was given)", Zh: "页面是 %s，显示 %q：登录被拒绝（请检查流程得到的账号和密码）"},
		"packet.loginPage":    {En: "the page is %s, a login page: the session may have expired or a login did not go through (log in again, or run on the profile that holds the session)", Zh: "页面是 %s，一个登录页：会话可能已过期，或登录没有成功（请重新登录，或在保存会话的浏览器配置上运行）"},
		"packet.covered":      {En: "%s covers the target: close or accept it first (a click on its button, e.g. an optional click before this step), or wait for it to go", Zh: "%s 遮挡了目标：请先关闭或接受它（点击它的按钮，例如在此步骤前加一个可选的 click），或等待它消失"},
		"packet.dialogNamed":  {En: "a dialog is open on the page: %s", Zh: "页面上打开了一个对话框：%s"},
		"packet.dialog":       {En: "a dialog is open on the page (see the snapshot)", Zh: "页面上打开了一个对话框（见快照）"},
		"packet.jsDialog":     {En: "the page showed a JS %s: %q", Zh: "页面显示了一个 JS %s：%q"},
		"packet.noMatch":      {En: "no selector matches anything on this page: the page changed or the flow is on another page than it expects (compare the URL and the snapshot)", Zh: "没有选择器能匹配此页面上的任何元素：页面已改变，或流程不在它预期的页面上（请对比 URL 和快照）"},
		"packet.notVisible":   {En: "the element exists but is not visible: it may sit in a closed menu, tab or collapsed section", Zh: "元素存在但不可见：它可能在关闭的菜单、标签页或折叠的区域中"},
		"packet.disabled":     {En: "the element is disabled: a required field may be empty or invalid", Zh: "元素已禁用：可能有必填项为空或无效"},
		"packet.emptyTable":   {En: "the table is empty", Zh: "表格为空"},
		"packet.timeout":      {En: "the step timed out: the page may be slow or waiting for something (see problems)", Zh: "步骤超时：页面可能很慢，或在等待什么（见问题列表）"},
		"packet.signIn":       {En: "%s: the session expired or the sign-in did not go through; sign in first (defaults login:, or the profile that holds the session), the selectors are not to blame", Zh: "%s：会话已过期或登录没有成功；请先登录（defaults login:，或使用保存会话的浏览器配置），不是选择器的问题"},
		"packet.pageError":    {En: "%s: the page refused what the flow sent (check the values it was given); the selectors are not to blame", Zh: "%s：页面拒绝了流程提交的内容（请检查给它的值）；不是选择器的问题"},
		"packet.httpError":    {En: "%s: the server failed or the address is wrong; the selectors are not to blame", Zh: "%s：服务器出错或地址不对；不是选择器的问题"},
		"packet.passesNow":    {En: "passes now (the page changed after the failure)", Zh: "现在能通过（失败之后页面发生了变化）"},
	})
}

// lang is the language of the packet's prose (Options.Lang, else the
// process's, msg.Env); its JSON keys stay English.
func (r *Recorder) lang() string {
	if r.o.Lang != "" {
		return r.o.Lang
	}
	return msg.Env()
}

// hints draws plain sentences from the evidence; alert is the page's
// error text near a form (pageAlert, masked), "" when it shows none.
func hints(lg string, p *Packet, reps []drivers.SelectorReport, snap, dialog, alert string) []string {
	var out []string
	if u, err := url.Parse(p.URL); err == nil && core.IsLoginURL(p.URL) && !strings.Contains(strings.ToLower(p.Source), "login") {
		if alert != "" {
			out = append(out, msg.T(lg, "packet.loginRefused", u.Path, alert))
		} else {
			out = append(out, msg.T(lg, "packet.loginPage", u.Path))
		}
	}
	if p.Page != nil {
		switch p.Page.Kind {
		case drivers.PageSignIn:
			out = append(out, msg.T(lg, "packet.signIn", p.Page.Text))
		case drivers.PageError:
			out = append(out, msg.T(lg, "packet.pageError", p.Page.Text))
		case drivers.PageHTTPError:
			out = append(out, msg.T(lg, "packet.httpError", p.Page.Text))
		}
	}
	covered, allMissing := "", len(reps) > 0
	for _, r := range reps {
		if r.Kind == core.KindCovered && covered == "" {
			covered = r.Reason
			if _, after, ok := strings.Cut(r.Reason, "covered by "); ok {
				covered = after
			}
		}
		if r.Count > 0 {
			allMissing = false
		}
	}
	if covered != "" {
		out = append(out, msg.T(lg, "packet.covered", covered))
	}
	switch {
	case dialog != "":
		out = append(out, msg.T(lg, "packet.dialogNamed", dialog))
	case strings.Contains(snap, "- dialog") || strings.Contains(snap, "- alertdialog"):
		out = append(out, msg.T(lg, "packet.dialog"))
	}
	if len(p.Dialogs) > 0 {
		d := p.Dialogs[len(p.Dialogs)-1]
		out = append(out, msg.T(lg, "packet.jsDialog", d.Type, d.Message))
	}
	if allMissing {
		out = append(out, msg.T(lg, "packet.noMatch"))
	}
	for _, r := range reps {
		if r.Kind == core.KindNotVisible && r.Count > 0 {
			out = append(out, msg.T(lg, "packet.notVisible"))
			break
		}
		if r.Kind == core.KindDisabled {
			out = append(out, msg.T(lg, "packet.disabled"))
			break
		}
	}
	if (p.Action == "table" || p.Action == "extract") && strings.Contains(p.Message, "no rows") {
		out = append(out, msg.T(lg, "packet.emptyTable"))
	}
	if p.Kind == core.KindTimeout && len(reps) == 0 {
		out = append(out, msg.T(lg, "packet.timeout"))
	}
	if len(out) == 0 {
		out = []string{}
	}
	return out
}

// pageAlert is the first visible error text of the page's top document
// near a form: an element with role alert, an error/alert/invalid-feedback
// class, or the description of a field marked aria-invalid (trimmed to 160
// characters, not masked); "" when there is none.
func pageAlert(ctx context.Context, f drivers.Frame) string {
	v, err := f.Eval(ctx, `() => {
		const shown = (el) => {
			const r = el.getBoundingClientRect();
			const st = getComputedStyle(el);
			return r.width > 0 && r.height > 0 && st.visibility !== 'hidden' && st.display !== 'none';
		};
		const text = (el) => (el.innerText || el.textContent || '').trim().replace(/\s+/g, ' ');
		const found = [...document.querySelectorAll('[role=alert], .error, .errors, .alert-danger, .alert-error, .invalid-feedback, .error-message, .flash-error, .form-error, .notification.is-danger')];
		for (const f of document.querySelectorAll('[aria-invalid=true]')) {
			for (const id of (f.getAttribute('aria-describedby') || f.getAttribute('aria-errormessage') || '').split(/\s+/)) {
				const el = id && document.getElementById(id);
				if (el) found.push(el);
			}
		}
		for (const el of found) {
			const t = text(el);
			if (t && shown(el)) return JSON.stringify(t.slice(0, 160));
		}
		return '';
	}`)
	if err != nil {
		return ""
	}
	var s string
	if str, ok := v.(string); ok && str != "" {
		_ = json.Unmarshal([]byte(str), &s)
	}
	return s
}

// openDialog names the first visible modal dialog of the page's top
// document (dialog[open], role dialog/alertdialog, aria-modal), "" when
// none: its accessible name or the start of its text.
func openDialog(ctx context.Context, f drivers.Frame) string {
	v, err := f.Eval(ctx, `() => {
		for (const el of document.querySelectorAll('dialog[open], [role=dialog], [role=alertdialog], [aria-modal=true]')) {
			const r = el.getBoundingClientRect();
			const st = getComputedStyle(el);
			if (r.width === 0 || r.height === 0 || st.visibility === 'hidden' || st.display === 'none') continue;
			const name = el.getAttribute('aria-label') || (el.innerText || '').trim().replace(/\s+/g, ' ').slice(0, 60);
			return JSON.stringify(name);
		}
		return '';
	}`)
	if err != nil {
		return ""
	}
	s, _ := v.(string)
	return s
}
