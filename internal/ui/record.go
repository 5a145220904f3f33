package ui

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/internal/atomicfile"
	"github.com/rpa-dev/rpa/internal/authoring/importer"
	"github.com/rpa-dev/rpa/internal/authoring/recorder"
	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/format"
)

// The Record page: `rpa record` from the console. It opens a visible
// Chromium on the person's desktop at a URL (package recorder), records
// until the window is closed or Stop is pressed, writes the flow into the
// console's folder (formatted, checked) and links to the publish dialog of
// the flows page (the editor with ?publish). One recording at a time per
// console. Without a display it says so and offers nothing that would fail.

func init() {
	RegisterPage(Page{ID: "record", Path: "/record", Order: 20, Title: "nav.record"})
	RegisterText(map[string]Text{
		"nav.record":        {En: "Record", Zh: "录制"},
		"record.intro":      {En: "Opens a browser window on this desktop at the address; what you do there becomes a flow. Close the window or press Stop when you are done.", Zh: "在本机桌面打开一个浏览器窗口并访问该地址；您在其中的操作会被录制成流程。完成后关闭窗口或点击停止。"},
		"record.url":        {En: "Start address", Zh: "起始地址"},
		"record.name":       {En: "Flow name", Zh: "流程名称"},
		"record.nameHint":   {En: "Lower-case letters, digits and _; it is saved as NAME.flow in the console's flows folder.", Zh: "小写字母、数字和 _；保存为控制台流程文件夹中的 NAME.flow。"},
		"record.profile":    {En: "Browser profile", Zh: "浏览器配置"},
		"record.noProfile":  {En: "A fresh temporary profile", Zh: "全新的临时配置"},
		"record.start":      {En: "Start recording", Zh: "开始录制"},
		"record.stop":       {En: "Stop recording", Zh: "停止录制"},
		"record.active":     {En: "Recording %s into %s since %s. Close the browser window or press Stop recording.", Zh: "自 %[3]s 起正在录制 %[1]s，保存到 %[2]s。请关闭浏览器窗口或点击停止录制。"},
		"record.noDisplay":  {En: "There is no display to open a browser window on here (DISPLAY and WAYLAND_DISPLAY are unset): start the console from the desktop session, or record with `rpa record URL -o FILE.flow --headless` and drive that browser over the DevTools address it prints.", Zh: "这里没有可打开浏览器窗口的显示环境（未设置 DISPLAY 和 WAYLAND_DISPLAY）：请在桌面会话中启动控制台，或使用 `rpa record URL -o FILE.flow --headless` 录制，并通过它打印的 DevTools 地址操作该浏览器。"},
		"record.badURL":     {En: "The start address must be an http or https address.", Zh: "起始地址必须是 http 或 https 地址。"},
		"record.badName":    {En: "The flow name must hold a letter.", Zh: "流程名称必须包含字母。"},
		"record.exists":     {En: "%s already exists in the folder; choose another name.", Zh: "文件夹中已有 %s；请换一个名称。"},
		"record.busy":       {En: "A recording is already running; stop it first.", Zh: "已有录制正在进行；请先停止它。"},
		"record.badProfile": {En: "There is no profile %s.", Zh: "没有配置 %s。"},
		"record.failed":     {En: "The recording failed: %s", Zh: "录制失败：%s"},
		"record.done":       {En: "Recorded %s: %d steps.", Zh: "已录制 %s：%d 个步骤。"},
		"record.publish":    {En: "Open %s in the publish dialog", Zh: "在发布对话框中打开 %s"},
		"record.warnings":   {En: "Notes from the recorder", Zh: "录制器的提示"},
	})
	Handle("GET /record", recordPage)
	Handle("GET /record/state", recordState)
	Handle("POST /record/start", recordStart)
	Handle("POST /record/stop", recordStop)
}

// recordHeadless makes recordings headless (tests: no display needed).
var recordHeadless = false

type recordKey struct{}

// recording is a console's recorder state.
type recording struct {
	mu     sync.Mutex
	active *recSession
	last   *recResult
}

// recSession is the running recording.
type recSession struct {
	URL, Name, File, Path string
	Started               time.Time
	sess                  *recorder.Session
	stop                  chan struct{}
	done                  chan struct{}
}

// recResult is how the last recording ended.
type recResult struct {
	File     string
	Steps    int
	Err      string
	Warnings []string
}

func (s *Server) recording() *recording {
	return s.Value(recordKey{}, func() any { return &recording{} }).(*recording)
}

// canRecord is "" when a browser window can open here, else why not (a
// text key).
func canRecord() string {
	if recordHeadless || hitl.HasDisplay() {
		return ""
	}
	return "record.noDisplay"
}

// recordPage shows the form, the running recording or the last result.
func recordPage(s *Server, w http.ResponseWriter, r *http.Request) {
	rec := s.recording()
	rec.mu.Lock()
	act, last := rec.active, rec.last
	rec.mu.Unlock()
	data := map[string]any{"NameHint": s.T(r, "record.nameHint"), "URL": r.URL.Query().Get("url"), "Name": r.URL.Query().Get("name")}
	if k := canRecord(); k != "" {
		data["NoDisplay"] = s.T(r, k)
	}
	if k := r.URL.Query().Get("e"); k != "" && strings.HasPrefix(k, "record.") {
		data["Problem"] = s.T(r, k, r.URL.Query().Get("a"))
	}
	var profiles []string
	for _, key := range profileDirs(s.home()) {
		if sub, name, _ := strings.Cut(key, "/"); sub == "profiles" {
			profiles = append(profiles, name)
		}
	}
	data["Profiles"] = profiles
	if act != nil {
		data["Active"] = s.T(r, "record.active", act.URL, act.File, act.Started.Local().Format("15:04:05"))
	}
	if last != nil && act == nil {
		if last.Err != "" {
			data["Failed"] = s.T(r, "record.failed", last.Err)
		} else {
			data["Done"] = s.T(r, "record.done", last.File, last.Steps)
			data["Publish"] = "/flows/" + url.PathEscape(last.File) + "/edit?publish=1"
			data["PublishText"] = s.T(r, "record.publish", last.File)
		}
		data["Warnings"] = last.Warnings
	}
	s.Render(w, r, "record", "nav.record", data)
}

// recordState is {"active": bool}: the page polls it while recording.
func recordState(s *Server, w http.ResponseWriter, r *http.Request) {
	rec := s.recording()
	rec.mu.Lock()
	active := rec.active != nil
	rec.mu.Unlock()
	s.JSON(w, http.StatusOK, map[string]bool{"active": active})
}

// back sends the person to the Record page with a problem (a text key and
// its argument) and the form's values.
func recordBack(w http.ResponseWriter, r *http.Request, key, arg string) {
	v := url.Values{"e": {key}, "url": {r.PostForm.Get("url")}, "name": {r.PostForm.Get("name")}}
	if arg != "" {
		v.Set("a", arg)
	}
	http.Redirect(w, r, "/record?"+v.Encode(), http.StatusSeeOther)
}

// recordStart starts recording the form's url into the flow name.
func recordStart(s *Server, w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	if k := canRecord(); k != "" {
		recordBack(w, r, k, "")
		return
	}
	u, err := url.Parse(strings.TrimSpace(r.PostForm.Get("url")))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		recordBack(w, r, "record.badURL", "")
		return
	}
	name := importer.FlowName(r.PostForm.Get("name"))
	if name == "" {
		recordBack(w, r, "record.badName", "")
		return
	}
	file := name + ".flow"
	path := filepath.Join(s.FlowsDir(), file)
	if _, err := os.Stat(path); err == nil {
		recordBack(w, r, "record.exists", file)
		return
	}
	opts := recorder.Options{URL: u.String(), Name: name, Headless: recordHeadless}
	if p := r.PostForm.Get("profile"); p != "" {
		if profiles.ValidID(p) != nil {
			recordBack(w, r, "record.badProfile", p)
			return
		}
		opts.UserDataDir = filepath.Join(s.home(), "profiles", p)
		if st, err := os.Stat(opts.UserDataDir); err != nil || !st.IsDir() {
			recordBack(w, r, "record.badProfile", p)
			return
		}
	}
	rec := s.recording()
	rec.mu.Lock()
	if rec.active != nil {
		rec.mu.Unlock()
		recordBack(w, r, "record.busy", "")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	sess, err := recorder.Start(ctx, opts)
	cancel()
	if err != nil {
		rec.last = &recResult{File: file, Err: err.Error()}
		rec.mu.Unlock()
		http.Redirect(w, r, "/record", http.StatusSeeOther)
		return
	}
	act := &recSession{URL: opts.URL, Name: name, File: file, Path: path, Started: time.Now(), sess: sess,
		stop: make(chan struct{}), done: make(chan struct{})}
	rec.active, rec.last = act, nil
	rec.mu.Unlock()
	s.Logf("ui: record: started %s", file) // never the URL: it may hold a token
	go s.finishRecording(rec, act)
	http.Redirect(w, r, "/record", http.StatusSeeOther)
}

// finishRecording waits for the browser to close or Stop, then writes the
// flow (formatted, loaded back first) and keeps the result.
func (s *Server) finishRecording(rec *recording, act *recSession) {
	defer close(act.done)
	select {
	case <-act.sess.Done():
	case <-act.stop:
	}
	file, ds := act.sess.Stop()
	res := &recResult{File: act.File}
	for _, d := range ds {
		res.Warnings = append(res.Warnings, d.Summary)
	}
	if file != nil {
		res.Steps = len(file.Body)
		text := format.Flow(file)
		if _, lds := lang.Load(act.File, text); lds.HasErrors() {
			res.Err = "the recorded flow does not check: " + lds.Error()
		} else if _, err := os.Stat(act.Path); err == nil {
			res.Err = act.File + " appeared in the folder meanwhile; the recording was not written"
		} else if err := atomicfile.Write(act.Path, text, 0o644); err != nil {
			res.Err = err.Error()
		}
	} else {
		res.Err = "nothing was recorded"
	}
	rec.mu.Lock()
	rec.active, rec.last = nil, res
	rec.mu.Unlock()
	s.Logf("ui: record: %s ended (%d steps)", act.File, res.Steps)
}

// recordStop stops the running recording and waits (a bounded while) for
// its flow to be written.
func recordStop(s *Server, w http.ResponseWriter, r *http.Request) {
	rec := s.recording()
	rec.mu.Lock()
	act := rec.active
	rec.mu.Unlock()
	if act != nil {
		select {
		case <-act.stop:
		default:
			close(act.stop)
		}
		select {
		case <-act.done:
		case <-time.After(30 * time.Second):
		case <-r.Context().Done():
			return
		}
	}
	http.Redirect(w, r, "/record", http.StatusSeeOther)
}
