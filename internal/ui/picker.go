package ui

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/drivers/selectorgen"
	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/msg"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/format"
)

// The element picker of the editor (docs/console.md, "Pick"). Pick opens the flow's first
// `open` address (or one typed) in a browser of its own, on a temporary profile, and lets the
// person point at an element:
//
//   - Without a display (and in tests): a headless page whose live picture (CDP screencast
//     frames, drivers.Screencaster) is shown in the editor's Pick dialog over server-sent
//     events. Moving the pointer over the picture outlines the element under it; a click picks
//     it: the point is mapped to the page's viewport and the element painted there
//     (drivers.ElementPicker.EvalAt, CDP DOM.getNodeForLocation) gets package selectorgen's
//     fallback list, the one `rpa record` writes (each selector checked to match exactly that
//     element, stable ids and names first, positions last).
//   - With a display: a visible window on the desktop where the browser's own highlight follows
//     the pointer (drivers.ElementPicker.Inspect, CDP Overlay inspect mode) and the click picks.
//
// The person chooses one of the selectors and an action; the editor inserts it at the cursor,
// quoted by format.Quote (the console's one quoting path for text from a page). One picker runs
// per console; it ends when its dialog closes, when nobody has watched it for pickerGone, after
// pickerIdle without use, or with the console. The address is checked as an `open` of a served
// flow is (actions.CheckOpenURL; file: only with --allow-files). Nothing typed into the picked
// page, and no address, is logged.

func init() {
	RegisterText(map[string]Text{
		"pick.open":       {En: "Pick", Zh: "拾取"},
		"pick.title":      {En: "Pick an element", Zh: "拾取元素"},
		"pick.intro":      {En: "Opens the page in a browser of its own. Point at an element and click it: its selectors come back here, best first, each one matching only that element.", Zh: "在单独的浏览器中打开页面。指向一个元素并点击：它的选择器会回到这里，最好的排在最前，每个都只匹配该元素。"},
		"pick.url":        {En: "Page address", Zh: "页面地址"},
		"pick.start":      {En: "Open the page", Zh: "打开页面"},
		"pick.close":      {En: "Close the picker", Zh: "关闭拾取器"},
		"pick.picture":    {En: "Live picture of the page: click an element to pick it", Zh: "页面的实时画面：点击一个元素即可拾取"},
		"pick.window":     {En: "The page is open in a browser window on this desktop: click the element there (the element under the pointer is highlighted).", Zh: "页面已在本机桌面的浏览器窗口中打开：请在其中点击元素（指针下的元素会高亮）。"},
		"pick.opening":    {En: "Opening the page…", Zh: "正在打开页面…"},
		"pick.ready":      {En: "Click an element on the picture.", Zh: "请在画面上点击一个元素。"},
		"pick.picking":    {En: "Finding the element's selectors…", Zh: "正在查找该元素的选择器…"},
		"pick.picked":     {En: "Picked %s.", Zh: "已拾取 %s。"},
		"pick.nothing":    {En: "There is no element at that point.", Zh: "该位置没有元素。"},
		"pick.closed":     {En: "The picker closed.", Zh: "拾取器已关闭。"},
		"pick.selectors":  {En: "Selectors, best first", Zh: "选择器（最好的在前）"},
		"pick.action":     {En: "Insert as", Zh: "插入为"},
		"pick.act.sel":    {En: "selector only", Zh: "仅选择器"},
		"pick.act.click":  {En: "click", Zh: "点击"},
		"pick.act.fill":   {En: "fill", Zh: "填写"},
		"pick.act.text":   {En: "read text", Zh: "读取文本"},
		"pick.act.table":  {En: "table", Zh: "表格"},
		"pick.act.wait":   {En: "wait", Zh: "等待"},
		"pick.insert":     {En: "Insert at the cursor", Zh: "插入到光标处"},
		"pick.fallbacks":  {En: "with the other selectors as fallbacks, and the element's name as a comment", Zh: "同时附上其余选择器作为后备，并以注释写明元素名称"},
		"pick.inserted":   {En: "Inserted at line %s.", Zh: "已插入到第 %s 行。"},
		"pick.inFrame":    {En: "The element is inside an iframe: %s", Zh: "该元素位于 iframe 中：%s"},
		"pick.apart":      {En: "This is a frame whose page runs apart from this one (another site, in a browser process of its own): the picker cannot look inside it. Its selector is what a frame statement enters; write the element's selector inside that frame by hand.", Zh: "这是一个框架，其页面与本页面分开运行（另一个网站，在浏览器的独立进程中）：拾取器无法查看其内部。它的选择器可用于 frame 语句进入该框架；框架内元素的选择器请手动填写。"},
		"pick.table":      {En: "As a table: the table around it, %s", Zh: "作为表格：其所在的表格 %s"},
		"pick.noURL":      {En: "The flow opens no address the picker can work out: type the page's address.", Zh: "无法从流程中得出要打开的地址：请输入页面地址。"},
		"pick.badURL":     {En: "The picker cannot open that address: %s", Zh: "拾取器无法打开该地址：%s"},
		"pick.files":      {En: "file: addresses are off for served flows (rpa ui --allow-files enables them)", Zh: "为已发布流程关闭了 file: 地址（使用 rpa ui --allow-files 开启）"},
		"pick.failed":     {En: "The page could not be opened: %s", Zh: "无法打开页面：%s"},
		"pick.gone":       {En: "The picker is not open any more; open it again.", Zh: "拾取器已关闭；请重新打开。"},
		"pick.noPicking":  {En: "This browser cannot pick elements (its driver has no element picking).", Zh: "这个浏览器不能拾取元素（其驱动不支持拾取元素）。"},
		"pick.pickFailed": {En: "The element could not be read: %s", Zh: "无法读取该元素：%s"},
		"pick.badPoint":   {En: "%s: %s is outside the page's picture (0 to %s CSS pixels)", Zh: "%s：%s 超出页面画面（0 到 %s CSS 像素）"},
		"pick.notPaused":  {En: "The debug run is not paused: pick while it is paused, on its page.", Zh: "调试运行未处于暂停状态：请在它暂停时在其页面上拾取。"},
		"pick.onDebug":    {En: "The debug run's page, paused before line %s: click an element on the picture.", Zh: "调试运行的页面（暂停在第 %s 行之前）：请在画面上点击一个元素。"},
	})
	Handle("POST /api/picker/start", pickerStart)
	Handle("GET /api/picker/{id}/frames", pickerFrames)
	Handle("POST /api/picker/{id}/hover", pickerHover)
	Handle("POST /api/picker/{id}/pick", pickerPick)
	Handle("POST /api/picker/{id}/inspect", pickerInspect)
	Handle("POST /api/picker/{id}/close", pickerClose)
}

// Picker limits: the pictures are JPEGs of quality pickerQuality at most pickerFPS a second;
// a picker nobody watches (its dialog closed or its page gone) ends after pickerGone, one
// nobody used (no picture watched, no point asked) after pickerIdle. Variables for tests.
var (
	pickerQuality = 60
	pickerFPS     = 10
	pickerGone    = 15 * time.Second
	pickerIdle    = 10 * time.Minute
	// pickerDriver starts the picker's browsers (drivers/rod; the console uses it only through
	// the drivers interfaces).
	pickerDriver drivers.Driver = rodd.New()
	// pickerWindow says whether the picker opens a visible window (a display is there) rather
	// than a picture in the console.
	pickerWindow = hitl.HasDisplay
	// pickerHeadless keeps the window mode's browser headless (tests: no display).
	pickerHeadless = false
)

type pickerKey struct{}

// pickers is a console's picker state: one picker at a time.
type pickers struct {
	mu  sync.Mutex
	cur *picker
}

func (s *Server) pickers() *pickers {
	return s.Value(pickerKey{}, func() any { return &pickers{} }).(*pickers)
}

// picker is one open picker: its browser, its page and the latest picture.
type picker struct {
	id     string
	file   string
	window bool // a visible window (Inspect), else a picture (Screencast)
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed when the browser is gone

	br         drivers.Browser // nil when the page is a paused debug run's
	pg         drivers.Page
	profileDir string // a temporary profile under $RPA_HOME/tmp ("" on a debug run's page)
	tmpDone    func()
	// debug is the debug run whose paused page the picker shows ("": a browser of its own);
	// unmask gives that page's masked fields their values back (drivers.MaskFields).
	debug  string
	unmask func()
	cast   sync.WaitGroup // the screencast's goroutine

	mu       sync.Mutex
	wake     chan struct{} // closed and replaced at each new frame and at the end
	frame    drivers.ScreenFrame
	seq      int
	viewers  int
	castStop context.CancelFunc
	lastUse  time.Time
	closed   bool
}

// pickerStartRequest is POST /api/picker/start's body.
type pickerStartRequest struct {
	// File is the flow file the editor shows; Text its text now (unsaved edits count).
	File string `json:"file"`
	Text string `json:"text"`
	// URL is the address typed; "" is the flow's first `open` (firstOpenURL).
	URL string `json:"url"`
	// Debug is a debug run of the flow paused now: the picker shows its page (the browser that
	// is signed in, at the paused step) instead of opening URL. "" opens URL.
	Debug string `json:"debug"`
}

// pickerStart opens a picker (closing the console's previous one): {id, url, window}.
func pickerStart(s *Server, w http.ResponseWriter, r *http.Request) {
	var req pickerStartRequest
	if !s.readJSON(w, r, &req) {
		return
	}
	e, ok := s.editableFor(w, r, req.File) // a new flow that is only a draft too
	if !ok {
		return
	}
	fi := e.Info
	if req.Debug != "" {
		p, status, problem := s.openDebugPicker(r, fi.File, req.Debug)
		if p == nil {
			s.apiErrorFor(w, r, status, problem)
			return
		}
		s.JSON(w, http.StatusOK, map[string]any{"id": p.id, "url": "", "window": false, "debug": p.debug})
		return
	}
	u := strings.TrimSpace(req.URL)
	if u == "" {
		u = firstOpenURL(fi.Path, []byte(req.Text))
	}
	if u == "" {
		s.JSON(w, http.StatusUnprocessableEntity, map[string]any{"error": s.T(r, "pick.noURL"), "needURL": true})
		return
	}
	if problem := s.pickURLProblem(r, u); problem != "" {
		s.JSON(w, http.StatusUnprocessableEntity, map[string]any{"error": s.T(r, "pick.badURL", msg.Localize(s.Lang(r), problem)), "needURL": true})
		return
	}
	p, err := s.openPicker(r.Context(), fi.File, u, pickerWindow())
	if err != nil {
		s.apiErrorFor(w, r, http.StatusBadGateway, s.T(r, "pick.failed", s.errText(r, err)))
		return
	}
	s.JSON(w, http.StatusOK, map[string]any{"id": p.id, "url": u, "window": p.window})
}

// pickURLProblem is why the picker must not open u ("" when it may), the checks of an `open`
// of a served flow.
func (s *Server) pickURLProblem(r *http.Request, u string) string {
	if msg := actions.CheckOpenURL(u); msg != "" {
		return msg
	}
	pu, err := url.Parse(strings.TrimSpace(u))
	if err != nil {
		return err.Error()
	}
	if strings.EqualFold(pu.Scheme, "file") && (s.opts.Tools == nil || !s.opts.Tools.AllowsFiles()) {
		return s.T(r, "pick.files")
	}
	return ""
}

// firstOpenURL is the address of the first `open` (or `navigate`) of the flow text src, with
// param defaults put in for the params it names (`open base_url`, `open "{{base}}/login"`),
// or "" when it has none or it depends on something else.
func firstOpenURL(path string, src []byte) string {
	f, _ := lang.Parse(filepath.Base(path), src)
	if f == nil {
		return ""
	}
	defaults := map[string]string{}
	for _, p := range f.Params {
		if sl, ok := p.Default.(*ast.StringLit); ok {
			if v, ok := sl.Value(); ok {
				defaults[p.Name] = v
			}
		}
	}
	found, out := false, ""
	ast.Walk(f, func(n ast.Node) bool {
		if found {
			return false
		}
		a, ok := n.(*ast.ActionStmt)
		if !ok || (a.Action != "open" && a.Action != "navigate") || len(a.Args) == 0 {
			return true
		}
		found = true
		out = staticString(a.Args[0], defaults)
		return false
	})
	return out
}

// staticString is the value of e when it is a string literal or a param with a default (also
// interpolated into a literal), else "".
func staticString(e ast.Expr, defaults map[string]string) string {
	switch e := e.(type) {
	case *ast.StringLit:
		var b strings.Builder
		for _, part := range e.Parts {
			if part.Expr == nil {
				b.WriteString(part.Text)
				continue
			}
			v, ok := defaults[strings.TrimSpace(part.Expr.Source)]
			if !ok {
				return ""
			}
			b.WriteString(v)
		}
		return b.String()
	case *ast.ExprSrc:
		return defaults[strings.TrimSpace(e.Source)]
	}
	return ""
}

// openPicker launches the picker's browser on a temporary profile and opens u in it.
func (s *Server) openPicker(ctx context.Context, file, u string, window bool) (*picker, error) {
	s.closePickers()
	dir, tmpDone, err := profiles.Temp()
	if err != nil {
		return nil, err
	}
	p := s.newPicker(file, window)
	p.profileDir, p.tmpDone = dir, tmpDone
	lctx, lcancel := context.WithTimeout(ctx, 60*time.Second)
	defer lcancel()
	br, err := pickerDriver.Launch(lctx, drivers.LaunchOptions{UserDataDir: dir, Show: window && !pickerHeadless})
	if err != nil {
		p.cancel()
		tmpDone()
		return nil, err
	}
	p.br = br
	pg, err := br.NewPage(lctx, u)
	if err != nil {
		p.cancel()
		_ = br.Close()
		tmpDone()
		return nil, err
	}
	p.pg = pg
	s.installPicker(p)
	return p, nil
}

// newPicker is a picker of the console for flow file on ctx's end (not opened yet).
func (s *Server) newPicker(file string, window bool) *picker {
	id := make([]byte, 12)
	_, _ = rand.Read(id)
	pctx, cancel := context.WithCancel(s.runCtx)
	return &picker{id: hex.EncodeToString(id), file: file, window: window, ctx: pctx, cancel: cancel,
		done: make(chan struct{}), wake: make(chan struct{}), lastUse: time.Now()}
}

// installPicker makes p, open, the console's picker (closing one that started meanwhile: two
// starts at once, the later one stays) and watches it.
func (s *Server) installPicker(p *picker) {
	s.setPicker(p)
	go p.watch(s)
}

// setPicker makes p (nil: none) the console's picker and closes the one it replaces.
func (s *Server) setPicker(p *picker) {
	ps := s.pickers()
	ps.mu.Lock()
	prev := ps.cur
	ps.cur = p
	ps.mu.Unlock()
	if prev != nil {
		prev.close()
	}
}

// openDebugPicker opens a picker on the page of debug run id, paused now (the browser signed in
// by the flow's own steps, at the paused statement): no browser of its own, and nothing sent to
// the page but what pictures it and names the element at a point. The page's secret-holding and
// password fields are masked while the picker shows it (drivers.MaskFields, as the pause's
// picture is) and get their values back when the picker ends, which it does before the run goes
// on (debugSession.reclaim). On a problem it returns nil, the HTTP status and the text to say.
func (s *Server) openDebugPicker(r *http.Request, file, id string) (*picker, int, string) {
	d, ok := s.debugSession(id)
	if !ok || d.file != file {
		return nil, http.StatusNotFound, s.T(r, "debug.gone")
	}
	s.closePickers()
	d.pageMu.Lock()
	defer d.pageMu.Unlock()
	d.mu.Lock()
	pg, holds, paused := d.page, d.holds, d.paused
	d.mu.Unlock()
	if !paused {
		return nil, http.StatusConflict, s.T(r, "pick.notPaused")
	}
	if pg == nil {
		return nil, http.StatusConflict, s.T(r, "debug.nopicture")
	}
	p := s.newPicker(file, false)
	p.debug = id
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	unmask, err := drivers.MaskFields(ctx, pg, holds)
	cancel()
	if err != nil {
		p.cancel()
		return nil, http.StatusBadGateway, s.T(r, "pick.failed", err.Error())
	}
	p.pg, p.unmask = pg, unmask
	d.mu.Lock()
	d.lent = func() { s.endPicker(p) }
	d.mu.Unlock()
	s.installPicker(p)
	return p, 0, ""
}

// watch ends the picker with the console, when nobody watched it for pickerGone or used it for
// pickerIdle, or when its browser ended (the person closed the window).
func (p *picker) watch(s *Server) {
	tick := time.NewTicker(pickerGone / 4)
	defer tick.Stop()
	var unwatched time.Time
	for {
		select {
		case <-p.ctx.Done():
			s.endPicker(p)
			return
		case <-tick.C:
		}
		if p.br != nil && !p.br.Alive() {
			s.endPicker(p)
			return
		}
		p.mu.Lock()
		viewers, last := p.viewers, p.lastUse
		p.mu.Unlock()
		switch {
		case viewers > 0 || p.window:
			unwatched = time.Time{}
		case unwatched.IsZero():
			unwatched = time.Now()
		}
		if (!unwatched.IsZero() && time.Since(unwatched) >= pickerGone) || time.Since(last) >= pickerIdle {
			s.Logf("ui: picker: closed (unused)")
			s.endPicker(p)
			return
		}
	}
}

// close ends the picker: its streams, and its browser (and every process of it) and temporary
// profile, or on a debug run's page the masks it put on (the page is the run's). When it
// returns nothing of the picker acts on the page any more. It may be called more than once.
func (p *picker) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		<-p.done
		return
	}
	p.closed = true
	if p.castStop != nil {
		p.castStop()
	}
	close(p.wake)
	p.wake = make(chan struct{})
	p.mu.Unlock()
	p.cancel()
	p.cast.Wait()
	if p.unmask != nil {
		p.unmask()
	}
	if p.br != nil {
		_ = p.br.Close()
	}
	if p.tmpDone != nil {
		p.tmpDone()
	}
	close(p.done)
}

// endPicker closes p and makes it no longer the console's picker.
func (s *Server) endPicker(p *picker) {
	ps := s.pickers()
	ps.mu.Lock()
	if ps.cur == p {
		ps.cur = nil
	}
	ps.mu.Unlock()
	p.close()
}

// closePickers ends the console's picker, if one is open (a new one is opening; Server.Close).
func (s *Server) closePickers() { s.setPicker(nil) }

// lookup is the console's picker with id, nil when it is not open (any more).
func (s *Server) lookupPicker(id string) *picker {
	ps := s.pickers()
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.cur == nil || ps.cur.id != id {
		return nil
	}
	return ps.cur
}

func (p *picker) touch() {
	p.mu.Lock()
	p.lastUse = time.Now()
	p.mu.Unlock()
}

// join counts a viewer of the picture and starts the screencast for the first one.
func (p *picker) join() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.viewers++
	p.lastUse = time.Now()
	if p.viewers == 1 {
		sc, ok := p.pg.(drivers.Screencaster)
		if !ok {
			return true
		}
		cctx, stop := context.WithCancel(p.ctx)
		p.castStop = stop
		p.cast.Add(1)
		go func() {
			defer p.cast.Done()
			_ = sc.Screencast(cctx, drivers.ScreencastOptions{Quality: pickerQuality, Every: time.Second / time.Duration(pickerFPS)}, p.onFrame)
		}()
	}
	return true
}

// leave uncounts a viewer; the screencast stops with the last one.
func (p *picker) leave() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.viewers--
	p.lastUse = time.Now()
	if p.viewers == 0 && p.castStop != nil {
		p.castStop()
		p.castStop = nil
	}
}

func (p *picker) onFrame(f drivers.ScreenFrame) {
	p.mu.Lock()
	if !p.closed {
		p.frame = f
		p.seq++
		close(p.wake)
		p.wake = make(chan struct{})
	}
	p.mu.Unlock()
}

// pickerFrames streams the page's pictures (text/event-stream, Server.stream): "frame" events
// {seq, w, h, jpeg (base64)}, the latest picture only (a slow viewer skips pictures), and
// "closed" when the picker ends.
func pickerFrames(s *Server, w http.ResponseWriter, r *http.Request) {
	p := s.lookupPicker(r.PathValue("id"))
	if p == nil || !p.join() {
		http.NotFound(w, r)
		return
	}
	defer p.leave()
	s.stream(w, r, func(after int) ([]sseEvent, <-chan struct{}) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.closed {
			return []sseEvent{{seq: p.seq + 1, name: "closed", data: struct{}{}, last: true}}, p.wake
		}
		if p.seq <= after {
			return nil, p.wake
		}
		return []sseEvent{{seq: p.seq, name: "frame", data: pictureEvent{Seq: p.seq, W: p.frame.Width, H: p.frame.Height, JPEG: p.frame.JPEG}}}, p.wake
	})
}

// pictureEvent is a "frame" event of pickerFrames.
type pictureEvent struct {
	Seq int `json:"seq"`
	// W and H are the page's viewport in CSS pixels (drivers.ScreenFrame).
	W float64 `json:"w"`
	H float64 `json:"h"`
	// JPEG is the picture (base64 in JSON).
	JPEG []byte `json:"jpeg"`
}

// pointRequest is a point of the page's viewport in CSS pixels.
type pointRequest struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// hoverJS names the element under the pointer for the outline's label.
const hoverJS = `function () { return this.localName + (this.id ? '#' + this.id : ''); }`

// pickerHover outlines the element at a point: {found, box, desc}.
func pickerHover(s *Server, w http.ResponseWriter, r *http.Request) {
	p, ep, pt, ok := s.pickerPoint(w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	pk, err := ep.EvalAt(ctx, pt.X, pt.Y, hoverJS)
	if err != nil {
		s.apiErrorFor(w, r, http.StatusBadGateway, s.T(r, "pick.pickFailed", s.errText(r, err)))
		return
	}
	s.JSON(w, http.StatusOK, map[string]any{"found": pk.Found, "box": pk.Box, "desc": pk.V})
}

// Pick is what the picker found: POST /api/picker/{id}/pick's and /inspect's answer.
type Pick struct {
	// Desc names the element for people (`button "Query"`); Role and Name are its accessible
	// role and name.
	Desc string `json:"desc"`
	Role string `json:"role"`
	Name string `json:"name"`
	// Selectors is the fallback list, best first (package selectorgen; positional ones last).
	Selectors []PickSelector `json:"selectors"`
	// Frames are the selector lists of the iframes around the element, outermost first (also
	// across origins): the editor puts what it inserts inside `frame` statements of their best
	// selectors.
	Frames [][]PickSelector `json:"frames,omitempty"`
	// Apart says the element is an iframe whose page runs in a process of its own (another
	// site, with site isolation on): the picker could not look inside it, and says so.
	Apart bool `json:"apart,omitempty"`
	// Table is the table or grid around the element (its Desc and Selectors): what the editor
	// inserts for the action "table" when a cell was picked. Nil when there is none.
	Table *PickTable `json:"table,omitempty"`
	// Box is the element's border box in the page's viewport, CSS pixels.
	Box drivers.Box `json:"box"`
	// Ms is how long finding it took, in milliseconds.
	Ms float64 `json:"ms"`
}

// PickTable is the table around a picked element.
type PickTable struct {
	// Desc names the table for people; Selectors are its fallback list, best first.
	Desc      string         `json:"desc"`
	Selectors []PickSelector `json:"selectors"`
	// Box is the table's border box in the page's viewport, CSS pixels (from the picked
	// element's Box and selectorgen's Rel): the picker outlines it when the action is "table".
	// Nil when it is not known.
	Box *drivers.Box `json:"box,omitempty"`
}

// PickSelector is one selector of a Pick with its literal for the editor's text.
type PickSelector struct {
	Selector string `json:"selector"`
	// Literal is the selector as a string literal of the flow's language (format.Quote for
	// .flow; a double-quoted YAML scalar for YAML).
	Literal string `json:"literal"`
}

// pickerPick picks the element at a point of the picture: a Pick, or {found: false}.
func pickerPick(s *Server, w http.ResponseWriter, r *http.Request) {
	p, ep, pt, ok := s.pickerPoint(w, r)
	if !ok {
		return
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(p.ctx, 15*time.Second)
	defer cancel()
	tg, box, err := selectorgen.At(ctx, ep, pt.X, pt.Y, 0)
	if err != nil {
		s.apiErrorFor(w, r, http.StatusBadGateway, s.T(r, "pick.pickFailed", s.errText(r, err)))
		return
	}
	if tg == nil || len(tg.Selectors) == 0 {
		s.JSON(w, http.StatusOK, map[string]any{"found": false, "error": s.T(r, "pick.nothing")})
		return
	}
	s.JSON(w, http.StatusOK, makePick(p.file, tg, box, time.Since(start)))
}

// pickerInspect waits for the person to click an element in the picker's window: a Pick.
func pickerInspect(s *Server, w http.ResponseWriter, r *http.Request) {
	p := s.lookupPicker(r.PathValue("id"))
	if p == nil {
		s.apiErrorFor(w, r, http.StatusNotFound, s.T(r, "pick.gone"))
		return
	}
	ep, ok := p.pg.(drivers.ElementPicker)
	if !ok {
		s.apiErrorFor(w, r, http.StatusConflict, s.T(r, "pick.noPicking")) // (drivers/rod always can)
		return
	}
	p.touch()
	ctx, cancel := context.WithCancel(p.ctx)
	defer cancel()
	go func() {
		select {
		case <-r.Context().Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	tg, box, err := selectorgen.Inspect(ctx, ep, 0)
	p.touch()
	if err != nil {
		if p.ctx.Err() != nil {
			s.apiErrorFor(w, r, http.StatusGone, s.T(r, "pick.closed"))
			return
		}
		s.apiErrorFor(w, r, http.StatusBadGateway, s.T(r, "pick.pickFailed", s.errText(r, err)))
		return
	}
	s.JSON(w, http.StatusOK, makePick(p.file, tg, box, 0))
}

// makePick is the Pick of tg: its selectors ordered for the flow file (pickSelectors), and the
// table around it.
func makePick(file string, tg *selectorgen.Target, box drivers.Box, took time.Duration) Pick {
	pk := Pick{Desc: tg.Desc, Role: tg.Role, Name: tg.Name, Box: box, Apart: tg.Apart,
		Ms: float64(took.Microseconds()) / 1000, Selectors: pickSelectors(file, tg.Selectors)}
	for _, f := range tg.Frames {
		pk.Frames = append(pk.Frames, pickSelectors(file, f))
	}
	if tb := tg.Table; tb != nil && len(tb.Selectors) > 0 {
		pk.Table = &PickTable{Desc: tb.Desc, Selectors: pickSelectors(file, tb.Selectors)}
		if r := tb.Rel; r != nil {
			pk.Table.Box = &drivers.Box{X: box.X + r.X, Y: box.Y + r.Y, W: r.W, H: r.H}
		}
	}
	return pk
}

// pickSelectors orders sels (XPaths left out when another selector names the element, as the
// recorder does; positional ones last, as heal keeps them) and quotes them for the flow file.
func pickSelectors(file string, sels []string) []PickSelector {
	var out, late []PickSelector
	yaml := !strings.HasSuffix(file, ".flow")
	named := slices.DeleteFunc(slices.Clone(sels), func(s string) bool { return strings.HasPrefix(s, "xpath=") })
	if len(named) == 0 {
		named = sels
	}
	for _, sel := range named {
		lit := format.Quote(sel)
		if yaml {
			lit = strconv.Quote(sel)
		}
		ps := PickSelector{Selector: sel, Literal: lit}
		if selectorgen.Positional(sel) {
			late = append(late, ps)
			continue
		}
		out = append(out, ps)
	}
	return append(out, late...)
}

// pickerPoint reads a point request for an open picker of picture mode: a
// coordinate outside the last picture's viewport (0 to its width or
// height) is answered 400 naming it, before it reaches the browser (whose
// DevTools text was the answer, 502).
func (s *Server) pickerPoint(w http.ResponseWriter, r *http.Request) (*picker, drivers.ElementPicker, pointRequest, bool) {
	var pt pointRequest
	if !s.readJSON(w, r, &pt) {
		return nil, nil, pt, false
	}
	p := s.lookupPicker(r.PathValue("id"))
	if p == nil {
		s.apiErrorFor(w, r, http.StatusNotFound, s.T(r, "pick.gone"))
		return nil, nil, pt, false
	}
	ep, ok := p.pg.(drivers.ElementPicker)
	if !ok {
		s.apiErrorFor(w, r, http.StatusConflict, s.T(r, "pick.noPicking")) // (drivers/rod always can)
		return nil, nil, pt, false
	}
	p.mu.Lock()
	vw, vh := p.frame.Width, p.frame.Height
	p.mu.Unlock()
	for _, c := range []struct {
		field  string
		v, max float64
	}{{"x", pt.X, vw}, {"y", pt.Y, vh}} {
		if c.max <= 0 {
			c.max = maxPoint // no picture yet: its size is not known
		}
		if !(c.v >= 0 && c.v <= c.max) { // JSON has no NaN or infinity; -1e308 and 1e308 it has
			s.apiErrorFor(w, r, http.StatusBadRequest, s.T(r, "pick.badPoint", c.field,
				strconv.FormatFloat(c.v, 'g', -1, 64), strconv.FormatFloat(c.max, 'g', -1, 64)))
			return nil, nil, pt, false
		}
	}
	p.touch()
	return p, ep, pt, true
}

// maxPoint bounds a point's coordinates, in CSS pixels, before the picker
// has sent a picture (whose viewport size bounds them after).
const maxPoint = 100_000

// pickerClose closes the picker: {}.
func pickerClose(s *Server, w http.ResponseWriter, r *http.Request) {
	ps := s.pickers()
	ps.mu.Lock()
	p := ps.cur
	if p != nil && p.id == r.PathValue("id") {
		ps.cur = nil
	} else {
		p = nil
	}
	ps.mu.Unlock()
	if p != nil {
		p.close()
	}
	s.JSON(w, http.StatusOK, map[string]any{})
}
