package rod

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// element is a handle on a DOM element (a remote object in its frame's JS
// context).
type element struct {
	f   *frame
	obj *proto.RuntimeRemoteObject
}

func (e *element) value(ctx context.Context, op string, args ...any) (gson.JSON, error) {
	return e.f.value(ctx, e.obj, op, args...)
}

func (e *element) err(ctx context.Context, what string, err error) error {
	if err == nil {
		return nil
	}
	return wrapErr(ctx, what+" "+e.Describe(context.Background()), err)
}

// mouse dispatches one mouse event at pt (top-level viewport coordinates).
func mouse(rp *rod.Page, t proto.InputDispatchMouseEventType, pt proto.Point, btn proto.InputMouseButton, count int) error {
	buttons := 0
	if t == proto.InputDispatchMouseEventTypeMousePressed {
		switch btn {
		case proto.InputMouseButtonLeft:
			buttons = 1
		case proto.InputMouseButtonRight:
			buttons = 2
		case proto.InputMouseButtonMiddle:
			buttons = 4
		}
	}
	return proto.InputDispatchMouseEvent{Type: t, X: pt.X, Y: pt.Y, Button: btn, Buttons: gson.Int(buttons), ClickCount: count}.Call(rp)
}

func mouseButton(b string) (proto.InputMouseButton, error) {
	switch b {
	case "", "left":
		return proto.InputMouseButtonLeft, nil
	case "right":
		return proto.InputMouseButtonRight, nil
	case "middle":
		return proto.InputMouseButtonMiddle, nil
	}
	return "", fmt.Errorf("unknown mouse button %q (left, right, middle)", b)
}

// Click moves the mouse to the centre and presses/releases count times.
// The click lands where it was aimed: the element's box must not have
// moved since it was located (else it is measured again a frame later),
// it is scrolled out of scroll containers and from under fixed or sticky
// bars, and the click's events are intercepted in the page so that when
// the hit target at dispatch time is not the element (the layout changed
// between aiming and the press: a late stylesheet, a re-render), the page
// never sees them and the click is aimed and sent again, within ctx. A
// hidden native checkbox or radio is clicked through its label or drawn
// control; when its state did not change, the next such control is tried.
func (e *element) Click(ctx context.Context, button string, count int) error {
	btn, err := mouseButton(button)
	if err != nil {
		return core.Errorf(core.KindBrowser, "click: %v", err)
	}
	if count < 1 {
		count = 1
	}
	rp := e.f.pg.rp.Context(ctx)
	return e.pointer(ctx, "click", true, func(pt proto.Point) error {
		if err := mouse(rp, proto.InputDispatchMouseEventTypeMouseMoved, pt, proto.InputMouseButtonNone, 0); err != nil {
			return err
		}
		for i := 1; i <= count; i++ {
			if err := mouse(rp, proto.InputDispatchMouseEventTypeMousePressed, pt, btn, i); err != nil {
				return err
			}
			if err := mouse(rp, proto.InputDispatchMouseEventTypeMouseReleased, pt, btn, i); err != nil {
				return err
			}
		}
		return nil
	})
}

// pointer aims at the element (engine op aim), runs act at the point in
// the tab's viewport and, when intercept is set, checks through the
// engine's interception that the events reached the element (see Click).
// It retries until ctx ends; the last reason is the error.
func (e *element) pointer(ctx context.Context, what string, intercept bool, act func(proto.Point) error) error {
	proxy := 0
	misses := 0
	var last error
	for {
		v, err := e.value(ctx, "aim", proxy, intercept)
		if err != nil {
			return e.err(ctx, what, err)
		}
		if s, ok := v.Val().(string); ok {
			kind, msg, _ := strings.Cut(s, "\t")
			pause := 40 * time.Millisecond
			switch kind {
			case "retry":
				pause = 16 * time.Millisecond
			case "none":
				if last != nil {
					return last
				}
				return core.Errorf(core.KindBrowser, "%s: %s", what, msg)
			default:
				last = &core.Error{Kind: core.Kind(kind), Msg: what + ": " + msg}
			}
			if err := core.Sleep(ctx, pause); err != nil {
				if last == nil {
					last = &core.Error{Kind: core.KindNotVisible, Msg: what + ": " + msg}
				}
				return withCause(last, err)
			}
			continue
		}
		arr := v.Arr()
		if len(arr) < 4 {
			return core.Errorf(core.KindBrowser, "%s: bad aim result", what)
		}
		ox, oy, err := e.f.origin(ctx)
		if err != nil {
			return e.err(ctx, what, err)
		}
		pt := proto.Point{X: arr[0].Num() + ox, Y: arr[1].Num() + oy}
		before, kind := arr[2], arr[3].Str()
		if err := act(pt); err != nil {
			if intercept {
				_, _ = e.value(context.Background(), "disarm")
			}
			return e.err(ctx, what, err)
		}
		if !intercept {
			return nil
		}
		// The answer can be held up: a popup the click opened shares this
		// renderer and shows a dialog before anyone attached to it. Then
		// (and when the click navigated or removed the document) the click
		// is taken as delivered; the page disarms itself (see arm).
		dctx, cancel := context.WithTimeout(ctx, disarmWait)
		d, err := e.value(dctx, "disarm")
		cancel()
		if err != nil {
			return nil
		}
		res := d.Arr()
		if len(res) < 3 {
			return nil
		}
		seen, bad, after := res[0].Int(), res[1].Str(), res[2]
		switch {
		case bad != "":
			last = &core.Error{Kind: core.KindCovered, Msg: fmt.Sprintf("%s: the click on %s landed on %s (the page moved under the pointer)", what, e.Describe(ctx), bad)}
		case seen == 0:
			misses++
			last = &core.Error{Kind: core.KindCovered, Msg: fmt.Sprintf("%s: the click on %s did not reach its document (covered by another frame?)", what, e.Describe(ctx))}
			if misses >= 3 {
				return last
			}
		case kind != "" && !before.Nil() && before.Bool() == after.Bool() && (kind == "checkbox" || !before.Bool()):
			// a styled checkbox/radio did not toggle: try the next control
			proxy++
			last = &core.Error{Kind: core.KindBrowser, Msg: fmt.Sprintf("%s: clicking %s did not change its state", what, e.Describe(ctx))}
			continue
		default:
			return nil
		}
		if err := core.Sleep(ctx, 16*time.Millisecond); err != nil {
			return withCause(last, err)
		}
	}
}

// disarmWait bounds the check that a click reached its element.
const disarmWait = 500 * time.Millisecond

// withCause returns last with cause attached (a *core.Error keeps its
// kind and message).
func withCause(last error, cause error) error {
	if de, ok := last.(*core.Error); ok && de.Err == nil {
		c := *de
		c.Err = cause
		return &c
	}
	return last
}

// ForceClick is `click force: true`, with no actionability checks: the
// real mouse click of Click when the element receives the hit at its
// centre, else the pointer and mouse events of the click dispatched on the
// element itself (untrusted events), so a covering layer never gets the
// click. stdlib finds it by interface assertion.
func (e *element) ForceClick(ctx context.Context, button string, count int) error {
	if _, err := mouseButton(button); err != nil {
		return core.Errorf(core.KindBrowser, "click: %v", err)
	}
	if count < 1 {
		count = 1
	}
	v, err := e.value(ctx, "forceClick", button, count)
	if err != nil {
		return e.err(ctx, "click", err)
	}
	if v.Bool() {
		return e.Click(ctx, button, count)
	}
	return nil
}

// Hover moves the mouse to the centre.
func (e *element) Hover(ctx context.Context) error {
	rp := e.f.pg.rp.Context(ctx)
	return e.pointer(ctx, "hover", false, func(pt proto.Point) error {
		return mouse(rp, proto.InputDispatchMouseEventTypeMouseMoved, pt, proto.InputMouseButtonNone, 0)
	})
}

// Fill replaces the value like a person: focus, select all, insert text
// (Input.insertText), then change.
func (e *element) Fill(ctx context.Context, value string) error {
	mode, err := e.value(ctx, "prepFill")
	if err != nil {
		return e.err(ctx, "fill", err)
	}
	if mode.Str() == "setter" {
		_, err := e.value(ctx, "setValue", value)
		return e.err(ctx, "fill", err)
	}
	rp := e.f.pg.rp.Context(ctx)
	if value == "" {
		// delete the selection like the Delete key would
		if err := typeKey(ctx, e.f.pg, input.Delete); err != nil {
			return e.err(ctx, "fill", err)
		}
		v, err := e.value(ctx, "clearValue")
		if err == nil && v.Str() != "" {
			_, err = e.value(ctx, "setValue", "")
		}
		if err != nil {
			return e.err(ctx, "fill", err)
		}
		_, err = e.value(ctx, "afterFill", value)
		return e.err(ctx, "fill", err)
	}
	if err := (proto.InputInsertText{Text: value}).Call(rp); err != nil {
		return e.err(ctx, "fill", err)
	}
	_, err = e.value(ctx, "afterFill", value)
	return e.err(ctx, "fill", err)
}

// Type sends value key by key (characters without a US key through
// Input.insertText), delay apart, without clearing.
func (e *element) Type(ctx context.Context, value string, delay time.Duration) error {
	// An element not focused yet gets the caret at its end, so keys append.
	if _, err := e.value(ctx, "focusEnd"); err != nil {
		return e.err(ctx, "type", err)
	}
	rp := e.f.pg.rp.Context(ctx)
	first := true
	for _, r := range value {
		if !first && delay > 0 {
			select {
			case <-time.After(delay):
			case <-ctx.Done():
				return e.err(ctx, "type", ctx.Err())
			}
		}
		first = false
		if k, ok := keyForRune(r); ok {
			if err := typeKey(ctx, e.f.pg, k); err != nil {
				return e.err(ctx, "type", err)
			}
			continue
		}
		if err := (proto.InputInsertText{Text: string(r)}).Call(rp); err != nil {
			return e.err(ctx, "type", err)
		}
	}
	return nil
}

// Focus focuses through the DOM.
func (e *element) Focus(ctx context.Context) error {
	_, err := e.value(ctx, "focus")
	return e.err(ctx, "focus", err)
}

// Select picks an option by value, label or index ("" = value then label).
func (e *element) Select(ctx context.Context, value string, by string) error {
	switch by {
	case "", "value", "label", "index":
	default:
		return core.Errorf(core.KindBrowser, "select: unknown by %q (value, label, index)", by)
	}
	// Wait for the option (cascading selects fill in late) within ctx; a
	// ctx without deadline waits selectWait.
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, selectWait)
		defer cancel()
	}
	last := ""
	for {
		v, err := e.value(ctx, "selectOption", value, by, sliceMs(ctx))
		if err != nil {
			if ctx.Err() != nil && last != "" {
				break
			}
			return e.err(ctx, "select", err)
		}
		arr := v.Arr()
		if len(arr) == 2 && arr[0].Bool() {
			return nil
		}
		if len(arr) == 2 {
			last = arr[1].Str()
		}
		if ctx.Err() != nil {
			break
		}
	}
	return &core.Error{Kind: core.KindNotFound, Msg: last, Err: ctx.Err()}
}

// selectWait bounds select's wait for its option when ctx has no deadline.
const selectWait = 5 * time.Second

// Checked reports a checkbox/radio state.
func (e *element) Checked(ctx context.Context) (bool, error) {
	v, err := e.value(ctx, "checked")
	if err != nil {
		return false, e.err(ctx, "checked", err)
	}
	return v.Bool(), nil
}

// SetFiles sets a file input's files through DOM.setFileInputFiles. Any
// other element is taken for the control that opens a file chooser (a
// dropzone whose click calls input.click()): it is clicked with the
// chooser intercepted (Page.setInterceptFileChooserDialog), and the chooser
// is answered with the files.
func (e *element) SetFiles(ctx context.Context, paths []string) error {
	abs := make([]string, len(paths))
	for i, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			return core.Errorf(core.KindBrowser, "upload: %v", err)
		}
		abs[i] = a
	}
	res, err := evaluate(e.f.rp.Context(ctx), rod.Eval(`function () { return this.localName === 'input' && this.type === 'file' }`).This(e.obj))
	if err != nil {
		return e.err(ctx, "upload to", err)
	}
	if !res.Value.Bool() {
		return e.chooseFiles(ctx, abs)
	}
	err = proto.DOMSetFileInputFiles{Files: abs, ObjectID: e.obj.ObjectID}.Call(e.f.rp.Context(ctx))
	return e.err(ctx, "upload to", err)
}

// chooserWait bounds the wait for the file chooser a click opens.
const chooserWait = 2 * time.Second

// chooseFiles clicks e with file choosers intercepted and answers the
// chooser the click opens with abs.
func (e *element) chooseFiles(ctx context.Context, abs []string) error {
	rp := e.f.rp.Context(ctx)
	if err := (proto.PageSetInterceptFileChooserDialog{Enabled: true}).Call(rp); err != nil {
		return e.err(ctx, "upload to", err)
	}
	defer func() {
		off, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = proto.PageSetInterceptFileChooserDialog{Enabled: false}.Call(e.f.rp.Context(off))
	}()
	// The chooser opens during the click's handlers; a click that opens
	// none gives up after chooserWait (a retry clicks again).
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	var ev proto.PageFileChooserOpened
	wait := e.f.rp.Context(wctx).WaitEvent(&ev)
	if err := e.Click(ctx, "left", 1); err != nil {
		return err
	}
	t := time.AfterFunc(chooserWait, stop)
	defer t.Stop()
	wait()
	if ev.BackendNodeID == 0 {
		if ctx.Err() != nil {
			return wrapErr(ctx, "upload to "+e.Describe(context.Background()), ctx.Err())
		}
		return core.Errorf(core.KindBrowser, "upload: %s is not a file input, and clicking it opened no file chooser within %s", e.Describe(context.Background()), chooserWait)
	}
	err := proto.DOMSetFileInputFiles{Files: abs, BackendNodeID: ev.BackendNodeID}.Call(rp)
	return e.err(ctx, "upload to", err)
}

// ScrollIntoView scrolls the element to the centre of the view.
func (e *element) ScrollIntoView(ctx context.Context) error {
	_, err := e.value(ctx, "scrollIntoView")
	return e.err(ctx, "scroll", err)
}

// ScrollContent scrolls the element's own content to "top" or "bottom".
func (e *element) ScrollContent(ctx context.Context, to string) error {
	if to != "top" && to != "bottom" {
		return core.Errorf(core.KindBrowser, "scroll: to must be \"top\" or \"bottom\", not %q", to)
	}
	_, err := e.value(ctx, "scrollContent", to)
	return e.err(ctx, "scroll", err)
}

// Text is the rendered text, whitespace collapsed.
func (e *element) Text(ctx context.Context) (string, error) {
	v, err := e.value(ctx, "text")
	if err != nil {
		return "", e.err(ctx, "text of", err)
	}
	return v.Str(), nil
}

// Attr returns an attribute.
func (e *element) Attr(ctx context.Context, name string) (string, bool, error) {
	v, err := e.value(ctx, "attr", name)
	if err != nil {
		return "", false, e.err(ctx, "attr of", err)
	}
	if v.Nil() {
		return "", false, nil
	}
	return v.Str(), true, nil
}

// Value is the current value of a form control.
func (e *element) Value(ctx context.Context) (string, error) {
	v, err := e.value(ctx, "value")
	if err != nil {
		return "", e.err(ctx, "value of", err)
	}
	return v.Str(), nil
}

// IsPassword reports a password input.
func (e *element) IsPassword(ctx context.Context) (bool, error) {
	v, err := e.value(ctx, "isPassword")
	if err != nil {
		return false, e.err(ctx, "type of", err)
	}
	return v.Bool(), nil
}

// HTML is the outer HTML with password values masked.
func (e *element) HTML(ctx context.Context) (string, error) {
	v, err := e.value(ctx, "html")
	if err != nil {
		return "", e.err(ctx, "html of", err)
	}
	return v.Str(), nil
}

// Table extracts the grid of a table in one call.
func (e *element) Table(ctx context.Context) (*drivers.Grid, error) {
	v, err := e.value(ctx, "table")
	if err != nil {
		return nil, e.err(ctx, "table", err)
	}
	var g drivers.Grid
	if err := json.Unmarshal([]byte(v.JSON("", "")), &g); err != nil {
		return nil, core.Errorf(core.KindBrowser, "table: %v", err)
	}
	return &g, nil
}

// Form reads the named fields inside the element.
func (e *element) Form(ctx context.Context) (map[string]any, error) {
	v, err := e.value(ctx, "form")
	if err != nil {
		return nil, e.err(ctx, "form", err)
	}
	return toMap(v)
}

// Screenshot is a PNG of the element's box (scrolled into view first).
func (e *element) Screenshot(ctx context.Context) ([]byte, error) {
	rp := e.f.rp.Context(ctx)
	_ = proto.DOMScrollIntoViewIfNeeded{ObjectID: e.obj.ObjectID}.Call(rp)
	q, err := proto.DOMGetContentQuads{ObjectID: e.obj.ObjectID}.Call(rp)
	if err != nil || len(q.Quads) == 0 {
		if err == nil {
			err = fmt.Errorf("no box")
		}
		return nil, e.err(ctx, "screenshot", err)
	}
	box := q.Quads[0]
	minX, minY, maxX, maxY := box[0], box[1], box[0], box[1]
	for i := 0; i < 8; i += 2 {
		minX, maxX = min(minX, box[i]), max(maxX, box[i])
		minY, maxY = min(minY, box[i+1]), max(maxY, box[i+1])
	}
	if maxX-minX < 1 || maxY-minY < 1 {
		return nil, core.Errorf(core.KindNotVisible, "screenshot: %s has an empty box", e.Describe(ctx))
	}
	// quads are relative to the viewport, the clip to the document
	top := e.f.pg.rp.Context(ctx)
	var dx, dy float64
	if m, err := (proto.PageGetLayoutMetrics{}).Call(top); err == nil && m.CSSVisualViewport != nil {
		dx, dy = m.CSSVisualViewport.PageX, m.CSSVisualViewport.PageY
	}
	res, err := proto.PageCaptureScreenshot{
		Format: proto.PageCaptureScreenshotFormatPng,
		Clip:   &proto.PageViewport{X: minX + dx, Y: minY + dy, Width: maxX - minX, Height: maxY - minY, Scale: 1},
	}.Call(top)
	if err != nil {
		return nil, e.err(ctx, "screenshot", err)
	}
	return res.Data, nil
}

// Describe names the element: tag#id.class.
func (e *element) Describe(ctx context.Context) string {
	c, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	v, err := e.f.value(c, e.obj, "desc")
	if err != nil {
		return "element"
	}
	return v.Str()
}
