// Package doctor checks that a machine is ready to run rpa: the browser
// (found, its version, one headless launch), $RPA_HOME (writable), the
// profiles (in use by a running rpa, or held by an orphaned browser), the
// display and dialog backend of the
// desktop channel for asking a person, the flows folder (how many flows
// check clean), and the settings of `rpa connect` (the file the
// rpa-connect user service reads and, when asked, one dial and register at
// the backend). `rpa doctor` prints the report; each failing item carries a
// line saying how to fix it.
//
// Every check returns one Check. What a headless server does not need (a
// display, a dialog backend, a connect setup) is reported as a note, never
// as a failure.
package doctor

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/internal/columns"
	"github.com/rpa-dev/rpa/internal/host/home"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/msg"
)

// Status is the outcome of one check.
type Status string

// The statuses of a Check. Only Fail makes the report fail.
const (
	OK   Status = "ok"   // in place
	Fail Status = "fail" // rpa cannot do its job until this is fixed
	Note Status = "note" // worth knowing, not needed everywhere (e.g. no display on a server)
)

// Check is the result of one item.
type Check struct {
	// Name is the item's short name: "browser", "browser launch", "home",
	// "profiles", "display", "dialogs", "flows", "connect settings", "connect".
	Name string `json:"name"`
	// Status is ok, fail or note.
	Status Status `json:"status"`
	// Detail says what was found (a path, a version, a count, an error).
	Detail string `json:"detail"`
	// Fix says how to fix a failing item (always set on Fail), or what to
	// do about a note; "" when there is nothing to do.
	Fix string `json:"fix,omitempty"`
}

// Report is every check in order. OK is false when any check failed.
type Report struct {
	OK     bool    `json:"ok"`
	Checks []Check `json:"checks"`
}

// Options selects what Run checks. The zero value checks this machine's
// defaults without dialling anywhere.
type Options struct {
	// Home is rpa's data folder; "" means home.Dir() ($RPA_HOME, else ~/.rpa).
	Home string
	// BrowserBin is the Chromium binary; "" finds it as every command does
	// ($ROD_BROWSER, /usr/bin/chromium, chromium on PATH; see drivers/rod.FindBrowser).
	BrowserBin string
	// NoLaunch skips the headless launch (the browser is still looked up).
	NoLaunch bool
	// FlowsDir is the served flows folder; "" means Home/flows.
	FlowsDir string
	// ConnectEnv is the settings file of the rpa-connect user service; ""
	// means DefaultConnectEnv() (skipped off Linux); "-" skips the check.
	ConnectEnv string
	// ConnectURL, when set (ws:// or wss://), is dialled once: the check
	// passes when the backend accepts the register message (it then sends
	// its MCP initialize request).
	ConnectURL string
	// DeviceID is sent in that register message; "" means "doctor-HOSTNAME",
	// so the check never replaces the link of a running `rpa connect` that
	// uses the real id (a backend keeps one link per device id).
	DeviceID string
	// Token is the bearer token for ConnectURL ("" sends none). Never printed.
	Token string
	// Timeout bounds the browser launch and the dial, each; 0 means 60s.
	Timeout time.Duration
	// Getenv reads the environment (DISPLAY, WAYLAND_DISPLAY); nil means os.Getenv.
	Getenv func(string) string
	// LookPath finds the dialog programs; nil means exec.LookPath.
	LookPath func(string) (string, error)
	// Fix scrubs the profiles a crash left unscrubbed (ScrubProfiles)
	// before the profiles are checked, and reports it as the check
	// "profile scrub".
	Fix bool
}

func (o Options) withDefaults() Options {
	if o.Home == "" {
		o.Home = home.Dir()
	}
	if o.FlowsDir == "" {
		o.FlowsDir = filepath.Join(o.Home, "flows")
	}
	if o.ConnectEnv == "" {
		o.ConnectEnv = DefaultConnectEnv()
		if o.ConnectEnv == "" {
			o.ConnectEnv = "-" // no rpa-connect service on this platform
		}
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.LookPath == nil {
		o.LookPath = exec.LookPath
	}
	return o
}

// Run runs every check in order: browser, browser launch, browser
// isolation, home, run store, profile scrub (only with Fix), profiles,
// display, dialogs, flows, connect settings, connect (only with
// ConnectURL). It never panics on a broken machine; each problem becomes a
// failing Check.
func Run(ctx context.Context, opts Options) Report {
	o := opts.withDefaults()
	var r Report
	add := func(c Check) { r.Checks = append(r.Checks, c) }

	b := CheckBrowser(ctx, o.BrowserBin)
	add(b.Check)
	switch {
	case o.NoLaunch:
	case b.Status == Fail:
		add(Check{Name: "browser launch", Status: Fail, Detail: "skipped: no browser", Fix: b.Fix})
	default:
		lctx, cancel := context.WithTimeout(ctx, o.Timeout)
		add(CheckLaunch(lctx, b.Path, o.Home))
		cancel()
		add(CheckIsolation()) // after the launch: it may have met a kernel that refuses the sandbox
	}
	add(CheckHome(o.Home))
	add(CheckRunStore(o.Home))
	if o.Fix {
		add(scrubCheck(o.Home))
	}
	add(CheckProfiles(o.Home))
	add(CheckDisplay(o.Getenv))
	add(CheckDialogs(o.LookPath))
	add(CheckFlows(o.FlowsDir))
	if o.ConnectEnv != "-" {
		add(CheckConnectEnv(o.ConnectEnv))
	}
	if o.ConnectURL != "" {
		id := o.DeviceID
		if id == "" {
			host, _ := os.Hostname()
			id = "doctor-" + host
		}
		dctx, cancel := context.WithTimeout(ctx, o.Timeout)
		add(CheckConnect(dctx, o.ConnectURL, id, o.Token))
		cancel()
	}
	r.OK = true
	for _, c := range r.Checks {
		if c.Status == Fail {
			r.OK = false
		}
	}
	return r
}

// Print writes the report for a person: one line per check
// ("ok    browser  /usr/bin/chromium (Chromium 131...)"), an indented
// "fix:" line under each failing item and each note with advice, and a
// last line with the verdict.
//
// Under LANG=zh_* (msg.Env) it is in Chinese: the statuses and item names
// from the catalog, the details and fixes through msg.Localize.
func Print(w io.Writer, r Report) {
	lg := msg.Env()
	name := func(c Check) string { return word(lg, "doctor.name.", c.Name) }
	width := 0
	for _, c := range r.Checks {
		width = max(width, columns.Width(name(c)))
	}
	pad := func(s string, n int) string { return s + strings.Repeat(" ", max(0, n-columns.Width(s))) }
	fails, notes := 0, 0
	for _, c := range r.Checks {
		fmt.Fprintf(w, "%s  %s  %s\n", pad(word(lg, "doctor.st.", string(c.Status)), 4), pad(name(c), width), msg.Localize(lg, c.Detail))
		if c.Fix != "" {
			fmt.Fprintf(w, "      %s  %s\n", pad("", width), msg.T(lg, "doctor.fix", msg.Localize(lg, c.Fix)))
		}
		switch c.Status {
		case Fail:
			fails++
		case Note:
			notes++
		}
	}
	switch {
	case fails > 0:
		fmt.Fprint(w, "\n"+msg.T(lg, "doctor.failed", fails)+"\n")
	case notes > 0:
		fmt.Fprint(w, "\n"+msg.T(lg, "doctor.readyNotes", notes)+"\n")
	default:
		fmt.Fprint(w, "\n"+msg.T(lg, "doctor.ready")+"\n")
	}
}

// word is the catalog's text of prefix+s in lg, s itself when the catalog
// has none.
func word(lg, prefix, s string) string {
	if _, ok := msg.Lookup(prefix + s); ok {
		return msg.T(lg, prefix+s)
	}
	return s
}

func init() {
	msg.Register(map[string]msg.Text{
		"doctor.fix":                    {En: "fix: %s", Zh: "解决：%s"},
		"doctor.failed":                 {En: "%d item(s) failed; fix them as shown above.", Zh: "%d 项未通过；请按上面所示解决。"},
		"doctor.readyNotes":             {En: "ready (%d note(s) above).", Zh: "可以使用（上面有 %d 条提示）。"},
		"doctor.ready":                  {En: "ready.", Zh: "可以使用。"},
		"doctor.st.ok":                  {En: "ok", Zh: "正常"},
		"doctor.st.note":                {En: "note", Zh: "提示"},
		"doctor.st.fail":                {En: "fail", Zh: "失败"},
		"doctor.name.browser":           {En: "browser", Zh: "浏览器"},
		"doctor.name.browser launch":    {En: "browser launch", Zh: "浏览器启动"},
		"doctor.name.browser isolation": {En: "browser isolation", Zh: "浏览器隔离"},
		"doctor.name.home":              {En: "home", Zh: "rpa 文件夹"},
		"doctor.name.run store":         {En: "run store", Zh: "运行记录库"},
		"doctor.name.profiles":          {En: "profiles", Zh: "浏览器配置"},
		"doctor.name.display":           {En: "display", Zh: "显示环境"},
		"doctor.name.dialogs":           {En: "dialogs", Zh: "对话框"},
		"doctor.name.flows":             {En: "flows", Zh: "流程"},
		"doctor.name.connect settings":  {En: "connect settings", Zh: "连接设置"},
		"doctor.name.connect":           {En: "connect", Zh: "连接"},
		"out.doctor.writable":           {En: "%s is writable", Zh: "%s 可写"},
		"out.doctor.sound":              {En: "%s is sound", Zh: "%s 完好"},
		"out.doctor.noProfiles":         {En: "no profiles yet (%s)", Zh: "还没有浏览器配置（%s）"},
		"out.doctor.profiles":           {En: "%d profile(s), none in use", Zh: "%d 个浏览器配置，都没有在使用"},
		"out.doctor.launch":             {En: "headless start and page load in %s: %s", Zh: "无头启动并加载页面用时 %s：%s"},
		"out.doctor.pipeOn":             {En: "DevTools over a pipe only rpa holds (no TCP port); Chromium's sandbox on", Zh: "DevTools 走只有 rpa 持有的管道（没有 TCP 端口）；Chromium 沙箱已开启"},
		"out.doctor.pipeOff":            {En: "DevTools over a pipe only rpa holds (no TCP port); Chromium's sandbox off: %s", Zh: "DevTools 走只有 rpa 持有的管道（没有 TCP 端口）；Chromium 沙箱已关闭：%s"},
		"out.doctor.root":               {En: "running as root", Zh: "以 root 身份运行"},
		"out.doctor.rootFix":            {En: "run rpa as a regular user to keep Chromium's sandbox (it cannot run as root)", Zh: "请以普通用户运行 rpa，以保留 Chromium 的沙箱（以 root 运行时无法启用）"},
		"out.doctor.noDisplay":          {En: "none (DISPLAY and WAYLAND_DISPLAY are unset): headless, so `ask` goes to the terminal or the MCP client", Zh: "无（未设置 DISPLAY 和 WAYLAND_DISPLAY）：无头模式，`ask` 会问终端或 MCP 客户端"},
		"out.doctor.displayFix":         {En: "only needed for desktop dialogs: run rpa inside the desktop session", Zh: "只有桌面对话框需要：请在桌面会话中运行 rpa"},
		"out.doctor.noDialogs":          {En: "no dialog program (qarma, zenity or matedialog) on PATH", Zh: "PATH 上没有对话框程序（qarma、zenity 或 matedialog）"},
		"out.doctor.flowsClean":         {En: "%d of %d flow file(s) in %s check clean; first error: %s", Zh: "%[3]s 中的 %[2]d 个流程文件有 %[1]d 个检查通过；第一个错误：%[4]s"},
		"out.doctor.flowsFix":           {En: "`rpa check %s` shows every error with its line; fix or remove those files (they are not served)", Zh: "`rpa check %s` 会列出每个错误及其行号；请修正或移走这些文件（它们不会被提供给智能体）"},
		"out.doctor.noFlows":            {En: "no flow files in %s", Zh: "%s 中没有流程文件"},
		"out.doctor.noDir":              {En: "%s does not exist yet", Zh: "%s 还不存在"},
	})
}

// firstLine trims s to its first line, at most 200 bytes.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// scrubCheck is ScrubProfiles as a Check: ok naming what it scrubbed,
// failing naming the profiles it could not scrub and why.
func scrubCheck(home string) Check {
	c := Check{Name: "profile scrub", Status: OK, Detail: "no profile needed a scrub"}
	scrubbed, failed := ScrubProfiles(home)
	if len(scrubbed) > 0 {
		c.Detail = fmt.Sprintf("scrubbed %d profile(s) a crash left: %s", len(scrubbed), strings.Join(scrubbed, ", "))
	}
	if n := profiles.SweepTempIn(home); n > 0 {
		gone := fmt.Sprintf("removed %d temporary profile(s) of runs that were killed", n)
		if len(scrubbed) > 0 {
			c.Detail += "; " + gone
		} else {
			c.Detail = gone
		}
	}
	if len(failed) > 0 {
		var why []string
		for _, id := range slices.Sorted(maps.Keys(failed)) {
			why = append(why, id+" ("+failed[id].Error()+")")
		}
		c.Status = Fail
		c.Detail += "; could not scrub " + strings.Join(why, ", ")
		c.Fix = "stop what uses those profiles, then run `rpa doctor --fix` again"
	}
	return c
}
