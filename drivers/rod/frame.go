package rod

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/a11y"
)

//go:embed engine.js
var engineJS string

// engineSource is engine.js with the accessible role and name (drivers/a11y)
// spliced in, made at first use: a process that drives no browser (most
// rpa commands, an idle rpa serve) does not keep its 100 KB (issue 24).
var engineSource = sync.OnceValue(func() string { return a11y.Splice(engineJS) })

// slice is the longest single in-page wait; ctx is re-checked between slices
// (and a cancelled ctx aborts the CDP call at once anyway).
const slice = time.Second

// hints are the Checks that are not checks but what the locate's caller
// does next.
const hints = drivers.Hints

// finalGrace is how long Locate keeps waiting once every match is of a
// kind no wait can fix (a checkbox for fill) before it gives up early.
const finalGrace = time.Second

// frame is one document: a tab's top document or an iframe's.
type frame struct {
	rp *rod.Page // rod's page for this document (an iframe clone for frames)
	pg *page     // the tab
	// parent and iframe (the iframe element, in parent) are set for an
	// iframe's document; oopif says it lives in another renderer process
	// (site isolation) and rp is its own target session.
	parent *frame
	iframe *proto.RuntimeRemoteObject
	oopif  bool
}

// origin returns where this document's viewport lies in the tab's
// viewport, in CSS pixels: 0,0 for the top document, else the parent's
// origin plus the iframe's content box in the parent.
func (f *frame) origin(ctx context.Context) (float64, float64, error) {
	if f.parent == nil || f.iframe == nil {
		return 0, 0, nil
	}
	px, py, err := f.parent.origin(ctx)
	if err != nil {
		return 0, 0, err
	}
	v, err := f.parent.value(ctx, f.iframe, "contentOrigin")
	if err != nil {
		return 0, 0, err
	}
	arr := v.Arr()
	if len(arr) != 2 {
		return 0, 0, errors.New("bad iframe origin")
	}
	return px + arr[0].Num(), py + arr[1].Num(), nil
}

// call runs engine op in the frame with args; this is the element (nil for
// the document). byValue decides whether the result is JSON or a remote
// object; promises are awaited.
func (f *frame) call(ctx context.Context, this *proto.RuntimeRemoteObject, byValue bool, op string, args ...any) (*proto.RuntimeRemoteObject, error) {
	return f.run(ctx, engineScript, this, false, retOf(byValue), op, args...)
}

// ret is the form of a call's result.
type ret int

const (
	retObject ret = iota // a remote object
	retValue             // its JSON value
	// retDeep is a remote object with, one level deep, its values
	// (RemoteObject.deepSerializedValue): an array's numbers and strings,
	// its elements as nodes (their backend ids), never their children.
	retDeep
)

func retOf(byValue bool) ret {
	if byValue {
		return retValue
	}
	return retObject
}

// script is JavaScript of which each document keeps one instance, under a
// registered symbol of its global object, called as fn(op, ...args) with
// this the element (the global object for document operations): the
// engine (engine.js) and the healing helper (heal.js).
//
// Its texts are made at its first use (the engine's are 100 KB and more
// each): a process that runs no flow does not keep them (issue 24).
type script struct {
	text func() scriptText
}

// scriptText is a script's JavaScript.
type scriptText struct {
	// call calls the document's instance, or returns scriptMissing when
	// it has none; install makes the instance from the script's source,
	// then calls it. Both are function declarations taking (op, ...args).
	call, install string
	// source is the expression that registers the instance (once) and
	// evaluates to it.
	source string
}

// newScript returns the script kept under Symbol.for(key) whose source
// (made at first use) is an expression that registers the instance under
// that key (once) and evaluates to it.
func newScript(key string, source func() string) *script {
	return &script{text: sync.OnceValue(func() scriptText {
		src := source()
		return scriptText{
			call: `function (op, ...a) {
	const f = globalThis[Symbol.for(` + jsString(key) + `)];
	return f ? f.call(this, op, ...a) : ` + jsString(scriptMissing) + `;
}`,
			install: "function (op, ...a) { return (" + src + ").call(this, op, ...a) }",
			source:  src,
		}
	})}
}

// withScript returns s whose calls first register other's instance in
// the document (when it has none): one evaluation that brings other along.
func (s *script) withScript(other *script) *script {
	return &script{text: sync.OnceValue(func() scriptText {
		o, t := other.text(), s.text()
		return scriptText{
			call:    "function (op, ...a) { " + o.source + "; return (" + t.call + ").call(this, op, ...a) }",
			install: "function (op, ...a) { " + o.source + "; return (" + t.install + ").call(this, op, ...a) }",
			source:  t.source,
		}
	})}
}

// scriptMissing is what a script's call returns in a document without it.
const scriptMissing = "\x00rpa: not installed"

// engineScript is the engine. Documents created since the tab was set up
// have it from the init script (see engineInit), so a call sends only op
// and args; older ones (the first document of a tab, loading before we
// attached) get its source on their first call.
var engineScript = newScript("rpa.engine/2", engineSource)

// engineWithHeal is the engine whose call registers the healing helper
// first: a locate that takes the element's fingerprint
// (drivers.TakeFingerprint) sends it on the first such locate in each
// document, so the engine finds the helper there (page.healNeeded).
var engineWithHeal = engineScript.withScript(healScript)

// run runs op of s in the frame with args, as call does; with held, this
// is the array a locate returned the element in (at index 1: see
// element.held). A navigation in the middle of a document call (this nil)
// has it run again in the new document.
func (f *frame) run(ctx context.Context, s *script, this *proto.RuntimeRemoteObject, held bool, r ret, op string, args ...any) (*proto.RuntimeRemoteObject, error) {
	all := append([]any{op}, args...)
	ctx, done := f.pg.b.whileRunning(ctx)
	defer done()
	text := s.text()
	for attempt := 0; ; attempt++ {
		res, err := f.invoke(ctx, this, held, r, text.call, all)
		if err != nil && context.Cause(ctx) == errExited {
			return nil, errExited // a call the dead browser never answers ends now
		}
		if err == nil && res != nil && res.Type == proto.RuntimeRemoteObjectTypeString && res.Value.Str() == scriptMissing {
			res, err = f.invoke(ctx, this, held, r, text.install, all)
		}
		if err != nil && this == nil && attempt < 20 && ctx.Err() == nil &&
			(transientEvalErr(err) || strings.Contains(err.Error(), "Could not find object with given id")) {
			// the document was replaced under us: run again in the new one
			select {
			case <-time.After(20 * time.Millisecond):
			case <-ctx.Done():
			}
			continue
		}
		return res, err
	}
}

// invoke calls the function declaration fn with args in the frame's
// document, this bound to this (the global object when nil), awaiting a
// promise. A call on the top document is one Runtime.evaluate with the
// arguments inline, which runs in the tab's current document; a call on
// rod's cached window object would first fail after every navigation (its
// document is gone) and cost two more round trips, and nothing else of
// ours would refresh that cache (the healing helper's calls failed on it
// after a navigation). With a remote object among the arguments (a closed
// shadow root) the call goes to that object, which lives in the document
// meant. Element calls are calls on the element (or on the array holding
// it, with held); an iframe's document calls go to its rod page. retDeep
// is for top document calls with plain arguments only.
func (f *frame) invoke(ctx context.Context, this *proto.RuntimeRemoteObject, held bool, r ret, fn string, args []any) (*proto.RuntimeRemoteObject, error) {
	rp := f.rp.Context(ctx)
	if held {
		fn = "function (...a) { return (" + fn + ").apply(this[1], a) }"
	}
	if this == nil && f.parent == nil {
		for _, a := range args {
			if o, ok := a.(*proto.RuntimeRemoteObject); ok {
				this, fn = o, "function (...a) { return ("+fn+").apply(globalThis, a) }"
				break
			}
		}
		if this == nil {
			raw, err := json.Marshal(args)
			if err != nil {
				return nil, err
			}
			return evalTop(rp, "("+fn+").apply(globalThis, "+string(raw)+")", r)
		}
	}
	if r == retDeep {
		return nil, errors.New("rpa: a deep result is for the top document's calls")
	}
	return evaluate(rp, &rod.EvalOptions{ByValue: r == retValue, AwaitPromise: true, ThisObj: this, JS: fn, JSArgs: args})
}

// evalTop evaluates expr in rp's current top document, awaiting a
// promise; an exception is a *rod.EvalError, as rod's Evaluate gives.
func evalTop(rp *rod.Page, expr string, r ret) (*proto.RuntimeRemoteObject, error) {
	ev := proto.RuntimeEvaluate{Expression: expr, AwaitPromise: true, ReturnByValue: r == retValue}
	if r == retDeep {
		one := 1
		ev.SerializationOptions = &proto.RuntimeSerializationOptions{Serialization: proto.RuntimeSerializationOptionsSerializationDeep, MaxDepth: &one}
	}
	res, err := ev.Call(rp)
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, &rod.EvalError{RuntimeExceptionDetails: res.ExceptionDetails}
	}
	return res.Result, nil
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	raw, _ := json.Marshal(s)
	return string(raw)
}

// engineInit installs the engine in every new document of rp's target
// (frames included) before the page's own scripts run, so no call has to
// send it (Page.addScriptToEvaluateOnNewDocument).
func engineInit(rp *rod.Page) error {
	_, err := proto.PageAddScriptToEvaluateOnNewDocument{Source: engineSource()}.Call(rp)
	return err
}

// evaluate is rod's Page.Evaluate with its panics (rod dereferences an
// iframe's content document that vanished when the iframe was removed)
// turned into errors.
func evaluate(rp *rod.Page, opts *rod.EvalOptions) (res *proto.RuntimeRemoteObject, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("the document is gone (its iframe was removed?): %v", r)
		}
	}()
	return rp.Evaluate(opts)
}

// transientEvalErr reports errors caused by a navigation in the middle of a
// call, after which the call should simply run again.
func transientEvalErr(err error) bool {
	if errors.Is(err, cdp.ErrCtxNotFound) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "Execution context was destroyed") ||
		strings.Contains(s, "Inspected target navigated or closed") ||
		strings.Contains(s, "Cannot find context with specified id") ||
		strings.Contains(s, "Promise was collected") ||
		strings.Contains(s, "Cannot find default execution context")
}

// value is call with a JSON result.
func (f *frame) value(ctx context.Context, this *proto.RuntimeRemoteObject, op string, args ...any) (gson.JSON, error) {
	res, err := f.call(ctx, this, true, op, args...)
	if err != nil {
		return gson.JSON{}, err
	}
	return res.Value, nil
}

// needsRoots reports whether any selector needs closed shadow roots.
func needsRoots(sels []string) bool {
	for _, s := range sels {
		if strings.HasPrefix(strings.TrimSpace(s), "pierce/") {
			return true
		}
	}
	return false
}

// closedRoots finds every closed shadow root of the document through CDP
// (DOM.describeNode with pierce) and returns them as JS objects, so the
// engine can search inside them.
func (f *frame) closedRoots(ctx context.Context) ([]any, error) {
	doc, err := f.invoke(ctx, nil, false, retObject, `function () { return document }`, nil)
	if err != nil {
		return nil, err
	}
	node, err := proto.DOMDescribeNode{ObjectID: doc.ObjectID, Depth: gson.Int(-1), Pierce: true}.Call(f.rp.Context(ctx))
	if err != nil {
		return nil, err
	}
	var ids []proto.DOMBackendNodeID
	var walk func(n *proto.DOMNode)
	walk = func(n *proto.DOMNode) {
		if n == nil {
			return
		}
		for _, r := range n.ShadowRoots {
			if r.ShadowRootType == proto.DOMShadowRootTypeClosed {
				ids = append(ids, r.BackendNodeID)
			}
			walk(r)
		}
		for _, c := range n.Children {
			walk(c)
		}
		// n.ContentDocument (iframes) is another document: not searched.
	}
	walk(node.Node)
	out := make([]any, 0, len(ids))
	for _, id := range ids {
		res, err := proto.DOMResolveNode{BackendNodeID: id}.Call(f.rp.Context(ctx))
		if err != nil {
			continue
		}
		out = append(out, res.Object)
	}
	return out, nil
}

// Locate waits until one of sels matches an element passing want. It ends
// early when the page has settled into a state that will not produce the
// element (a sign-in page, an error near the last action, an HTTP error
// document: a final error whose chain holds the drivers.PageState); a miss
// on a page that was settled for the last half of the wait has a
// PageState of kind drivers.PageSettled in its chain.
func (f *frame) Locate(ctx context.Context, sels []string, want drivers.Checks) (drivers.Element, int, error) {
	return f.locate(ctx, sels, want, 0)
}

// LocateUntilSettled is Locate that also ends once the page has been
// settled for settled without a match (drivers.SettledLocator).
func (f *frame) LocateUntilSettled(ctx context.Context, sels []string, want drivers.Checks, settled time.Duration) (drivers.Element, int, error) {
	return f.locate(ctx, sels, want, settled)
}

func (f *frame) locate(ctx context.Context, sels []string, want drivers.Checks, settled time.Duration) (drivers.Element, int, error) {
	if len(sels) == 0 {
		return nil, -1, core.Errorf(core.KindNotFound, "no selector given")
	}
	pierce := needsRoots(sels)
	// A click's aim (drivers.Aim), a fill's preparation (PrepFill), a
	// table's reading (ReadTable) and the element's fingerprint
	// (TakeFingerprint) come back with the element in one evaluation: a
	// Runtime.evaluate of the top document, whose result is the array
	// [index, element, fingerprint?, the answer...], by object and, one
	// level deep, by value (retDeep); elsewhere the action prepares (or
	// reads) itself and Fingerprint asks the page.
	aim := want&hints != 0 && f.parent == nil && !pierce
	if !aim {
		want &^= hints
	}
	lastKind, lastMsg := core.KindNotFound, "no element matches "+quoteList(sels)
	seen := false            // whether the page reported a reason yet
	var finalSince time.Time // since when every match is of a kind no wait can fix
	watch := newSettle(f, sels)
	fail := func(err error) (drivers.Element, int, error) {
		if !seen && errors.Is(err, context.DeadlineExceeded) {
			// The wait ran out before the page answered once (a very short
			// wait on a busy machine): look once more so the error says why.
			c, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			args := []any{sels, int(want &^ hints), 0} // a look only
			if pierce {
				if roots, err := f.closedRoots(c); err == nil {
					args = append(args, roots...)
				}
			}
			res, lerr := f.call(c, nil, false, "locate", args...)
			switch {
			case lerr != nil:
				// not even the look came back: the page's script was busy
				// (a long task), which "no element matches" would hide
				lastKind, lastMsg = core.KindTimeout, "the page did not answer while looking for "+quoteList(sels)+" (its script stayed busy for the whole wait)"
			case res.Type == proto.RuntimeRemoteObjectTypeString:
				kind, msg, _ := strings.Cut(res.Value.Str(), "\t")
				msg, _ = strings.CutSuffix(msg, "\tfinal")
				lastKind, lastMsg = core.Kind(kind), msg
			default:
				lastKind, lastMsg = core.KindTimeout, quoteList(sels)+" was ready only after the wait ran out (the page was slow to answer)"
			}
		}
		if lastKind == core.KindNotFound && seen {
			if st := watch.atEnd(); st != nil {
				st.Err = err
				// nothing happened on the page for the last half of the
				// wait: another try would not find it either
				return nil, -1, &core.Error{Kind: lastKind, Msg: lastMsg + "; " + st.Text, Err: &drivers.SeenError{Seen: st.Text, Err: st}}
			}
		}
		return nil, -1, &core.Error{Kind: lastKind, Msg: lastMsg, Err: err}
	}
	for {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		ms := sliceMs(ctx)
		if settled > 0 {
			// looking for the moment the page settles: shorter slices
			ms = min(ms, int(settledSlice/time.Millisecond))
		}
		args := []any{sels, int(want), ms}
		if pierce {
			roots, err := f.closedRoots(ctx)
			if err == nil {
				args = append(args, roots...)
			}
		}
		r := retObject
		if aim {
			r = retDeep
		}
		script, doc := engineScript, int64(0)
		if want&drivers.TakeFingerprint != 0 {
			var bring bool
			if doc, bring = f.pg.healNeeded(); bring {
				script = engineWithHeal
			}
		}
		res, err := f.run(ctx, script, nil, false, r, "locate", args...)
		if err == nil && script == engineWithHeal {
			// the helper is in, found or not: a locate that waits on
			// sends it once, not every slice
			f.pg.healSeen(doc)
		}
		if err != nil {
			if ctx.Err() != nil {
				return fail(ctx.Err())
			}
			if de := engineErr(err); de != nil {
				return nil, -1, de
			}
			return nil, -1, wrapErr(ctx, "locate "+quoteList(sels), err)
		}
		switch {
		case res.Type == proto.RuntimeRemoteObjectTypeString:
			kind, msg, _ := strings.Cut(res.Value.Str(), "\t")
			msg, final := strings.CutSuffix(msg, "\tfinal")
			lastKind, lastMsg, seen = core.Kind(kind), msg, true
			// Every match is of a kind no wait can fix (fill on a button):
			// saying so for finalGrace ends the wait early (the grace leaves
			// a re-rendering page its moment; a shorter wait runs out as
			// usual).
			switch {
			case !final:
				finalSince = time.Time{}
			case finalSince.IsZero():
				finalSince = time.Now()
			case time.Since(finalSince) >= finalGrace:
				return nil, -1, &core.Error{Kind: lastKind, Msg: lastMsg}
			}
			if lastKind == core.KindNotFound || lastKind == core.KindNotVisible {
				if st := watch.check(ctx, settled); st != nil {
					if st.Verdict() {
						return nil, -1, verdictErr(lastKind, lastMsg, st)
					}
					return nil, -1, &core.Error{Kind: lastKind, Msg: lastMsg + "; " + st.Text, Err: st}
				}
			}
		case res.Subtype == proto.RuntimeRemoteObjectSubtypeNode:
			return &element{f: f, obj: res}, 0, nil
		case aim && res.Subtype == proto.RuntimeRemoteObjectSubtypeArray && res.DeepSerializedValue != nil:
			idx, fp, aimed, err := aimedOf(res.DeepSerializedValue, want)
			if err != nil {
				return nil, -1, wrapErr(ctx, "locate", err)
			}
			if fp != "" {
				f.pg.healSeen(doc)
			}
			return &element{f: f, held: res, aimed: aimed, fp: fp}, idx, nil
		case res.Subtype == proto.RuntimeRemoteObjectSubtypeArray:
			idx, el, err := f.unpair(ctx, res)
			if err != nil {
				return nil, -1, wrapErr(ctx, "locate", err)
			}
			return el, idx, nil
		default:
			return nil, -1, core.Errorf(core.KindBrowser, "locate: unexpected engine result %s", res.Type)
		}
	}
}

// aimedOf reads the selector's index, the element's fingerprint (JSON;
// with drivers.TakeFingerprint in want, "" when the page had none) and
// the answer of the action's preparation (the aim's, see pointer;
// prepFill's, see fillOnce; the table as JSON, "" when it did not read,
// see Table; nil without any of them in want) from a locate's [index,
// element, fingerprint?, answer...] serialized one level deep.
func aimedOf(d *proto.RuntimeDeepSerializedValue, want drivers.Checks) (int, string, *gson.JSON, error) {
	vals := d.Value.Arr()
	if len(vals) < 2 || vals[1].Get("type").Str() != "node" {
		return 0, "", nil, fmt.Errorf("unexpected locate result %s", d.Value.JSON("", ""))
	}
	idx := vals[0].Get("value").Int()
	rest := vals[2:]
	fp := ""
	if want&drivers.TakeFingerprint != 0 {
		if len(rest) == 0 {
			return 0, "", nil, fmt.Errorf("unexpected locate result %s", d.Value.JSON("", ""))
		}
		fp, rest = rest[0].Get("value").Str(), rest[1:]
	}
	if want&(drivers.Aim|drivers.PrepFill|drivers.ReadTable) == 0 {
		return idx, fp, nil, nil
	}
	if len(rest) == 0 {
		return 0, "", nil, fmt.Errorf("unexpected locate result %s", d.Value.JSON("", ""))
	}
	var answer []any
	for _, v := range rest {
		switch v.Get("type").Str() {
		case "number", "string", "boolean":
			answer = append(answer, v.Get("value").Val())
		default:
			answer = append(answer, nil)
		}
	}
	a := gson.New(answer)
	if len(answer) == 1 {
		a = gson.New(answer[0]) // "reason\tmessage"
	}
	return idx, fp, &a, nil
}

// unpair reads [index, element] from a remote array.
func (f *frame) unpair(ctx context.Context, arr *proto.RuntimeRemoteObject) (int, *element, error) {
	props, err := proto.RuntimeGetProperties{ObjectID: arr.ObjectID, OwnProperties: true}.Call(f.rp.Context(ctx))
	if err != nil {
		return 0, nil, err
	}
	idx := -1
	var obj *proto.RuntimeRemoteObject
	for _, p := range props.Result {
		switch p.Name {
		case "0":
			if p.Value != nil {
				idx = p.Value.Value.Int()
			}
		case "1":
			obj = p.Value
		}
	}
	if idx < 0 || obj == nil {
		return 0, nil, errors.New("bad locate result")
	}
	return idx, &element{f: f, obj: obj}, nil
}

// sliceMs is how long one in-page wait may last: a second, or ending a
// little before ctx's deadline so the page's last reason still arrives in
// time.
func sliceMs(ctx context.Context) int {
	d := slice
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		margin := 100 * time.Millisecond
		if left < 2*margin {
			margin = left / 2
		}
		if left-margin < d {
			d = left - margin
		}
	}
	if d < 0 {
		d = 0
	}
	return int(d / time.Millisecond)
}

func quoteList(sels []string) string {
	q := make([]string, len(sels))
	for i, s := range sels {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// engineErr turns a JS exception thrown by the engine (bad selector, not a
// select, not a table, ...) into a *core.Error of kind expression (a bad
// argument: retrying cannot help, and the browser is fine); nil for other
// errors.
func engineErr(err error) *core.Error {
	var ee *rod.EvalError
	if !errors.As(err, &ee) {
		return nil
	}
	msg := ee.Error()
	if ee.Exception != nil && ee.Exception.Description != "" {
		msg = ee.Exception.Description
	}
	msg, _, _ = strings.Cut(msg, "\n    at ")
	msg = strings.TrimPrefix(msg, "Error: ")
	return &core.Error{Kind: core.KindExpression, Msg: msg, Err: err}
}

// wrapErr turns a rod/CDP error into a *core.Error.
func wrapErr(ctx context.Context, what string, err error) error {
	if err == nil {
		return nil
	}
	var de *core.Error
	if errors.As(err, &de) {
		return err
	}
	if e := engineErr(err); e != nil {
		e.Msg = what + ": " + e.Msg
		return e
	}
	if ctx.Err() != nil {
		return &core.Error{Kind: core.KindTimeout, Msg: what + ": timed out", Err: ctx.Err()}
	}
	if s := err.Error(); strings.Contains(s, "use of closed network connection") || errors.Is(err, io.EOF) ||
		strings.Contains(s, "broken pipe") || strings.Contains(s, "connection reset") {
		return &core.Error{Kind: core.KindBrowser, Msg: what + ": the browser is gone (connection lost)", Err: err}
	}
	return &core.Error{Kind: core.KindBrowser, Msg: what + ": " + err.Error(), Err: err}
}

// LocateAll returns every match of sel after waiting for one to be attached.
func (f *frame) LocateAll(ctx context.Context, sel string) ([]drivers.Element, error) {
	if _, _, err := f.Locate(ctx, []string{sel}, drivers.Attached); err != nil {
		return nil, err
	}
	args := []any{sel}
	if needsRoots([]string{sel}) {
		if roots, err := f.closedRoots(ctx); err == nil {
			args = append(args, roots...)
		}
	}
	res, err := f.call(ctx, nil, false, "all", args...)
	if err != nil {
		return nil, wrapErr(ctx, "locate "+sel, err)
	}
	props, err := proto.RuntimeGetProperties{ObjectID: res.ObjectID, OwnProperties: true}.Call(f.rp.Context(ctx))
	if err != nil {
		return nil, wrapErr(ctx, "locate "+sel, err)
	}
	type item struct {
		i   int
		obj *proto.RuntimeRemoteObject
	}
	var items []item
	for _, p := range props.Result {
		var i int
		if _, err := fmt.Sscanf(p.Name, "%d", &i); err != nil || p.Value == nil || p.Value.Subtype != proto.RuntimeRemoteObjectSubtypeNode {
			continue
		}
		items = append(items, item{i, p.Value})
	}
	out := make([]drivers.Element, len(items))
	for _, it := range items {
		if it.i >= 0 && it.i < len(out) {
			out[it.i] = &element{f: f, obj: it.obj}
		}
	}
	// drop holes (should not happen)
	j := 0
	for _, e := range out {
		if e != nil {
			out[j] = e
			j++
		}
	}
	return out[:j], nil
}

// Exists looks once.
func (f *frame) Exists(ctx context.Context, sel string) (bool, error) {
	n, err := f.Count(ctx, sel)
	return n > 0, err
}

// Count looks once.
func (f *frame) Count(ctx context.Context, sel string) (int, error) {
	args := []any{sel}
	if needsRoots([]string{sel}) {
		if roots, err := f.closedRoots(ctx); err == nil {
			args = append(args, roots...)
		}
	}
	v, err := f.value(ctx, nil, "count", args...)
	if err != nil {
		return 0, wrapErr(ctx, "count "+sel, err)
	}
	return v.Int(), nil
}

// WaitState waits for the first match of sels to reach st.
func (f *frame) WaitState(ctx context.Context, sels []string, st drivers.State) (int, error) {
	switch st {
	case drivers.StateVisible, drivers.StateHidden, drivers.StateAttached, drivers.StateDetached:
	case "":
		st = drivers.StateVisible
	default:
		return -1, core.Errorf(core.KindBrowser, "unknown state %q (visible, hidden, attached, detached)", st)
	}
	if len(sels) == 0 {
		return -1, core.Errorf(core.KindNotFound, "no selector given")
	}
	pierce := needsRoots(sels)
	watch := newSettle(f, sels)
	kind := core.KindTimeout
	switch st {
	case drivers.StateVisible:
		kind = core.KindNotVisible
	case drivers.StateAttached:
		kind = core.KindNotFound
	}
	for {
		if ctx.Err() != nil {
			break
		}
		args := []any{sels, string(st), sliceMs(ctx)}
		if pierce {
			if roots, err := f.closedRoots(ctx); err == nil {
				args = append(args, roots...)
			}
		}
		v, err := f.value(ctx, nil, "waitState", args...)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return -1, wrapErr(ctx, "wait", err)
		}
		if i := v.Int(); i >= 0 {
			return i, nil
		}
		if st == drivers.StateVisible || st == drivers.StateAttached {
			if ps := watch.check(ctx, 0); ps.Verdict() {
				return -1, verdictErr(kind, fmt.Sprintf("%s did not become %s", quoteList(sels), st), ps)
			}
		}
	}
	msg := fmt.Sprintf("%s did not become %s", quoteList(sels), st)
	var cause error = ctx.Err()
	if seen := f.explainState(sels, st, pierce); seen != "" {
		msg += ": " + seen
		cause = &drivers.SeenError{Seen: seen, Err: ctx.Err()}
	}
	return -1, &core.Error{Kind: kind, Msg: msg, Err: cause}
}

// explainState asks the page, once and briefly (the wait's ctx is over),
// what the first matches of sels show for a wait for st; "" when it
// cannot say.
func (f *frame) explainState(sels []string, st drivers.State, pierce bool) string {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	args := []any{sels, string(st)}
	if pierce {
		if roots, err := f.closedRoots(ctx); err == nil {
			args = append(args, roots...)
		}
	}
	v, err := f.value(ctx, nil, "explainState", args...)
	if err != nil {
		return ""
	}
	return v.Str()
}

// WaitText waits until the document's rendered text contains s.
func (f *frame) WaitText(ctx context.Context, s string) error {
	watch := newSettle(f, []string{s})
	for ctx.Err() == nil {
		v, err := f.value(ctx, nil, "waitText", s, sliceMs(ctx))
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return wrapErr(ctx, "wait text", err)
		}
		if v.Bool() {
			return nil
		}
		if ps := watch.check(ctx, 0); ps.Verdict() {
			return verdictErr(core.KindTimeout, fmt.Sprintf("page text never contained %q", s), ps)
		}
	}
	return &core.Error{Kind: core.KindTimeout, Msg: fmt.Sprintf("page text never contained %q", s), Err: ctx.Err()}
}

// HTML is the document's HTML with password values masked.
func (f *frame) HTML(ctx context.Context) (string, error) {
	v, err := f.value(ctx, nil, "docHTML")
	if err != nil {
		return "", wrapErr(ctx, "html", err)
	}
	return v.Str(), nil
}

// Text is the body's rendered text, whitespace collapsed.
func (f *frame) Text(ctx context.Context) (string, error) {
	v, err := f.value(ctx, nil, "docText")
	if err != nil {
		return "", wrapErr(ctx, "text", err)
	}
	return v.Str(), nil
}

// Form reads the document's named fields.
func (f *frame) Form(ctx context.Context) (map[string]any, error) {
	v, err := f.value(ctx, nil, "docForm")
	if err != nil {
		return nil, wrapErr(ctx, "form", err)
	}
	return toMap(v)
}

func toMap(v gson.JSON) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(v.JSON("", "")), &m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// Frame waits for the iframe matching sels and its loaded document.
func (f *frame) Frame(ctx context.Context, sels []string) (drivers.Frame, error) {
	el, _, err := f.Locate(ctx, sels, drivers.Attached)
	if err != nil {
		return nil, err
	}
	e := el.(*element)
	src, err := f.value(ctx, e.obj, "iframeSrc")
	if err != nil {
		return nil, wrapErr(ctx, "frame", err)
	}
	want := src.Arr()[0].Str()
	srcdoc := src.Arr()[1].Bool()
	var cf *frame
	last := "the iframe has no document yet"
	// Wait for the child document: not the initial about:blank (unless the
	// iframe has no src), and past "loading".
	for {
		node, err := proto.DOMDescribeNode{ObjectID: e.obj.ObjectID, Depth: gson.Int(1)}.Call(f.rp.Context(ctx))
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return nil, wrapErr(ctx, "frame", err)
		}
		cd := node.Node.ContentDocument
		switch {
		case cd == nil && node.Node.FrameID == "":
			// not attached yet
			cf = nil
			last = "the iframe's document is not reachable yet"
		case cd == nil:
			// A frame in another renderer process (site isolation; it may
			// have started as an in-process about:blank): its document is
			// a target of its own; attach with a flat session.
			if cf == nil || !cf.oopif {
				cf = nil
				child, err := f.pg.b.framePage(ctx, proto.TargetTargetID(node.Node.FrameID))
				if err == nil {
					cf = &frame{rp: child, pg: f.pg, parent: f, iframe: e.obj, oopif: true}
					cf.prime()
				} else {
					last = "the iframe's document is in another process and could not be attached yet: " + err.Error()
				}
			}
		default:
			if cf == nil || cf.oopif {
				cf = nil
				// may race the frame's move to another process: look again
				if child, err := f.childPage(e); err == nil {
					cf = &frame{rp: child, pg: f.pg, parent: f, iframe: e.obj}
					cf.prime()
				} else {
					last = "the iframe's document changed while entering it: " + err.Error()
				}
			}
		}
		if cf != nil {
			v, err := cf.value(ctx, nil, "frameState")
			if err == nil {
				arr := v.Arr()
				href, state := arr[0].Str(), arr[1].Str()
				initial := href == "about:blank" && want != "" && want != "about:blank" && !srcdoc
				if !initial && state != "loading" {
					return cf, nil
				}
				last = fmt.Sprintf("its document is still %s (%s)", state, href)
			} else if ctx.Err() == nil && !transientEvalErr(err) {
				var oe *rod.ObjectNotFoundError
				if !errors.As(err, &oe) && cf.oopif {
					return nil, wrapErr(ctx, "frame", err)
				}
				// an in-process document that went away (the frame moved
				// to another process, or navigated): enter it again
				cf = nil
				last = "the iframe's document changed while entering it: " + err.Error()
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(25 * time.Millisecond):
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, &core.Error{Kind: core.KindTimeout, Msg: fmt.Sprintf("frame %s did not load: %s", quoteList(sels), last), Err: ctx.Err()}
}

// childPage builds rod's page for the document of iframe element e.
func (f *frame) childPage(e *element) (cp *rod.Page, err error) {
	defer func() {
		if r := recover(); r != nil {
			cp, err = nil, fmt.Errorf("the iframe's document is gone: %v", r)
		}
	}()
	rel, err := f.rp.ElementFromObject(e.obj)
	if err != nil {
		return nil, err
	}
	return rel.Frame()
}

// Eval evaluates the function source js with args in the document.
func (f *frame) Eval(ctx context.Context, js string, args ...any) (any, error) {
	res, err := evaluate(f.rp.Context(ctx), rod.Eval(js, args...).ByPromise())
	if err != nil {
		return nil, wrapErr(ctx, "eval", err)
	}
	var out any
	if err := json.Unmarshal([]byte(res.Value.JSON("", "")), &out); err != nil {
		return nil, err
	}
	return out, nil
}

// prime installs the engine in f's current document in the background if
// it lacks it, so that a document loaded before the tab was set up (which
// the init script missed) does not make the first call wait for it (the
// call ends with the tab's session at the latest).
func (f *frame) prime() {
	go func() { _, _ = f.run(context.Background(), engineScript, nil, false, retValue, "inst") }()
}
