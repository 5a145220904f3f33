package drivers

import (
	"context"
	"time"
)

// Screencaster is implemented by pages that can stream pictures of their
// viewport as the page paints them (CDP Page.startScreencast): the
// console's element picker shows a headless page this way. Optional, like
// Inspector: callers type-assert and do without. drivers/rod implements it.
type Screencaster interface {
	// Screencast sends a JPEG of the viewport to frame each time the page
	// paints, at most one per opts.Every, until ctx ends; it then stops
	// the screencast and returns ctx's error (or the browser's, when the
	// page goes away first). frame runs on one goroutine, one call at a
	// time; the browser's next picture is asked for only after it returns
	// (each frame is acknowledged then), so a slow receiver slows the
	// stream instead of queueing pictures. The page paints a first
	// picture when the screencast starts.
	Screencast(ctx context.Context, opts ScreencastOptions, frame func(ScreenFrame)) error
}

// ScreencastOptions shape a Screencast.
type ScreencastOptions struct {
	// Quality is the JPEG quality, 1-100 (0: 60).
	Quality int
	// MaxWidth and MaxHeight bound the picture in device pixels (0: the
	// viewport's size); the page is scaled down to fit.
	MaxWidth, MaxHeight int
	// Every is the shortest time between two frames (0: 100 ms, 10 per
	// second at most).
	Every time.Duration
}

// ScreenFrame is one picture of a Screencast.
type ScreenFrame struct {
	// JPEG is the picture.
	JPEG []byte
	// Width and Height are the viewport's size in CSS pixels: a point at
	// (px, py) of a picture shown w×h wide is at (px*Width/w,
	// py*Height/h) of the viewport (ElementPicker's coordinates).
	Width, Height float64
	// Time is when the browser painted it.
	Time time.Time
}

// ElementPicker is implemented by pages that can name the element at a
// point of their viewport, and let a person point at one in a visible
// window: the console's element picker (docs/console.md, "Pick"). The JS
// function js runs on the element found (`function (...args) { this }`),
// as Frame.Eval runs one in a document, and its JSON-decoded result is
// returned; it also runs on each iframe element around the element, in
// that iframe's parent document (Picked.Frames): callers pass package
// selectorgen's generator to get the element's selectors and its frames'.
// Optional; drivers/rod implements it.
type ElementPicker interface {
	// EvalAt finds the element at (x, y) of the viewport, in CSS pixels
	// (CDP DOM.getNodeForLocation: the element painted on top there, in
	// the top document or an iframe's of the same renderer, whatever its
	// origin; a text node gives its parent element; in an iframe that
	// lives in another renderer process, the iframe element, Apart set),
	// and calls js on it with args. Found is false when no element is
	// there.
	EvalAt(ctx context.Context, x, y float64, js string, args ...any) (Picked, error)
	// Inspect lets the person point at an element in the page's window:
	// the browser's own highlight (CDP Overlay inspect mode) follows the
	// pointer, and the element clicked (the click does not reach the page)
	// gets js with args. It waits until that click or until ctx ends, and
	// leaves inspect mode either way (the page takes clicks again).
	Inspect(ctx context.Context, js string, args ...any) (Picked, error)
}

// Picked is what an ElementPicker found.
type Picked struct {
	// Found is false when no element was there (the rest is zero).
	Found bool
	// V is js's JSON-decoded result on the element.
	V any
	// Box is the element's border box in the top viewport, CSS pixels
	// (the offsets of the iframes around it added).
	Box Box
	// Frames are js's results on the iframe elements around the element,
	// outermost first (empty in the top document): what `frame` statements
	// enter, in order, to reach it.
	Frames []any
	// Apart says the element is an iframe whose document lives in another
	// renderer process (an out-of-process frame: another site, with site
	// isolation on), which the picker cannot look into.
	Apart bool
}
