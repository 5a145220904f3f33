package selectorgen_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/selectorgen"
)

// TestAtAcrossOrigins: a point on an element inside an iframe of another origin, inside which
// is an iframe of yet another, is picked inside (the launched Chromium keeps such frames in
// its renderer): the element's selectors are its own document's, Frames names both iframes
// outermost first (each in its parent document, where the generator cannot reach across
// origins), the box is in the top viewport, and `frame` by frame the selectors find exactly
// that element, as a flow replays it.
func TestAtAcrossOrigins(t *testing.T) {
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `<!doctype html><meta charset="utf-8"><body style="margin:0">`+body+`</body>`)
		}
	}
	inner := httptest.NewServer(page(`<p>Card</p><button data-testid="pay" style="margin:10px 30px;width:120px;height:40px">Pay 支付</button>`))
	defer inner.Close()
	// the middle page is on "localhost": another origin than 127.0.0.1's pages around and in it
	middle := httptest.NewServer(page(fmt.Sprintf(`<h2 style="margin:0;height:50px">Checkout</h2><iframe title="Card form" src="%s" style="margin-left:40px;width:300px;height:150px;border:5px solid #000;padding:3px"></iframe>`, inner.URL)))
	defer middle.Close()
	outer := httptest.NewServer(page(fmt.Sprintf(`<div style="height:100px">Shop</div><iframe name="checkout" src="%s" style="margin-left:100px;width:500px;height:300px;border:0"></iframe>`,
		strings.Replace(middle.URL, "127.0.0.1", "localhost", 1))))
	defer outer.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pg, err := browser.NewPage(ctx, outer.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	// Down the frames as a flow goes: the button's box in its own document.
	mid, err := pg.Frame(ctx, []string{`iframe[name="checkout"]`})
	if err != nil {
		t.Fatal(err)
	}
	in, err := mid.Frame(ctx, []string{"iframe"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := in.Eval(ctx, `() => new Promise((ok) => { const f = () => { const b = document.querySelector("button"); if (!b) return setTimeout(f, 20); const r = b.getBoundingClientRect(); ok([r.left, r.top, r.width, r.height]); }; f(); })`)
	if err != nil {
		t.Fatal(err)
	}
	r := v.([]any)
	// the top viewport: the outer iframe at (100, 100), the inner one's content at 40+5+3, 50+5+3 in it
	x, y := 100+48+r[0].(float64), 100+58+r[1].(float64)
	got, box, err := selectorgen.At(ctx, pg.(drivers.ElementPicker), x+10, y+10, 0)
	if err != nil || got == nil {
		t.Fatalf("At: %v %v", got, err)
	}
	if got.Desc != `button "Pay 支付"` || first(got.Selectors) != `[data-testid="pay"]` {
		t.Errorf("picked %s %q", got.Desc, got.Selectors)
	}
	if len(got.Frames) != 2 || first(got.Frames[0]) != `iframe[name="checkout"]` || first(got.Frames[1]) != "iframe" {
		t.Errorf("frames %q", got.Frames)
	}
	t.Logf("picked %s %q in frames %q", got.Desc, got.Selectors, got.Frames)
	if got.Apart {
		t.Error("an in-process frame said apart")
	}
	if math.Abs(box.X-x) > 1 || math.Abs(box.Y-y) > 1 || math.Abs(box.W-r[2].(float64)) > 1 {
		t.Errorf("box %+v, want at %.0f,%.0f", box, x, y)
	}
	// Replayed frame by frame, every selector finds that one element.
	var f drivers.Frame = pg
	for _, fs := range got.Frames {
		if f, err = f.Frame(ctx, fs); err != nil {
			t.Fatalf("frame %q: %v", fs, err)
		}
	}
	for _, sel := range got.Selectors {
		if n, err := f.Count(ctx, sel); err != nil || n != 1 {
			t.Errorf("%s in the frames: %d %v", sel, n, err)
		}
	}
}
