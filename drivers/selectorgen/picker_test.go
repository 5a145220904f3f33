package selectorgen_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/selectorgen"
)

// centreJS scrolls the element found by findJS into view and returns its
// border box in the top viewport (same-origin iframes' offsets added).
const centreJS = `(...a) => { const el = ` + findJS + `; el.scrollIntoView({block: 'center'}); const r = el.getBoundingClientRect();
  let x = r.left, y = r.top;
  for (let w = window; w !== w.top; w = w.parent) { const fe = w.frameElement, fr = fe.getBoundingClientRect(), cs = getComputedStyle(fe);
    x += fr.left + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft); y += fr.top + parseFloat(cs.borderTopWidth) + parseFloat(cs.paddingTop); }
  return [x, y, r.width, r.height]; }`

// TestAtPoint is the element picker's path (drivers.ElementPicker.EvalAt,
// CDP DOM.getNodeForLocation) over the hard pages' cases: the element at
// the centre of each case's element gives the same fallback list as the
// generator run on that element directly (the recorder's path), its best
// selector is the one the table expects, never an XPath from /html, and
// its box is the element's. An element under
// another one gives the one on top, as the person saw it.
func TestAtPoint(t *testing.T) {
	covered := map[string]string{"overlay.html": "#consent"}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	pages := map[string]drivers.Page{}
	defer func() {
		for _, p := range pages {
			_ = p.Close()
		}
	}()
	for _, c := range cases {
		pg := pages[c.page]
		if pg == nil {
			var err error
			if pg, err = browser.NewPage(ctx, srv.URL+"/"+c.page); err != nil {
				t.Fatal(err)
			}
			pages[c.page] = pg
		}
		picker, ok := pg.(drivers.ElementPicker)
		if !ok {
			t.Fatal("drivers/rod's page is not a drivers.ElementPicker")
		}
		var f drivers.Frame = pg
		for _, fs := range c.frames {
			fctx, fcancel := context.WithTimeout(ctx, 10*time.Second)
			child, err := f.Frame(fctx, fs)
			fcancel()
			if err != nil {
				t.Fatalf("%s: frame %v: %v", c.page, fs, err)
			}
			f = child
		}
		if c.gone != "" {
			if _, err := f.WaitState(ctx, []string{c.gone}, drivers.StateDetached); err != nil {
				t.Fatalf("%s: %s did not leave: %v", c.page, c.seed, err)
			}
		}
		if _, _, err := f.Locate(ctx, []string{"pierce/" + c.seed}, drivers.Attached|drivers.Visible); err != nil {
			t.Fatalf("%s %s: %v", c.page, c.seed, err)
		}
		want, err := selectorgen.Of(ctx, f, findJS, 0, c.seed)
		if err != nil || want == nil {
			t.Fatalf("%s %s: %v %v", c.page, c.seed, want, err)
		}
		v, err := f.Eval(ctx, centreJS, c.seed)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := v.([]any)
		if len(r) != 4 {
			t.Fatalf("%s %s: box %v", c.page, c.seed, v)
		}
		x, y, w, h := r[0].(float64), r[1].(float64), r[2].(float64), r[3].(float64)
		got, box, err := selectorgen.At(ctx, picker, x+w/2, y+h/2, 0)
		if err != nil || got == nil {
			t.Errorf("%s %s: At(%.0f, %.0f) = %v, %v", c.page, c.seed, x+w/2, y+h/2, got, err)
			continue
		}
		if cover := covered[c.page]; cover != "" {
			// what is painted on top is picked: the consent layer over the link
			if first(got.Selectors) != cover {
				t.Errorf("%s %s: picked %s %q, want the cover %s", c.page, c.seed, got.Desc, got.Selectors, cover)
			}
			continue
		}
		if !slices.Equal(got.Selectors, want.Selectors) || got.Desc != want.Desc {
			t.Errorf("%s %s: picked %s %q, want %s %q", c.page, c.seed, got.Desc, got.Selectors, want.Desc, want.Selectors)
		}
		if c.first != "" && first(got.Selectors) != c.first {
			t.Errorf("%s %s: best %q, want %q", c.page, c.seed, first(got.Selectors), c.first)
		}
		if strings.HasPrefix(first(got.Selectors), "xpath=/html") {
			t.Errorf("%s %s: an absolute XPath first: %q", c.page, c.seed, got.Selectors)
		}
		if math.Abs(box.X-x) > 1 || math.Abs(box.Y-y) > 1 || math.Abs(box.W-w) > 1 || math.Abs(box.H-h) > 1 {
			t.Errorf("%s %s: box %+v, want %.1f,%.1f %.1fx%.1f", c.page, c.seed, box, x, y, w, h)
		}
	}
	// a point outside the page's content: the root element, or nothing
	pg := pages["basic.html"]
	got, _, err := selectorgen.At(ctx, pg.(drivers.ElementPicker), 1270, 710, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got != nil && got.Tag != "html" && got.Tag != "body" {
		t.Errorf("the empty corner picked %s", got.Desc)
	}
}

// TestScreencastStoppedInFrame: a caller that ends the screencast's ctx
// while a picture is being handed over gets ctx's error back, not a
// timeout (CI saw "screencast: timed out" when the stop raced the
// picture's acknowledgement; ending ctx inside frame makes that race
// certain).
func TestScreencastStoppedInFrame(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pg, err := browser.NewPage(ctx, srv.URL+"/basic.html")
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	err = pg.(drivers.Screencaster).Screencast(sctx, drivers.ScreencastOptions{}, func(drivers.ScreenFrame) { stop() })
	if err != context.Canceled {
		t.Errorf("Screencast stopped inside frame returned %v, want context.Canceled", err)
	}
}

// TestScreencast: the page's pictures arrive as JPEGs of the viewport's
// size, paced, and a change on the page paints a new one.
func TestScreencast(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pg, err := browser.NewPage(ctx, srv.URL+"/basic.html")
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	sc, ok := pg.(drivers.Screencaster)
	if !ok {
		t.Fatal("drivers/rod's page is not a drivers.Screencaster")
	}
	frames := make(chan drivers.ScreenFrame, 64)
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- sc.Screencast(sctx, drivers.ScreencastOptions{Quality: 50, MaxWidth: 640}, func(f drivers.ScreenFrame) {
			select {
			case frames <- f:
			default:
			}
		})
	}()
	f := <-frames
	if len(f.JPEG) < 100 || f.JPEG[0] != 0xFF || f.JPEG[1] != 0xD8 {
		t.Fatalf("first frame is not a JPEG (%d bytes)", len(f.JPEG))
	}
	if f.Width != 1280 || f.Height != 720 {
		t.Errorf("frame viewport %vx%v, want 1280x720", f.Width, f.Height)
	}
	// a change paints a new picture
	if _, err := pg.Eval(ctx, `() => { document.body.style.background = '#c00'; return 1; }`); err != nil {
		t.Fatal(err)
	}
	select {
	case <-frames:
	case <-ctx.Done():
		t.Fatal("no frame after the page changed")
	}
	stop()
	if err := <-done; err != context.Canceled {
		t.Errorf("Screencast returned %v after its ctx ended", err)
	}
}
