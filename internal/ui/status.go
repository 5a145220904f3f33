package ui

import (
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/internal/host/home"
	"github.com/rpa-dev/rpa/internal/host/localctl"
	"github.com/rpa-dev/rpa/internal/host/profiles"
)

// The Status page: what this console's process serves (Options.Hosting:
// `rpa ui --serve-http` / `--connect`), the consoles open on this
// $RPA_HOME (the local control registry), and every browser profile of
// $RPA_HOME with the rpa process that holds it (its lock file rpa.lock,
// profiles.LockDir) and the Chromium running on it, with Stop.
//
// Design (docs/console.md, "Status"): processes find each other through
// $RPA_HOME's local control registry (internal/host/localctl). A serving process
// (rpa serve, rpa connect, rpa ui --serve-http/--connect: package
// flowserver) announces what it serves and its gateway link's state there
// while it serves; the page lists them. Browsers are found from the file
// system and the process table: the profile lock names the owner's pid, and
// on Linux the browser is the process whose command line holds
// --user-data-dir=PROFILE without --type= (Chromium's main process). Stop
// sends that process SIGTERM, which Chromium handles as a clean exit
// (profile flushed, helpers ended), and SIGKILLs its group only when it is
// still there after StopGrace. The owning process finds the browser gone
// (drivers.Gone) and starts a fresh one on its next call; a call running on
// it at that moment fails with a browser error. Elsewhere than Linux the
// page lists profiles and owners but cannot stop a browser.

func init() {
	RegisterPage(Page{ID: "status", Path: "/status", Order: 50, Title: "nav.status"})
	RegisterText(map[string]Text{
		"nav.status":         {En: "Status", Zh: "状态"},
		"status.this":        {En: "This console", Zh: "本控制台"},
		"status.address":     {En: "Address", Zh: "地址"},
		"status.pid":         {En: "Process", Zh: "进程"},
		"status.hosting":     {En: "Also serves", Zh: "同时提供"},
		"status.hostingNone": {En: "Nothing else: agents reach flows through a separate rpa serve or rpa connect.", Zh: "无：智能体通过单独的 rpa serve 或 rpa connect 访问流程。"},
		"status.browsers":    {En: "Browsers for runs", Zh: "运行使用的浏览器"},
		"status.browserDef":  {En: "Chromium (default)", Zh: "Chromium（默认）"},
		"status.consoles":    {En: "Consoles open on this computer", Zh: "本机打开的控制台"},
		"status.consolesNo":  {En: "No console has a page open (questions go to the desktop dialog).", Zh: "没有控制台页面处于打开状态（问题会转到桌面对话框）。"},
		"status.program":     {En: "Program", Zh: "程序"},
		"status.servers":     {En: "Processes serving flows to agents", Zh: "为智能体提供流程的进程"},
		"status.serversNo":   {En: "No rpa serve or rpa connect is running on this computer's rpa folder.", Zh: "本机的 rpa 文件夹上没有运行 rpa serve 或 rpa connect。"},
		"status.serves":      {En: "Serves", Zh: "提供"},
		"status.gateway":     {En: "Gateway", Zh: "网关"},
		"status.gwState":     {En: "%s (%s)", Zh: "%s（%s）"},
		"status.since":       {En: "Since", Zh: "开始于"},
		"status.profiles":    {En: "Browser profiles", Zh: "浏览器配置"},
		"status.profilesNo":  {En: "No browser profile yet.", Zh: "还没有浏览器配置。"},
		"status.profile":     {En: "Profile", Zh: "配置"},
		"status.owner":       {En: "Used by", Zh: "使用者"},
		"status.free":        {En: "free", Zh: "空闲"},
		"status.self":        {En: "this console (pid %d)", Zh: "本控制台（进程 %d）"},
		"status.other":       {En: "%s (pid %d)", Zh: "%s（进程 %d）"},
		"status.browser":     {En: "Browser", Zh: "浏览器"},
		"status.running":     {En: "running (pid %s)", Zh: "运行中（进程 %s）"},
		"status.notRunning":  {En: "not running", Zh: "未运行"},
		"status.unknown":     {En: "unknown on this system", Zh: "此系统上无法得知"},
		"status.stop":        {En: "Stop the browser of %s", Zh: "停止 %s 的浏览器"},
		"status.stopped":     {En: "The browser of %s was stopped; its owner starts a fresh one on its next run.", Zh: "%s 的浏览器已停止；其所属进程会在下次运行时启动新的浏览器。"},
		"status.notStopped":  {En: "No browser was running on %s.", Zh: "%s 上没有正在运行的浏览器。"},
		"status.stopFailed":  {En: "The browser of %s could not be stopped: %s", Zh: "无法停止 %s 的浏览器：%s"},
		"status.temp":        {En: "temporary (%s)", Zh: "临时（%s）"},
		"status.badProfile":  {En: "There is no profile %s.", Zh: "没有配置 %s。"},
		"status.stopCol":     {En: "Stop", Zh: "停止"},
		"status.stopHint":    {En: "Stop ends the browser cleanly; a run using it at that moment fails.", Zh: "停止会正常关闭浏览器；此刻正在使用它的运行会失败。"},
	})
	Handle("GET /status", statusPage)
	Handle("POST /status/stop", statusStop)
}

// StopGrace is how long Stop waits for a browser to exit after SIGTERM
// before it kills the browser's process group.
const StopGrace = 10 * time.Second

// profileRow is one browser profile folder of $RPA_HOME.
type profileRow struct {
	// Key names it in the Stop form: "profiles/ID" or "tmp/NAME".
	Key   string
	Label string
	Dir   string
	Owner string // who holds its lock ("" free)
	// Browser says whether Chromium runs on it; PIDs are its main processes.
	Browser string
	PIDs    []int
	CanStop bool
}

// profileDirs lists $RPA_HOME/profiles/* and $RPA_HOME/tmp/* (folders).
func profileDirs(home string) []string {
	var out []string
	for _, sub := range []string{"profiles", "tmp"} {
		ents, err := os.ReadDir(filepath.Join(home, sub))
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				out = append(out, sub+"/"+e.Name())
			}
		}
	}
	sort.Strings(out)
	return out
}

// lockOwner is the pid holding dir's rpa.lock, 0 when none is alive.
func lockOwner(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, profiles.LockFileName))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || !localctl.Alive(pid) {
		return 0
	}
	return pid
}

func (s *Server) home() string {
	if h := s.Home(); h != "" {
		return h
	}
	return home.Dir()
}

func (s *Server) profileRows(r *http.Request) []profileRow {
	var rows []profileRow
	for _, key := range profileDirs(s.home()) {
		dir := filepath.Join(s.home(), filepath.FromSlash(key))
		sub, name, _ := strings.Cut(key, "/")
		row := profileRow{Key: key, Label: name, Dir: dir}
		if sub == "tmp" {
			row.Label = s.T(r, "status.temp", name)
		}
		switch pid := lockOwner(dir); {
		case pid == 0:
			row.Owner = s.T(r, "status.free")
		case pid == os.Getpid():
			row.Owner = s.T(r, "status.self", pid)
		default:
			row.Owner = s.T(r, "status.other", processName(pid), pid)
		}
		pids, err := browserPIDs(dir)
		switch {
		case errors.Is(err, errors.ErrUnsupported):
			row.Browser = s.T(r, "status.unknown")
		case len(pids) == 0:
			row.Browser = s.T(r, "status.notRunning")
		default:
			var ps []string
			for _, p := range pids {
				ps = append(ps, strconv.Itoa(p))
			}
			row.Browser = s.T(r, "status.running", strings.Join(ps, ", "))
			row.PIDs, row.CanStop = pids, true
		}
		rows = append(rows, row)
	}
	return rows
}

// consoleRow is one registered console.
type consoleRow struct {
	PID          int
	Program      string
	Since        string
	Self         bool
	PIDText      string
	ProgramLabel string
}

// serverRow is one serving process.
type serverRow struct {
	PID     int
	Program string
	Serves  []string
	Gateway string
	Since   string
}

// statusPage shows the console, the registered consoles and the profiles.
func statusPage(s *Server, w http.ResponseWriter, r *http.Request) {
	o := s.Options()
	data := map[string]any{"Addr": s.Addr(), "PID": os.Getpid(), "Hosting": o.Hosting, "Browsers": o.Browsers,
		"Profiles": s.profileRows(r), "StopGrace": StopGrace.String()}
	if data["Addr"] == "" {
		data["Addr"] = r.Host
	}
	ents, _ := localctl.List(s.home(), localctl.KindConsole)
	var cons []consoleRow
	for _, e := range ents {
		cons = append(cons, consoleRow{PID: e.PID, Program: e.Program, Since: e.Started.Local().Format("2006-01-02 15:04:05"), Self: e.PID == os.Getpid()})
	}
	data["Consoles"] = cons
	srvs, _ := localctl.List(s.home(), localctl.KindServe)
	var servers []serverRow
	for _, e := range srvs {
		row := serverRow{PID: e.PID, Program: e.Program, Serves: e.Serves, Since: e.Started.Local().Format("2006-01-02 15:04:05")}
		if e.Gateway != "" {
			row.Gateway = s.T(r, "status.gwState", e.Gateway, e.GatewayState)
		}
		servers = append(servers, row)
	}
	data["Servers"] = servers
	switch m := r.URL.Query(); m.Get("m") {
	case "stopped":
		data["Flash"] = s.T(r, "status.stopped", m.Get("p"))
	case "none":
		data["Flash"] = s.T(r, "status.notStopped", m.Get("p"))
	}
	s.Render(w, r, "status", "nav.status", data)
}

// statusStop stops the browser running on the profile named by the form's
// "profile" (a key of the page: profiles/ID or tmp/NAME).
func statusStop(s *Server, w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	key := r.FormValue("profile")
	sub, name, ok := strings.Cut(key, "/")
	if !ok || (sub != "profiles" && sub != "tmp") || profiles.ValidID(name) != nil {
		s.RenderError(w, r, http.StatusBadRequest, "status.badProfile", key)
		return
	}
	dir := filepath.Join(s.home(), sub, name)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		s.RenderError(w, r, http.StatusNotFound, "status.badProfile", key)
		return
	}
	n, err := stopBrowsers(dir, StopGrace)
	if err != nil {
		s.RenderError(w, r, http.StatusInternalServerError, "status.stopFailed", key, err.Error())
		return
	}
	s.Logf("ui: status: stopped %d browser process(es) of profile %s", n, key)
	m := "stopped"
	if n == 0 {
		m = "none"
	}
	http.Redirect(w, r, "/status?"+url.Values{"m": {m}, "p": {key}}.Encode(), http.StatusSeeOther)
}
