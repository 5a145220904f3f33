package ui

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/msg"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/localrun"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

// The step debugger of the editor (static/debug.js). Debug runs the flow as saved (the draft or
// the file the editor shows) with localrun, as `rpa run` does: a headless browser of its own on
// the flow's profile (`defaults profile:`, else a temporary one), the run recorded in the run
// store with caller "debug". interp's step hook (interp.Options.StepHook) pauses the run before
// a statement at a breakpoint (a line of the file), or before the next one after Step; paused,
// the page gets the statement, its resolved arguments and the scopes (secrets *** by interp)
// and a picture of the tab (masked as the run's screenshots are).
//
// Routes (behind the console's checks, like every other):
//
//	POST /api/debug                  {file, args: {NAME: text}, breakpoints: [line]} → {id}
//	GET  /api/debug/{id}/events      server-sent events "paused", "resumed", "done"
//	POST /api/debug/{id}/{cmd}       step, continue, stop; breakpoints ({breakpoints: [line]})
//	GET  /api/debug/{id}/shot/{n}    the picture of pause n (PNG)
//
// A session ends with its run: at Stop, when the page's event stream closes (the person left the
// page), when no page watches it within debugWatchWait of its start, or when the console
// closes; then its browser is closed. One debug run per profile at a time: a second Debug of the
// same profile is refused (409) while the first runs.

func init() {
	RegisterText(map[string]Text{
		"debug.button":      {En: "Debug", Zh: "调试"},
		"debug.title":       {En: "Debugger", Zh: "调试器"},
		"debug.step":        {En: "Step", Zh: "单步"},
		"debug.continue":    {En: "Continue", Zh: "继续"},
		"debug.stop":        {En: "Stop", Zh: "停止"},
		"debug.vars":        {En: "Variables", Zh: "变量"},
		"debug.picture":     {En: "The page", Zh: "页面"},
		"debug.nopicture":   {En: "No tab is open yet.", Zh: "还没有打开标签页。"},
		"debug.shotfailed":  {En: "The page could not be pictured (it was changing).", Zh: "无法截取页面（页面正在变化）。"},
		"debug.shot_alt":    {En: "The page before line %s", Zh: "第 %s 行之前的页面"},
		"debug.bps":         {En: "Breakpoints", Zh: "断点"},
		"debug.bps_hint":    {En: "Click a line number, or press F9 in the text, to set or clear a breakpoint. Debug stops at the first breakpoint (at the first line when there is none).", Zh: "点击行号，或在文本中按 F9，可设置或清除断点。调试会停在第一个断点（没有断点时停在第一行）。"},
		"debug.nobps":       {En: "No breakpoint.", Zh: "没有断点。"},
		"debug.bp_remove":   {En: "Remove the breakpoint at line %s", Zh: "删除第 %s 行的断点"},
		"debug.args":        {En: "Debug %s: arguments", Zh: "调试 %s：参数"},
		"debug.start":       {En: "Start debugging", Zh: "开始调试"},
		"debug.cancel":      {En: "Cancel", Zh: "取消"},
		"debug.starting":    {En: "Starting the browser…", Zh: "正在启动浏览器……"},
		"debug.running":     {En: "Running…", Zh: "运行中……"},
		"debug.paused":      {En: "Paused before line %s: %s", Zh: "暂停在第 %s 行之前：%s"},
		"debug.done_ok":     {En: "The run ended: ok.", Zh: "运行结束：成功。"},
		"debug.done_failed": {En: "The run ended: failed at line %s: %s", Zh: "运行结束：在第 %s 行失败：%s"},
		"debug.done_stop":   {En: "The run was stopped.", Zh: "运行已停止。"},
		"debug.done_error":  {En: "The run could not start: %s", Zh: "运行未能启动：%s"},
		"debug.record":      {En: "Run record", Zh: "运行记录"},
		"debug.save_first":  {En: "Save first: Debug runs the flow as saved.", Zh: "请先保存：调试运行的是已保存的流程。"},
		"debug.scope":       {En: "%s (%s)", Zh: "%s（%s）"},
		"debug.s_params":    {En: "params", Zh: "参数"},
		"debug.s_flow":      {En: "flow", Zh: "流程"},
		"debug.s_block":     {En: "block", Zh: "代码块"},
		"debug.broken":      {En: "%s does not load: fix its problems first", Zh: "%s 无法加载：请先修正其中的问题"},
		"debug.busy":        {En: "A debug run of profile %s is going on (%s): stop it first", Zh: "配置 %s 正在进行调试运行（%s）：请先停止它"},
		"debug.inuse":       {En: "profile %s is in use: a run of this console, its warm browser or another rpa process holds it; try again once it is free (a served profile's browser closes after it was idle)", Zh: "配置 %s 正在使用中：本控制台的运行、它保持的浏览器或另一个 rpa 进程占用了它；请在它空闲后再试（服务中的配置的浏览器在闲置一段时间后会关闭）"},
		"debug.noargs":      {En: "the arguments: %s", Zh: "参数：%s"},
		"debug.gone":        {En: "no such debug run (it ended)", Zh: "没有这个调试运行（已结束）"},
		"debug.badcmd":      {En: "unknown command %q: want step, continue, stop or breakpoints", Zh: "未知命令 %q：应为 step、continue、stop 或 breakpoints"},
	})
	Handle("POST /api/debug", debugStart)
	Handle("GET /api/debug/{id}/events", debugEvents)
	Handle("POST /api/debug/{id}/{cmd}", debugCommand)
	Handle("GET /api/debug/{id}/shot/{n}", debugShot)
}

// debugWatchWait is how long a debug run waits for its page's event stream before it stops
// (the page that started it died before it connected).
const debugWatchWait = 30 * time.Second

// debugShots is how many pictures a session keeps (the newest).
const debugShots = 20

// DebugEvent is one server-sent event of a debug run (the console's own page protocol).
type DebugEvent struct {
	// Seq numbers the session's events from 1 (the SSE id).
	Seq int `json:"seq"`
	// Kind is "paused", "resumed" or "done".
	Kind string `json:"kind"`
	// File, Line, Col, Flow, Depth, Stmt (the statement's keyword), Action and Args (masked) say
	// where the run paused (interp.Step).
	File   string          `json:"file,omitempty"`
	Line   int             `json:"line,omitempty"`
	Col    int             `json:"col,omitempty"`
	Flow   string          `json:"flow,omitempty"`
	Depth  int             `json:"depth,omitempty"`
	Stmt   string          `json:"stmt,omitempty"`
	Action string          `json:"action,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`
	// Scopes are interp's scopes at the pause, innermost first, values masked.
	Scopes json.RawMessage `json:"scopes,omitempty"`
	// Shot is the number of the pause's picture (GET .../shot/N), 0 when there is none; NoShot
	// is "failed" when the page could not be pictured (else there was no tab yet).
	Shot   int    `json:"shot,omitempty"`
	NoShot string `json:"noShot,omitempty"`
	// Status is the run's end (done): ok, failed, cancelled or error (it did not start).
	Status string `json:"status,omitempty"`
	// Error is why it failed or did not start (masked), ErrorLine its line.
	Error     string `json:"error,omitempty"`
	ErrorLine int    `json:"errorLine,omitempty"`
	// RunID is the run store's ID ("" when not recorded).
	RunID string `json:"runId,omitempty"`
	// AtMs is when the event happened, in ms since the session started.
	AtMs int64 `json:"atMs"`
}

// debugSession is one Debug of one flow.
type debugSession struct {
	id, file, path, profile string
	started                 time.Time
	cancel                  context.CancelFunc
	resume                  chan bool // true: step; false: continue
	ended                   chan struct{}

	mu       sync.Mutex
	bps      map[int]bool
	stepping bool // pause before the next statement
	paused   bool
	events   []DebugEvent
	wake     chan struct{}
	shots    map[int][]byte
	nshot    int
	watchers int
	watched  bool
	done     bool

	// While paused: the run's tab and its secrets test (interp.Step.Page, HoldsSecret), lent to
	// the element picker (openDebugPicker); lent ends the picker. pageMu is held while the page
	// is being lent and while it is taken back, so the run goes on only once no picker acts on
	// its page.
	pageMu sync.Mutex
	page   drivers.Page
	holds  drivers.HoldsSecret
	lent   func()
}

type debugKey struct{}

// debugTable holds the console's debug sessions (the live ones and the last finished ones).
type debugTable struct {
	mu sync.Mutex
	m  map[string]*debugSession
	wg sync.WaitGroup
}

func (s *Server) debugs() *debugTable {
	return s.Value(debugKey{}, func() any { return &debugTable{m: map[string]*debugSession{}} }).(*debugTable)
}

func (s *Server) debugSession(id string) (*debugSession, bool) {
	t := s.debugs()
	t.mu.Lock()
	defer t.mu.Unlock()
	d, ok := t.m[id]
	return d, ok
}

// closeDebug stops every debug run and waits for their browsers to close (Server.Close).
func (s *Server) closeDebug() {
	t := s.debugs()
	t.mu.Lock()
	for _, d := range t.m {
		d.cancel()
	}
	t.mu.Unlock()
	t.wg.Wait()
}

// debugRequest is the body of POST /api/debug.
type debugRequest struct {
	// File is the flow file's name in the folder.
	File string `json:"file"`
	// Args are the arguments as typed (`rpa run --arg` forms); an empty one is left out.
	Args textMap `json:"args"`
	// Breakpoints are lines of the file.
	Breakpoints []int `json:"breakpoints"`
}

// textMap is a JSON object of texts whose wrong value is named with its
// key: encoding/json names only the map ("args") for a map[string]string,
// and the console answers `field "args.password" is a JSON array where a
// string belongs` (bodyProblem).
type textMap map[string]string

// UnmarshalJSON decodes an object of texts; a value that is not a text is
// a *json.UnmarshalTypeError whose Field is its key (encoding/json puts
// the path of the map before it).
func (m *textMap) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(textMap, len(raw))
	for k, v := range raw {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				te.Field = k
				return te
			}
			return err
		}
		out[k] = s
	}
	*m = out
	return nil
}

// debugStart starts a debug run of the saved flow: {id}.
func debugStart(s *Server, w http.ResponseWriter, r *http.Request) {
	var req debugRequest
	if !s.readJSON(w, r, &req) {
		return
	}
	e, ok := s.editableFor(w, r, req.File)
	if !ok {
		return
	}
	f, ds := lang.LoadAt(e.Info.Path, e.Src)
	if f == nil || ds.HasErrors() {
		s.apiErrorFor(w, r, http.StatusUnprocessableEntity, s.T(r, "debug.broken", req.File))
		return
	}
	kv := map[string]string{}
	for k, v := range req.Args {
		if v != "" {
			kv[k] = v
		}
	}
	args, err := f.ParseArgs(kv)
	if err != nil {
		s.apiErrorFor(w, r, http.StatusBadRequest, s.T(r, "debug.noargs", s.errText(r, err)))
		return
	}
	d := &debugSession{id: randomID(), file: req.File, path: f.Path, profile: f.Profile(), started: time.Now(),
		resume: make(chan bool, 1), ended: make(chan struct{}), bps: map[int]bool{}, wake: make(chan struct{}), shots: map[int][]byte{}}
	for _, l := range req.Breakpoints {
		d.bps[l] = true
	}
	d.stepping = len(d.bps) == 0 // no breakpoint: stop at the first line
	t := s.debugs()
	t.mu.Lock()
	for _, o := range t.m {
		if d.profile != "" && o.profile == d.profile && !o.isDone() {
			t.mu.Unlock()
			s.apiErrorFor(w, r, http.StatusConflict, s.T(r, "debug.busy", d.profile, o.file))
			return
		}
	}
	t.m[d.id] = d
	t.prune()
	ctx, cancel := context.WithCancel(s.runCtx)
	d.cancel = cancel
	t.wg.Add(1)
	t.mu.Unlock()

	lg := s.Lang(r)
	s.Logf("ui: debug %s started (%s)", d.id, req.File) // never the arguments
	go func() {
		defer t.wg.Done()
		defer cancel()
		watch := time.AfterFunc(debugWatchWait, func() {
			d.mu.Lock()
			unwatched := !d.watched
			d.mu.Unlock()
			if unwatched {
				cancel()
			}
		})
		defer watch.Stop()
		flows := func(name string) (*lang.Flow, bool) {
			fl := s.flowsCache().scan().loaded[name]
			return fl, fl != nil
		}
		// ProfileWait: a profile a server keeps for an idle browser is handed over
		out, err := localrun.Run(ctx, f, localrun.Options{Args: args, Flows: flows, StepHook: d.hook, ProfileWait: profiles.DefaultClaimWait,
			Caller: runs.Caller{Kind: runs.CallerDebug}, Warn: func(msg string) { s.Logf("ui: debug %s: %s", d.id, msg) }})
		ev := DebugEvent{Kind: "done"}
		switch {
		case err != nil:
			ev.Status, ev.Error = "error", msg.Localize(lg, err.Error())
			var ie *profiles.InUseError
			if errors.As(err, &ie) {
				ev.Error = Translate(lg, "debug.inuse", ie.Profile)
			}
			if ctx.Err() != nil {
				ev.Status, ev.Error = "cancelled", ""
			}
		case out.Result.Success:
			ev.Status, ev.RunID = "ok", out.RunID
		default:
			ev.Status, ev.RunID = "failed", out.RunID
			if out.Cancelled || ctx.Err() != nil {
				ev.Status = "cancelled"
			}
			if re := out.Result.Error; re != nil {
				ev.Error, ev.ErrorLine = msg.Localize(lg, re.Message), re.Line
			}
		}
		d.finish(ev)
		s.Logf("ui: debug %s ended: %s", d.id, ev.Status)
	}()
	s.JSON(w, http.StatusOK, map[string]any{"id": d.id, "profile": d.profile})
}

// prune forgets finished sessions beyond the newest few; t.mu is held.
func (t *debugTable) prune() {
	var old []*debugSession
	for _, d := range t.m {
		if d.isDone() {
			old = append(old, d)
		}
	}
	sort.Slice(old, func(i, j int) bool { return old[i].started.Before(old[j].started) })
	for i := 0; i+5 < len(old); i++ {
		delete(t.m, old[i].id)
	}
}

func (d *debugSession) isDone() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.done
}

// add appends an event and wakes the watchers; d.mu is held.
func (d *debugSession) addLocked(ev DebugEvent) {
	ev.Seq = len(d.events) + 1
	ev.AtMs = time.Since(d.started).Milliseconds()
	d.events = append(d.events, ev)
	close(d.wake)
	d.wake = make(chan struct{})
}

// finish records the run's end.
func (d *debugSession) finish(ev DebugEvent) {
	d.mu.Lock()
	d.done, d.paused = true, false
	d.addLocked(ev)
	d.mu.Unlock()
	close(d.ended)
}

// hook is the run's interp.StepHook: before a statement at a breakpoint of the file, or any
// statement after Step, it records the pause (statement, scopes, picture) and waits for Step,
// Continue or the end of the run.
func (d *debugSession) hook(ctx context.Context, st *interp.Step) error {
	if st.Phase != interp.StepBefore {
		return nil
	}
	d.mu.Lock()
	stop := d.stepping || (d.bps[st.Line] && samePath(st.File, d.path))
	d.mu.Unlock()
	if !stop {
		return nil
	}
	ev := DebugEvent{Kind: "paused", File: filepath.Base(st.File), Line: st.Line, Col: st.Col, Flow: st.Flow, Depth: st.Depth,
		Stmt: st.Kind, Action: st.Action}
	// Encoded now: the values may change once the run goes on.
	ev.Scopes, _ = json.Marshal(st.Scopes())
	if st.Args != nil {
		ev.Args, _ = json.Marshal(st.Args)
	}
	png, perr := debugPicture(ctx, st)
	d.mu.Lock()
	if perr != nil {
		ev.NoShot = "failed"
	}
	if png != nil {
		d.nshot++
		d.shots[d.nshot] = png
		delete(d.shots, d.nshot-debugShots)
		ev.Shot = d.nshot
	}
	d.paused = true
	d.page, d.holds = st.Page(), st.HoldsSecret()
	d.addLocked(ev)
	d.mu.Unlock()
	select {
	case step := <-d.resume:
		d.reclaim()
		d.mu.Lock()
		d.stepping = step
		d.addLocked(DebugEvent{Kind: "resumed"})
		d.mu.Unlock()
		return nil
	case <-ctx.Done():
		d.reclaim()
		return ctx.Err()
	}
}

// reclaim takes the paused page back from the element picker before the run goes on: the
// picker on it ends (its screencast stopped, the fields it masked given their values back).
func (d *debugSession) reclaim() {
	d.pageMu.Lock()
	defer d.pageMu.Unlock()
	d.mu.Lock()
	end := d.lent
	d.page, d.holds, d.lent = nil, nil, nil
	d.mu.Unlock()
	if end != nil {
		end()
	}
}

// debugPicture is the paused step's picture (nil: no tab yet), tried again a few times while
// the page cannot be pictured (it is navigating: a click that submits a form, then the pause).
func debugPicture(ctx context.Context, st *interp.Step) ([]byte, error) {
	var err error
	for try := 0; try < 4; try++ {
		if try > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Duration(try) * 250 * time.Millisecond):
			}
		}
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		var png []byte
		png, err = st.Picture(pctx)
		cancel()
		if err == nil {
			return png, nil
		}
	}
	return nil, err
}

// samePath reports whether a and b name one file.
func samePath(a, b string) bool {
	if a == b {
		return true
	}
	x, err1 := filepath.Abs(a)
	y, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && x == y
}

// command applies step or continue: a paused run goes on; Step while it runs pauses it before
// its next statement.
func (d *debugSession) command(step bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.paused {
		d.paused = false
		select {
		case d.resume <- step:
		default:
		}
		return
	}
	if step {
		d.stepping = true
	}
}

// debugCommand is POST /api/debug/{id}/{cmd}.
func debugCommand(s *Server, w http.ResponseWriter, r *http.Request) {
	d, ok := s.debugSession(r.PathValue("id"))
	if !ok {
		s.apiErrorFor(w, r, http.StatusNotFound, s.T(r, "debug.gone"))
		return
	}
	switch cmd := r.PathValue("cmd"); cmd {
	case "step", "continue":
		d.command(cmd == "step")
	case "stop":
		d.cancel()
		if r.URL.Query().Get("wait") == "1" {
			// The run has ended and its browser is closed when this answers (tests, scripts).
			select {
			case <-d.ended:
			case <-r.Context().Done():
				return
			}
		}
	case "breakpoints":
		var req struct {
			Breakpoints []int `json:"breakpoints"`
		}
		if !s.readJSON(w, r, &req) {
			return
		}
		d.mu.Lock()
		d.bps = map[int]bool{}
		for _, l := range req.Breakpoints {
			d.bps[l] = true
		}
		d.mu.Unlock()
	default:
		s.apiErrorFor(w, r, http.StatusNotFound, s.T(r, "debug.badcmd", cmd))
		return
	}
	s.JSON(w, http.StatusOK, map[string]any{"ok": true})
}

// debugShot is GET /api/debug/{id}/shot/{n}: the picture of pause n (only the newest
// debugShots are kept).
func debugShot(s *Server, w http.ResponseWriter, r *http.Request) {
	d, ok := s.debugSession(r.PathValue("id"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	n, _ := strconv.Atoi(r.PathValue("n"))
	d.mu.Lock()
	png := d.shots[n]
	d.mu.Unlock()
	if png == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(png)
}

// debugEvents streams a session's events (text/event-stream) from Last-Event-ID (or ?after=).
// The session stops when its last stream closes: the person left the page.
func debugEvents(s *Server, w http.ResponseWriter, r *http.Request) {
	d, ok := s.debugSession(r.PathValue("id"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	d.mu.Lock()
	d.watchers++
	d.watched = true
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.watchers--
		left := d.watchers == 0 && !d.done
		d.mu.Unlock()
		if left {
			d.cancel() // the page is gone: so is its run
		}
	}()
	s.stream(w, r, func(after int) ([]sseEvent, <-chan struct{}) {
		d.mu.Lock()
		defer d.mu.Unlock()
		var out []sseEvent
		for _, ev := range d.events[min(after, len(d.events)):] {
			out = append(out, sseEvent{seq: ev.Seq, name: ev.Kind, data: ev, last: ev.Kind == "done"})
		}
		return out, d.wake
	})
}
