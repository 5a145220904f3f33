package rod

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
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
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
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
					if cerr := ctx.Err(); cerr != nil {
						// ctx ended while the ack was on its way: the
						// caller stopped us, that is not a timeout
						return cerr
					}
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
// the element's border box and the origin of its content box (where an
// iframe's document starts), both in its own document's viewport, and
// whether it is a frame element.
const pickedJS = `function (...a) {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return null;
  const f = (%s);
  const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
  return {v: f.apply(el, a), box: {x: r.left, y: r.top, w: r.width, h: r.height},
    inner: [r.left + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft), r.top + parseFloat(cs.borderTopWidth) + parseFloat(cs.paddingTop)],
    frame: el.localName === "iframe" || el.localName === "frame"};
}`

// EvalAt runs js on the element at (x, y) of the viewport
// (drivers.ElementPicker).
func (p *page) EvalAt(ctx context.Context, x, y float64, js string, args ...any) (drivers.Picked, error) {
	rp := p.rp.Context(ctx)
	loc, err := proto.DOMGetNodeForLocation{X: int(x), Y: int(y), IncludeUserAgentShadowDOM: false}.Call(rp)
	if err != nil {
		// no node there (outside the page, or a point no layout object covers)
		if ctx.Err() == nil && isNoNode(err) {
			return drivers.Picked{}, nil
		}
		return drivers.Picked{}, wrapErr(ctx, "element at a point", err)
	}
	return p.evalNode(ctx, loc.BackendNodeID, loc.FrameID, js, args...)
}

// isNoNode reports whether err is CDP's answer for a point without a node.
func isNoNode(err error) bool {
	s := err.Error()
	return strings.Contains(s, "No node found") || strings.Contains(s, "No node at given location")
}

// onNode is pickedJS's answer about one node.
type onNode struct {
	V     any         `json:"v"`
	Box   drivers.Box `json:"box"`
	Inner [2]float64  `json:"inner"`
	Frame bool        `json:"frame"`
}

// evalNode calls js on backend node id of frame fid ("": found by its
// box) and on the frame elements around it (see pickedJS), outermost
// first, adding their offsets to its box.
func (p *page) evalNode(ctx context.Context, id proto.DOMBackendNodeID, fid proto.PageFrameID, js string, args ...any) (drivers.Picked, error) {
	// a group of this call's own: a hover and a pick may run at once, and one's release must not
	// free the other's objects
	group := fmt.Sprintf("rpa-picker-%d", pickGroups.Add(1))
	defer func() { _ = proto.RuntimeReleaseObjectGroup{ObjectGroup: group}.Call(p.rp) }()
	el, found, err := p.callOnNode(ctx, id, group, js, args)
	if err != nil || !found {
		return drivers.Picked{}, err
	}
	out := drivers.Picked{Found: true, V: el.V, Box: el.Box}
	if fid == "" {
		fid = p.frameOfNode(ctx, id)
	}
	owners, err := p.frameOwners(ctx, fid)
	if err != nil {
		return drivers.Picked{}, wrapErr(ctx, "element at a point", err)
	}
	for _, oid := range owners {
		o, ok, err := p.callOnNode(ctx, oid, group, js, args)
		if err != nil {
			return drivers.Picked{}, err
		}
		if !ok {
			return drivers.Picked{}, fmt.Errorf("element at a point: the frame around it is gone")
		}
		out.Frames = append(out.Frames, o.V)
		out.Box.X += o.Inner[0]
		out.Box.Y += o.Inner[1]
	}
	if el.Frame {
		out.Apart = p.frameApart(ctx, id)
	}
	return out, nil
}

// pickGroups numbers the object groups of evalNode's calls.
var pickGroups atomic.Int64

// callOnNode resolves a backend node (its object in group) and calls js on it (pickedJS).
func (p *page) callOnNode(ctx context.Context, id proto.DOMBackendNodeID, group, js string, args []any) (onNode, bool, error) {
	rp := p.rp.Context(ctx)
	obj, err := proto.DOMResolveNode{BackendNodeID: id, ObjectGroup: group}.Call(rp)
	if err != nil {
		return onNode{}, false, wrapErr(ctx, "element at a point", err)
	}
	if obj.Object == nil || obj.Object.ObjectID == "" {
		return onNode{}, false, nil
	}
	cargs := make([]*proto.RuntimeCallArgument, len(args))
	for i, a := range args {
		cargs[i] = &proto.RuntimeCallArgument{Value: gson.New(a)}
	}
	res, err := proto.RuntimeCallFunctionOn{ObjectID: obj.Object.ObjectID, FunctionDeclaration: fmt.Sprintf(pickedJS, js),
		Arguments: cargs, ReturnByValue: true, AwaitPromise: true}.Call(rp)
	if err != nil {
		return onNode{}, false, wrapErr(ctx, "element at a point", err)
	}
	if res.ExceptionDetails != nil {
		msg := res.ExceptionDetails.Text
		if res.ExceptionDetails.Exception != nil {
			msg = res.ExceptionDetails.Exception.Description
		}
		return onNode{}, false, fmt.Errorf("element at a point: %s", msg)
	}
	raw := res.Result.Value.JSON("", "")
	if raw == "null" || raw == "" {
		return onNode{}, false, nil
	}
	var out onNode
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return onNode{}, false, fmt.Errorf("element at a point: bad result: %w", err)
	}
	return out, true, nil
}

// frameOfNode is the frame a backend node belongs to, asked at the centre
// of its box ("" when that does not find it: the top document is then
// assumed). Inspect's event names the node only.
func (p *page) frameOfNode(ctx context.Context, id proto.DOMBackendNodeID) proto.PageFrameID {
	rp := p.rp.Context(ctx)
	bm, err := proto.DOMGetBoxModel{BackendNodeID: id}.Call(rp)
	if err != nil || bm.Model == nil || len(bm.Model.Border) < 8 {
		return ""
	}
	q := bm.Model.Border
	cx, cy := (q[0]+q[2]+q[4]+q[6])/4, (q[1]+q[3]+q[5]+q[7])/4
	loc, err := proto.DOMGetNodeForLocation{X: int(cx), Y: int(cy)}.Call(rp)
	if err != nil || loc.BackendNodeID != id {
		return ""
	}
	return loc.FrameID
}

// frameOwners lists the backend nodes of the frame elements around frame
// fid, outermost first (none for the main frame).
func (p *page) frameOwners(ctx context.Context, fid proto.PageFrameID) ([]proto.DOMBackendNodeID, error) {
	if fid == "" {
		return nil, nil
	}
	rp := p.rp.Context(ctx)
	tree, err := proto.PageGetFrameTree{}.Call(rp)
	if err != nil {
		return nil, err
	}
	parent := map[proto.PageFrameID]proto.PageFrameID{}
	var walk func(t *proto.PageFrameTree)
	walk = func(t *proto.PageFrameTree) {
		for _, c := range t.ChildFrames {
			parent[c.Frame.ID] = t.Frame.ID
			walk(c)
		}
	}
	walk(tree.FrameTree)
	var owners []proto.DOMBackendNodeID
	for f := fid; f != tree.FrameTree.Frame.ID; f = parent[f] {
		if _, ok := parent[f]; !ok || len(owners) > 32 {
			break // not a frame of this tab's tree (it went away): as found
		}
		o, err := proto.DOMGetFrameOwner{FrameID: f}.Call(rp)
		if err != nil {
			return nil, err
		}
		owners = append([]proto.DOMBackendNodeID{o.BackendNodeID}, owners...)
	}
	return owners, nil
}

// frameApart reports whether frame element id's document lives in
// another renderer process: a target of type iframe of its own.
func (p *page) frameApart(ctx context.Context, id proto.DOMBackendNodeID) bool {
	rp := p.rp.Context(ctx)
	n, err := proto.DOMDescribeNode{BackendNodeID: id}.Call(rp)
	if err != nil || n.Node == nil || n.Node.FrameID == "" {
		return false
	}
	ts, err := proto.TargetGetTargets{}.Call(p.b.rb.Context(ctx))
	if err != nil {
		return false
	}
	for _, t := range ts.TargetInfos {
		if t.Type == "iframe" && string(t.TargetID) == string(n.Node.FrameID) {
			return true
		}
	}
	return false
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
func (p *page) Inspect(ctx context.Context, js string, args ...any) (drivers.Picked, error) {
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
		return drivers.Picked{}, wrapErr(ctx, "inspect", err)
	}
	if err := (proto.OverlayEnable{}).Call(rp); err != nil {
		return drivers.Picked{}, wrapErr(ctx, "inspect", err)
	}
	if err := (proto.OverlaySetInspectMode{Mode: proto.OverlayInspectModeSearchForNode, HighlightConfig: inspectHighlight}).Call(rp); err != nil {
		return drivers.Picked{}, wrapErr(ctx, "inspect", err)
	}
	done := make(chan struct{})
	go func() { wait(); close(done) }()
	select {
	case <-ctx.Done():
		return drivers.Picked{}, ctx.Err()
	case <-done:
	}
	if picked.BackendNodeID == 0 {
		if err := ctx.Err(); err != nil {
			return drivers.Picked{}, err
		}
		return drivers.Picked{}, errors.New("inspect: the page went away")
	}
	out, err := p.evalNode(ctx, picked.BackendNodeID, "", js, args...)
	if err == nil && !out.Found {
		err = errors.New("inspect: the element clicked is gone")
	}
	return out, err
}

var _ drivers.Screencaster = (*page)(nil)
var _ drivers.ElementPicker = (*page)(nil)
