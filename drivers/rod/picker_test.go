package rod_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
)

// TestInspect: in inspect mode (the picker's visible window) a person's
// click picks the element under it, runs the function on it, and no part
// of it reaches the page; once an Inspect ends, clicks reach the page again.
func TestInspect(t *testing.T) {
	ctx := tctx(t, 30*time.Second)
	p, err := testBrowser.NewPage(ctx, url("basic.html"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ep := p.(drivers.ElementPicker)
	v, err := p.Eval(ctx, `() => { const r = document.querySelector('#go').getBoundingClientRect(); window.clicks = 0;
		document.querySelector('#go').addEventListener('click', () => window.clicks++); return [r.left + r.width / 2, r.top + r.height / 2]; }`)
	if err != nil {
		t.Fatal(err)
	}
	at := v.([]any)
	x, y := at[0].(float64), at[1].(float64)
	type result struct {
		v   any
		box drivers.Box
		err error
	}
	res := make(chan result, 1)
	go func() {
		pk, err := ep.Inspect(ctx, `function (tag) { return tag + ':' + this.id; }`, "picked")
		res <- result{pk.V, pk.Box, err}
	}()
	// click until the pick comes back: clicks before inspect mode is on
	// reach the page, the one that picks does not
	var r result
	calls := 0.0
	for done := false; !done; {
		if err := rodd.ClickAt(ctx, p, x, y); err != nil {
			t.Fatal(err)
		}
		calls++
		select {
		case r = <-res:
			done = true
		case <-ctx.Done():
			t.Fatal("no pick")
		default:
		}
	}
	if r.err != nil || r.v != "picked:go" {
		t.Fatalf("Inspect = %v, %v", r.v, r.err)
	}
	if r.box.W <= 0 || x < r.box.X || x > r.box.X+r.box.W || y < r.box.Y || y > r.box.Y+r.box.H {
		t.Errorf("box %+v does not hold the click at %.0f,%.0f", r.box, x, y)
	}
	n, _ := p.Eval(ctx, `() => window.clicks`)
	before := n.(float64)
	if before > calls-1 {
		t.Errorf("the picking click reached the page (%v clicks of %v)", before, calls)
	}
	// a cancelled Inspect returns and leaves inspect mode: a click reaches the page again
	cctx, cancel := context.WithCancel(ctx)
	go cancel()
	if _, err := ep.Inspect(cctx, `function () { return 1; }`); err == nil {
		t.Error("a cancelled Inspect returned no error")
	}
	if err := rodd.ClickAt(ctx, p, x, y); err != nil {
		t.Fatal(err)
	}
	if n, _ := p.Eval(ctx, `() => window.clicks`); n.(float64) != before+1 {
		t.Errorf("after Inspect ended a click did not reach the page (%v clicks, %v before)", n, before)
	}
}

// TestPickApart: in a browser with site isolation on (a remote pool's, an attached Chrome), a
// point on an iframe of another site, whose document lives in another renderer process, gives
// the iframe element with Apart set (the picker says it cannot look inside), with the frame
// around it (the same-origin basket frame) in Frames; an element of an in-process frame is not
// apart.
func TestPickApart(t *testing.T) {
	ws := isolatedWS(t)
	ctx := tctx(t, 60*time.Second)
	b, err := rodd.New().Launch(ctx, drivers.LaunchOptions{Remote: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := b.NewPage(ctx, url("frames.html")+"?xorigin="+strings.Replace(srv2.URL, "127.0.0.1", "localhost", 1)+"/")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	shop, err := p.Frame(ctx, []string{"#shop-frame"})
	if err != nil {
		t.Fatal(err)
	}
	coupon, err := shop.Frame(ctx, []string{"iframe[name=coupon]"})
	if err != nil {
		t.Fatal(err)
	}
	if !rodd.IsOutOfProcess(coupon) {
		t.Skip("the coupon frame is in the page's renderer: site isolation is off in this Chromium")
	}
	origin := func(f drivers.Frame, sel string) (float64, float64) {
		v, err := f.Eval(ctx, `(s) => { const e = document.querySelector(s), r = e.getBoundingClientRect(); return [r.left + e.clientLeft, r.top + e.clientTop, r.width, r.height]; }`, sel)
		if err != nil {
			t.Fatal(err)
		}
		a := v.([]any)
		return a[0].(float64), a[1].(float64)
	}
	sx, sy := origin(p, "#shop-frame")
	cx, cy := origin(shop, "iframe[name=coupon]")
	pk, err := p.(drivers.ElementPicker).EvalAt(ctx, sx+cx+20, sy+cy+10, `function () { return this.localName + (this.name ? '[' + this.name + ']' : ''); }`)
	if err != nil {
		t.Fatal(err)
	}
	if !pk.Found || pk.V != "iframe[coupon]" || !pk.Apart || len(pk.Frames) != 1 || pk.Frames[0] != "iframe[shop]" {
		t.Errorf("on the other site's frame: %+v, want the coupon iframe, apart, inside the shop frame", pk)
	}
	// the basket frame's own elements (same origin, same renderer) are picked inside it, not apart
	pk, err = p.(drivers.ElementPicker).EvalAt(ctx, sx+5, sy+5, `function () { return this.ownerDocument === document ? 'top' : 'inner'; }`)
	if err != nil || !pk.Found || pk.Apart || len(pk.Frames) != 1 {
		t.Errorf("in the basket frame: %+v %v", pk, err)
	}
}
