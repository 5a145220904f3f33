package rod_test

import (
	"context"
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
