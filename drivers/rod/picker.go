package rod

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"

	"github.com/rpa-dev/rpa/drivers"
)

// Screencast streams pictures of the viewport (drivers.Screencaster):
// Page.startScreencast, each Page.screencastFrame handed to frame and
// acknowledged after it returns and opts.Every has passed since the last
// one (Chromium sends the next picture only once the last is
// acknowledged, so the ack paces the stream).
func (p *page) Screencast(ctx context.Context, opts drivers.ScreencastOptions, frame func(drivers.ScreenFrame)) error {
	q := opts.Quality
	if q <= 0 || q > 100 {
		q = 60
	}
	every := opts.Every
	if every <= 0 {
		every = 100 * time.Millisecond
	}
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := p.rp.Context(lctx).Event()
	start := proto.PageStartScreencast{Format: proto.PageStartScreencastFormatJpeg, Quality: gson.Int(q)}
	if opts.MaxWidth > 0 {
		start.MaxWidth = gson.Int(opts.MaxWidth)
	}
	if opts.MaxHeight > 0 {
		start.MaxHeight = gson.Int(opts.MaxHeight)
	}
	if err := start.Call(p.rp.Context(ctx)); err != nil {
		return wrapErr(ctx, "screencast", err)
	}
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer scancel()
		_ = proto.PageStopScreencast{}.Call(p.rp.Context(sctx))
	}()
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case msg, ok := <-events:
			if !ok {
				if err := ctx.Err(); err != nil {
					return err
				}
				return p.b.goneErr()
			}
			switch msg.Method {
			case "Page.screencastFrame":
				var e proto.PageScreencastFrame
				if !msg.Load(&e) || e.Metadata == nil {
					continue
				}
				f := drivers.ScreenFrame{JPEG: e.Data, Width: e.Metadata.DeviceWidth, Height: e.Metadata.DeviceHeight, Time: time.Now()}
				if e.Metadata.Timestamp > 0 {
					f.Time = e.Metadata.Timestamp.Time()
				}
				frame(f)
				if wait := every - time.Since(last); wait > 0 && !last.IsZero() {
					t := time.NewTimer(wait)
					select {
					case <-ctx.Done():
						t.Stop()
						return ctx.Err()
					case <-t.C:
					}
				}
				last = time.Now()
				if err := (proto.PageScreencastFrameAck{SessionID: e.SessionID}).Call(p.rp.Context(ctx)); err != nil {
					return wrapErr(ctx, "screencast", err)
				}
			case "Inspector.detached", "Target.targetCrashed":
				return p.b.goneErr()
			}
		}
	}
}

// pickedJS wraps a caller's function for ElementPicker: it runs on the
// node found (a text node's parent element), and reports its result with
// the element's border box in the top viewport (same-origin iframes'
// offsets added).
const pickedJS = `function (...a) {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return null;
  const f = (%s);
  const r = el.getBoundingClientRect();
  let x = r.left, y = r.top;
  try {
    for (let w = el.ownerDocument.defaultView; w && w !== w.top && w.frameElement; w = w.parent) {
      const fe = w.frameElement, fr = fe.getBoundingClientRect(), cs = getComputedStyle(fe);
      x += fr.left + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft);
      y += fr.top + parseFloat(cs.borderTopWidth) + parseFloat(cs.paddingTop);
    }
  } catch (e) {}
  return {v: f.apply(el, a), box: {x, y, w: r.width, h: r.height}};
}`

// EvalAt runs js on the element at (x, y) of the viewport
// (drivers.ElementPicker).
func (p *page) EvalAt(ctx context.Context, x, y float64, js string, args ...any) (any, drivers.Box, bool, error) {
	rp := p.rp.Context(ctx)
	loc, err := proto.DOMGetNodeForLocation{X: int(x), Y: int(y), IncludeUserAgentShadowDOM: false}.Call(rp)
	if err != nil {
		// no node there (outside the page, or a point no layout object covers)
		if ctx.Err() == nil && isNoNode(err) {
			return nil, drivers.Box{}, false, nil
		}
		return nil, drivers.Box{}, false, wrapErr(ctx, "element at a point", err)
	}
	return p.evalNode(ctx, loc.BackendNodeID, js, args...)
}

// isNoNode reports whether err is CDP's answer for a point without a node.
func isNoNode(err error) bool {
	s := err.Error()
	return strings.Contains(s, "No node found") || strings.Contains(s, "No node at given location")
}

// evalNode resolves a backend node and calls js on it (see pickedJS).
func (p *page) evalNode(ctx context.Context, id proto.DOMBackendNodeID, js string, args ...any) (any, drivers.Box, bool, error) {
	rp := p.rp.Context(ctx)
	obj, err := proto.DOMResolveNode{BackendNodeID: id, ObjectGroup: "rpa-picker"}.Call(rp)
	if err != nil {
		return nil, drivers.Box{}, false, wrapErr(ctx, "element at a point", err)
	}
	defer func() { _ = proto.RuntimeReleaseObjectGroup{ObjectGroup: "rpa-picker"}.Call(p.rp) }()
	if obj.Object == nil || obj.Object.ObjectID == "" {
		return nil, drivers.Box{}, false, nil
	}
	cargs := make([]*proto.RuntimeCallArgument, len(args))
	for i, a := range args {
		cargs[i] = &proto.RuntimeCallArgument{Value: gson.New(a)}
	}
	res, err := proto.RuntimeCallFunctionOn{ObjectID: obj.Object.ObjectID, FunctionDeclaration: fmt.Sprintf(pickedJS, js),
		Arguments: cargs, ReturnByValue: true, AwaitPromise: true}.Call(rp)
	if err != nil {
		return nil, drivers.Box{}, false, wrapErr(ctx, "element at a point", err)
	}
	if res.ExceptionDetails != nil {
		msg := res.ExceptionDetails.Text
		if res.ExceptionDetails.Exception != nil {
			msg = res.ExceptionDetails.Exception.Description
		}
		return nil, drivers.Box{}, false, fmt.Errorf("element at a point: %s", msg)
	}
	var out struct {
		V   any         `json:"v"`
		Box drivers.Box `json:"box"`
	}
	raw := res.Result.Value.JSON("", "")
	if raw == "null" || raw == "" {
		return nil, drivers.Box{}, false, nil
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, drivers.Box{}, false, fmt.Errorf("element at a point: bad result: %w", err)
	}
	return out.V, out.Box, true, nil
}

// inspectHighlight is how the picked element shows under the pointer in a
// visible window (the colours of DevTools' own element picker).
var inspectHighlight = &proto.OverlayHighlightConfig{
	ShowInfo:              true,
	ShowAccessibilityInfo: true,
	ContentColor:          &proto.DOMRGBA{R: 111, G: 168, B: 220, A: gson.Num(0.66)},
	PaddingColor:          &proto.DOMRGBA{R: 147, G: 196, B: 125, A: gson.Num(0.55)},
	BorderColor:           &proto.DOMRGBA{R: 255, G: 229, B: 153, A: gson.Num(0.66)},
	MarginColor:           &proto.DOMRGBA{R: 246, G: 178, B: 107, A: gson.Num(0.66)},
}

// Inspect waits for the person to click an element in inspect mode and
// runs js on it (drivers.ElementPicker).
func (p *page) Inspect(ctx context.Context, js string, args ...any) (any, drivers.Box, error) {
	rp := p.rp.Context(ctx)
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var picked proto.OverlayInspectNodeRequested
	wait := p.rp.Context(lctx).WaitEvent(&picked)
	// Chromium leaves inspect mode itself after a pick (and keeps the rest
	// of that click from the page); this is for an Inspect that ends
	// without one.
	defer func() {
		sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer scancel()
		srp := p.rp.Context(sctx)
		_ = proto.OverlaySetInspectMode{Mode: proto.OverlayInspectModeNone}.Call(srp)
		_ = proto.OverlayDisable{}.Call(srp)
		_ = proto.DOMDisable{}.Call(srp)
	}()
	if err := (proto.DOMEnable{}).Call(rp); err != nil {
		return nil, drivers.Box{}, wrapErr(ctx, "inspect", err)
	}
	if err := (proto.OverlayEnable{}).Call(rp); err != nil {
		return nil, drivers.Box{}, wrapErr(ctx, "inspect", err)
	}
	if err := (proto.OverlaySetInspectMode{Mode: proto.OverlayInspectModeSearchForNode, HighlightConfig: inspectHighlight}).Call(rp); err != nil {
		return nil, drivers.Box{}, wrapErr(ctx, "inspect", err)
	}
	done := make(chan struct{})
	go func() { wait(); close(done) }()
	select {
	case <-ctx.Done():
		return nil, drivers.Box{}, ctx.Err()
	case <-done:
	}
	if picked.BackendNodeID == 0 {
		if err := ctx.Err(); err != nil {
			return nil, drivers.Box{}, err
		}
		return nil, drivers.Box{}, errors.New("inspect: the page went away")
	}
	v, box, found, err := p.evalNode(ctx, picked.BackendNodeID, js, args...)
	if err == nil && !found {
		err = errors.New("inspect: the element clicked is gone")
	}
	return v, box, err
}

var _ drivers.Screencaster = (*page)(nil)
var _ drivers.ElementPicker = (*page)(nil)
