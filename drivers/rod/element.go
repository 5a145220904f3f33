package rod

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// element is a handle on a DOM element (a remote object in its frame's JS
// context). A locate that aimed a click (drivers.Aim) returns the element
// in an array with the aim's answer: held is that array (the element at
// index 1), which the element's engine and healing calls run on, and obj
// is fetched only for what needs the node itself (node).
type element struct {
	f    *frame
	mu   sync.Mutex
	obj  *proto.RuntimeRemoteObject
	held *proto.RuntimeRemoteObject
	// aimed is the answer of the action's preparation the locate ran
	// (drivers.Aim, PrepFill), for the action's first try
	aimed *gson.JSON
	// fp is the element's fingerprint (JSON) the locate took
	// (drivers.TakeFingerprint), "" when it took none
	fp string
}

// callee is what the element's engine calls run on (see frame.run).
func (e *element) callee() (*proto.RuntimeRemoteObject, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.obj == nil && e.held != nil {
		return e.held, true
	}
	return e.obj, false
}

// node returns the element's own remote object (one call the first time
// for an element a locate returned held).
func (e *element) node(ctx context.Context) (*proto.RuntimeRemoteObject, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.obj == nil {
		res, err := e.f.invoke(ctx, e.held, true, retObject, "function () { return this }", nil)
		if err != nil {
			return nil, err
		}
		e.obj = res
	}
	return e.obj, nil
}

// takeAimed returns the preparation's answer the locate gave, once.
func (e *element) takeAimed() *gson.JSON {
	e.mu.Lock()
	defer e.mu.Unlock()
	a := e.aimed
	e.aimed = nil
	return a
}

// call runs engine op on the element (frame.call).
func (e *element) call(ctx context.Context, byValue bool, op string, args ...any) (*proto.RuntimeRemoteObject, error) {
	this, held := e.callee()
	return e.f.run(ctx, engineScript, this, held, retOf(byValue), op, args...)
}

func (e *element) value(ctx context.Context, op string, args ...any) (gson.JSON, error) {
	res, err := e.call(ctx, true, op, args...)
	if err != nil {
		return gson.JSON{}, err
	}
	return res.Value, nil
}

func (e *element) err(ctx context.Context, what string, err error) error {
	if err == nil {
		return nil
	}
	return wrapErr(ctx, what+" "+e.Describe(context.Background()), err)
}

// mouse dispatches one mouse event at pt (top-level viewport coordinates).
func mouse(rp *rod.Page, t proto.InputDispatchMouseEventType, pt proto.Point, btn proto.InputMouseButton, count int) error {
	return mouseEvent(t, pt, btn, count).Call(rp)
}

// mouseEvent is one mouse event at pt (top-level viewport coordinates).
func mouseEvent(t proto.InputDispatchMouseEventType, pt proto.Point, btn proto.InputMouseButton, count int) *proto.InputDispatchMouseEvent {
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
	return &proto.InputDispatchMouseEvent{Type: t, X: pt.X, Y: pt.Y, Button: btn, Buttons: gson.Int(buttons), ClickCount: count}
}

// input dispatches the input events reqs in order in one round trip: all
// but the last are posted (browser.post), the last is sent and awaited,
// and the browser answers it once the input before it was handled too (a
// tab's input events are handled in the order they came). An event the
// browser refuses is not seen as such (a click's interception, arm and
// disarm, sees what reached the page).
func (p *page) input(ctx context.Context, reqs ...proto.Request) error {
	rp := p.rp.Context(ctx)
	for i, req := range reqs {
		var err error
		if i == len(reqs)-1 || p.b == nil || p.b.transport == nil {
			_, err = rp.Call(ctx, string(rp.SessionID), req.ProtoReq(), req)
		} else {
			err = p.b.post(rp.SessionID, req.ProtoReq(), req)
		}
		if err != nil {
			return err
		}
	}
	return nil
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
// control the page disabled since it was located is not clicked (a browser
// ignores the click): Click waits for it to be enabled again, within ctx,
// and ends with a core.KindDisabled error when ctx ends first. A
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
	// a single left click is what a widget's declared state (aria-expanded,
	// aria-checked, ...) answers to: its effect is confirmed
	expect := btn == proto.InputMouseButtonLeft && count == 1
	return e.pointer(ctx, "click", true, expect, func(pt proto.Point) error {
		evs := []proto.Request{mouseEvent(proto.InputDispatchMouseEventTypeMouseMoved, pt, proto.InputMouseButtonNone, 0)}
		for i := 1; i <= count; i++ {
			evs = append(evs, mouseEvent(proto.InputDispatchMouseEventTypeMousePressed, pt, btn, i),
				mouseEvent(proto.InputDispatchMouseEventTypeMouseReleased, pt, btn, i))
		}
		return e.f.pg.input(ctx, evs...)
	})
}

// pointer aims at the element (engine op aim), runs act at the point in
// the tab's viewport and, when intercept is set, checks through the
// engine's interception that the events reached the element (see Click).
// With expect, the effect the element's widget declares (LANGUAGE.md, "A
// click has its effect") must follow within effectWait; else the click
// is sent again, up to effectTries clicks. It retries until ctx ends; the
// last reason is the error.
func (e *element) pointer(ctx context.Context, what string, intercept, expect bool, act func(proto.Point) error) error {
	proxy := 0
	misses := 0
	clicks := 0
	var last error
	// the locate aimed already (drivers.Aim: a single left click)
	aimed := e.takeAimed()
	for {
		var v gson.JSON
		if aimed != nil && intercept && expect {
			v, aimed = *aimed, nil
		} else {
			var err error
			if v, err = e.value(ctx, "aim", proxy, intercept, expect); err != nil {
				return e.err(ctx, what, err)
			}
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
			case string(core.KindNotFound):
				// the page replaced the element (a re-render): no wait
				// brings this handle back; the replay engine locates again
				return &core.Error{Kind: core.KindNotFound, Msg: fmt.Sprintf("%s: %s (the page replaced it before the click)", what, msg)}
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
		// A single left click's check that it reached the element is sent
		// beside its events, not after their answer: the page answers it
		// once the click's 'click' event was handled (engine
		// disarmOnClick), one round trip sooner.
		var early <-chan disarmed
		ectx, ecancel := context.WithCancel(ctx)
		if intercept && expect {
			early = e.disarmOnClick(ectx)
		}
		if err := act(pt); err != nil {
			ecancel()
			if early != nil {
				<-early
			}
			if intercept {
				_, _ = e.value(context.Background(), "disarm", expect)
			}
			return e.err(ctx, what, err)
		}
		if !intercept {
			ecancel()
			return nil
		}
		// The answer can be held up: a popup the click opened shares this
		// renderer and shows a dialog before anyone attached to it. Then
		// (and when the click navigated or removed the document) the click
		// is taken as delivered; the page disarms itself (see arm).
		d, err := e.disarm(ctx, early, expect)
		ecancel()
		if err != nil {
			return nil
		}
		res := d.Arr()
		if len(res) < 3 {
			return nil
		}
		seen, bad, after := res[0].Int(), res[1].Str(), res[2]
		due := len(res) > 3 && res[3].Bool()
		switch {
		case strings.HasPrefix(bad, "replaced\t"):
			// the node now shows other content (engine reused): the page
			// never saw the press; the replay engine locates again
			return &core.Error{Kind: core.KindNotFound, Msg: fmt.Sprintf("%s: %s (the click was held back)", what, strings.TrimPrefix(bad, "replaced\t"))}
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
		case due:
			msg, err := e.effectWait(ctx)
			if err != nil || msg == "" {
				return nil // the page took it (or went away while we looked)
			}
			last = &core.Error{Kind: core.KindBrowser, Msg: what + ": " + msg}
			if clicks++; clicks >= effectTries {
				return last
			}
		default:
			return nil
		}
		if err := core.Sleep(ctx, 16*time.Millisecond); err != nil {
			return withCause(last, err)
		}
	}
}

// disarmWait bounds the check that a click reached its element, from the
// answer to its events.
const disarmWait = 500 * time.Millisecond

// clickWait bounds how long the page holds disarmOnClick's answer for the
// click's 'click' event; then the driver disarms after the events' answer.
const clickWait = 200 * time.Millisecond

// disarmed is the answer of disarmOnClick.
type disarmed struct {
	v   gson.JSON
	err error
}

// disarmOnClick sends the engine's disarmOnClick beside a single left
// click's events: the page answers the interception's record (see
// disarm) once the click was handled, or "pending" when no click came
// within clickWait (the interception stays armed).
func (e *element) disarmOnClick(ctx context.Context) <-chan disarmed {
	ch := make(chan disarmed, 1)
	go func() {
		v, err := e.value(ctx, "disarmOnClick", true, int(clickWait/time.Millisecond))
		ch <- disarmed{v, err}
	}()
	return ch
}

// disarm ends the interception after a click's events were answered and
// returns its record: early's answer when it has one (disarmOnClick),
// else the engine's disarm; an error (or no answer within disarmWait)
// means the page could not be asked.
func (e *element) disarm(ctx context.Context, early <-chan disarmed, expect bool) (gson.JSON, error) {
	t := time.NewTimer(disarmWait)
	defer t.Stop()
	if early != nil {
		select {
		case a := <-early:
			var ee *rod.EvalError
			if a.err == nil && a.v.Str() != "pending" || a.err != nil && !errors.As(a.err, &ee) {
				return a.v, a.err
			}
			// "pending", or the engine failed: disarm after the events
		case <-t.C:
			return gson.JSON{}, context.DeadlineExceeded
		}
	}
	dctx, cancel := context.WithTimeout(ctx, disarmWait)
	defer cancel()
	return e.value(dctx, "disarm", expect)
}

// effectWait waits (within ctx, at most effectWaitMax) for the effect a
// click's widget declares; it returns "" when it came, else what did not
// happen. An error means the page could not be asked (a navigation).
func (e *element) effectWait(ctx context.Context) (string, error) {
	wait := effectWaitMax
	if dl, ok := ctx.Deadline(); ok && time.Until(dl)-100*time.Millisecond < wait {
		wait = max(0, time.Until(dl)-100*time.Millisecond)
	}
	v, err := e.value(ctx, "effectWait", int(wait/time.Millisecond))
	if err != nil {
		return "", err
	}
	return v.Str(), nil
}

// effectWaitMax is how long a click's declared effect may take to show
// (a Vue re-render, a menu's opening transition); effectTries bounds the
// clicks sent while it does not (the first and one more).
const (
	effectWaitMax = time.Second
	effectTries   = 2
)

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
	return e.pointer(ctx, "hover", false, false, func(pt proto.Point) error {
		return mouse(rp, proto.InputDispatchMouseEventTypeMouseMoved, pt, proto.InputMouseButtonNone, 0)
	})
}

// Fill replaces the value like a person: focus (held while the page
// reacts to it), select all, insert text (Input.insertText), then change;
// and it checks that the element holds the value afterwards (LANGUAGE.md,
// "fill"). Text the page would receive in another element (focus moved
// between the calls) is held back in the page (the engine's text guard);
// then, or when the value did not stay, the fill is done again, up to
// fillTries times within ctx, and fails saying where the focus went or
// what the element holds. It never returns nil with the value elsewhere.
func (e *element) Fill(ctx context.Context, value string) error {
	var last error
	for try := 0; try < fillTries; try++ {
		if try > 0 {
			if err := core.Sleep(ctx, retryPause); err != nil {
				return withCause(last, err)
			}
		}
		again, err := e.fillOnce(ctx, value)
		if err == nil || !again {
			return err
		}
		last = err
	}
	return last
}

// fillTries bounds how often Fill, Type and Select act again, within
// ctx, after the page moved the focus away or did not keep the value; the
// replay engine's retries come on top.
const fillTries = 3

// retryPause is the pause before acting again (about a frame).
const retryPause = 16 * time.Millisecond

// fillOnce is one try of Fill; again says whether another try may help.
func (e *element) fillOnce(ctx context.Context, value string) (again bool, err error) {
	var mode gson.JSON
	if prep := e.takeAimed(); prep != nil {
		mode = *prep // the locate prepared the fill (drivers.PrepFill)
	} else if mode, err = e.value(ctx, "prepFill"); err != nil {
		return false, e.err(ctx, "fill", err)
	}
	if kind, thief, ok := strings.Cut(mode.Str(), "\t"); ok && kind == "stolen" {
		return true, core.Errorf(core.KindBrowser, "fill: %s does not keep the focus: the page moves it to %s", e.who(ctx), thief)
	}
	changed := false
	switch {
	case mode.Str() == "setter":
		if _, err := e.value(ctx, "setValue", value); err != nil {
			return false, e.err(ctx, "fill", err)
		}
		changed = true
	case value == "":
		// delete the selection like the Delete key would
		if err := typeKey(ctx, e.f.pg, input.Delete); err != nil {
			e.unguard()
			return false, e.err(ctx, "fill", err)
		}
		v, err := e.value(ctx, "clearValue")
		if err == nil && v.Str() != "" {
			_, err = e.value(ctx, "setValue", "")
			changed = true
		}
		if err != nil {
			e.unguard()
			return false, e.err(ctx, "fill", err)
		}
	default:
		if err := (proto.InputInsertText{Text: value}).Call(e.f.pg.rp.Context(ctx)); err != nil {
			e.unguard()
			return false, e.err(ctx, "fill", err)
		}
	}
	res, err := e.value(ctx, "afterFill", value, changed)
	if err != nil {
		return false, e.err(ctx, "fill", err)
	}
	arr := res.Arr()
	if len(arr) < 4 {
		return false, core.Errorf(core.KindBrowser, "fill: bad engine answer")
	}
	if arr[0].Bool() {
		return false, nil
	}
	bad, away := arr[2].Str(), arr[3].Str()
	target := e.who(ctx)
	if bad != "" {
		return true, core.Errorf(core.KindBrowser, "fill: the value would have gone to %s: focus moved away from %s while typing (the text was held back)", bad, target)
	}
	msg := fmt.Sprintf("fill: %s %s after the fill", target, holds(ctx, arr[1], value))
	if away != "" {
		msg += fmt.Sprintf("; the focus is on %s now (it moved away while typing)", away)
	}
	return true, core.Errorf(core.KindBrowser, "%s", msg)
}

// holds says what an element holds when it is not the value: quoted, or
// without values when the value is a secret (drivers.WithSecretValue) or
// the element a password field (got is null).
func holds(ctx context.Context, got gson.JSON, want string) string {
	if got.Nil() || drivers.IsSecretValue(ctx) {
		return "holds another value"
	}
	return fmt.Sprintf("holds %s, not %s", quoteShort(got.Str()), quoteShort(want))
}

// quoteShort quotes s, cut to 60 characters.
func quoteShort(s string) string {
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return strconv.Quote(s)
}

// unguard disarms the engine's text guard after a failed call (the page
// disarms it by itself after a while too).
func (e *element) unguard() {
	ctx, cancel := context.WithTimeout(context.Background(), disarmWait)
	defer cancel()
	_, _ = e.value(ctx, "afterType", "")
}

// who names the element for a person: its role and accessible name
// (`textbox "姓名"`), else tag#id.class.
func (e *element) who(ctx context.Context) string {
	c, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	v, err := e.value(c, "who")
	if err != nil {
		return e.Describe(ctx)
	}
	return v.Str()
}

// Type sends value key by key (characters without a US key through
// Input.insertText), delay apart, without clearing. The focus is held on
// the element first (as for Fill) and the engine's text guard holds back
// keys the page would receive in another element; the rest of the value
// is then typed again after refocusing, up to fillTries times. Focus the
// page moves itself in reaction to the keys (one-time-code boxes) is
// followed. Afterwards the element must hold the typed text (unless the
// text holds Enter or Tab, whose effects are the page's, or the page
// spread it over several elements).
func (e *element) Type(ctx context.Context, value string, delay time.Duration) error {
	runes := []rune(value)
	start := 0
	var last error
	var res []gson.JSON
	for try := 0; try < fillTries; try++ {
		if try > 0 {
			if err := core.Sleep(ctx, retryPause); err != nil {
				return withCause(last, err)
			}
		}
		v, err := e.value(ctx, "prepType")
		if err != nil {
			return e.err(ctx, "type", err)
		}
		if kind, thief, ok := strings.Cut(v.Str(), "\t"); ok && kind == "stolen" {
			last = core.Errorf(core.KindBrowser, "type: %s does not keep the focus: the page moves it to %s", e.who(ctx), thief)
			continue
		}
		if err := e.sendKeys(ctx, runes[start:], delay, start > 0); err != nil {
			e.unguard()
			return e.err(ctx, "type", err)
		}
		r, err := e.value(ctx, "afterType", value)
		if err != nil {
			return e.err(ctx, "type", err)
		}
		res = r.Arr()
		if len(res) < 5 {
			return core.Errorf(core.KindBrowser, "type: bad engine answer")
		}
		blocked := res[0].Int()
		if blocked < 0 {
			start = len(runes)
			break
		}
		start = min(len(runes), start+blocked)
		last = core.Errorf(core.KindBrowser, "type: the keys would have gone to %s: focus moved away from %s while typing (%d of %d characters typed, the rest held back)",
			res[1].Str(), e.who(ctx), start, len(runes))
	}
	if start < len(runes) {
		return last
	}
	spread, ok := res[2].Bool(), res[3].Bool()
	if ok || spread || strings.ContainsAny(value, "\n\r\t") {
		return nil
	}
	if res[4].Nil() || drivers.IsSecretValue(ctx) {
		return core.Errorf(core.KindBrowser, "type: %s does not hold the typed text afterwards", e.who(ctx))
	}
	return core.Errorf(core.KindBrowser, "type: %s holds %s after typing, which does not contain %s", e.who(ctx), quoteShort(res[4].Str()), quoteShort(value))
}

// sendKeys types runes, delay apart (also before the first one when
// pause is set: a retry after the focus came back).
func (e *element) sendKeys(ctx context.Context, runes []rune, delay time.Duration, pause bool) error {
	rp := e.f.pg.rp.Context(ctx)
	for i, r := range runes {
		if (i > 0 || pause) && delay > 0 {
			if err := core.Sleep(ctx, delay); err != nil {
				return err
			}
		}
		if k, ok := keyForRune(r); ok {
			if err := typeKey(ctx, e.f.pg, k); err != nil {
				return err
			}
			continue
		}
		if err := (proto.InputInsertText{Text: string(r)}).Call(rp); err != nil {
			return err
		}
	}
	return nil
}

// Focus focuses through the DOM.
func (e *element) Focus(ctx context.Context) error {
	_, err := e.value(ctx, "focus")
	return e.err(ctx, "focus", err)
}

// Select picks an option by value, label or index ("" = value then label)
// and checks that it stays selected once the page reacted (a framework
// that puts its own state back fails the select after fillTries tries).
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
	reverted := 0
	for {
		v, err := e.value(ctx, "selectOption", value, by, sliceMs(ctx))
		if err != nil {
			if ctx.Err() != nil && last != "" {
				break
			}
			return e.err(ctx, "select", err)
		}
		arr := v.Arr()
		if len(arr) >= 2 && arr[0].Bool() {
			return nil
		}
		if len(arr) >= 2 {
			last = arr[1].Str()
		}
		if len(arr) == 3 {
			// chosen, but the page put its own choice back
			if reverted++; reverted >= fillTries {
				return core.Errorf(core.KindBrowser, "select: %s", last)
			}
			if err := core.Sleep(ctx, retryPause); err != nil {
				return &core.Error{Kind: core.KindBrowser, Msg: "select: " + last, Err: err}
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	return &core.Error{Kind: core.KindNotFound, Msg: last, Err: ctx.Err()}
}

// selectWait bounds select's wait for its option when ctx has no deadline.
const selectWait = 5 * time.Second

// CheckTarget is the element check and uncheck act on for e (LANGUAGE.md,
// "check"): e itself when it is a checkbox, radio or switch (native or
// ARIA), else the control of the <label> it is or lies in, else the one
// checkbox or radio inside it, else e. stdlib finds it by interface
// assertion.
func (e *element) CheckTarget(ctx context.Context) (drivers.Element, error) {
	res, err := e.call(ctx, false, "checkTarget")
	if err != nil {
		return nil, e.err(ctx, "check", err)
	}
	if res.Subtype != proto.RuntimeRemoteObjectSubtypeNode {
		return e, nil
	}
	return &element{f: e.f, obj: res}, nil
}

// Checked reports the state of the element's CheckTarget.
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
	obj, err := e.node(ctx)
	if err != nil {
		return e.err(ctx, "upload to", err)
	}
	res, err := evaluate(e.f.rp.Context(ctx), rod.Eval(`function () { return this.localName === 'input' && this.type === 'file' }`).This(obj))
	if err != nil {
		return e.err(ctx, "upload to", err)
	}
	if !res.Value.Bool() {
		return e.chooseFiles(ctx, abs)
	}
	err = proto.DOMSetFileInputFiles{Files: abs, ObjectID: obj.ObjectID}.Call(e.f.rp.Context(ctx))
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
	raw := ""
	if a := e.takeAimed(); a != nil {
		raw = a.Str() // the locate read it (drivers.ReadTable), "" when it could not
	}
	if raw == "" {
		v, err := e.value(ctx, "table")
		if err != nil {
			return nil, e.err(ctx, "table", err)
		}
		raw = v.JSON("", "")
	}
	var g drivers.Grid
	if err := json.Unmarshal([]byte(raw), &g); err != nil {
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
	obj, err := e.node(ctx)
	if err != nil {
		return nil, e.err(ctx, "screenshot", err)
	}
	_ = proto.DOMScrollIntoViewIfNeeded{ObjectID: obj.ObjectID}.Call(rp)
	q, err := proto.DOMGetContentQuads{ObjectID: obj.ObjectID}.Call(rp)
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
	v, err := e.value(c, "desc")
	if err != nil {
		return "element"
	}
	return v.Str()
}
