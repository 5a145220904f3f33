package rod_test

import (
	"context"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
)

// forceClicker is the optional method stdlib uses for `click force: true`.
type forceClicker interface {
	ForceClick(ctx context.Context, button string, count int) error
}

// TestForceClick: a forced click reaches the element itself, never the
// element that covers it (shared cases 06: a consent wall and a transparent
// link layer); an uncovered element gets the real (trusted) mouse click.
func TestForceClick(t *testing.T) {
	p := open(t, "overlay.html")
	ctx := tctx(t, 15*time.Second)
	if _, err := p.Eval(ctx, `() => {
		window.__trusted = {};
		for (const id of ['accept', 'continue', 'buy'])
			document.getElementById(id).addEventListener('click', (e) => { window.__trusted[id] = e.isTrusted; });
	}`); err != nil {
		t.Fatal(err)
	}
	force := func(sel string) {
		t.Helper()
		el := locate(t, p, drivers.Attached, sel)
		fc, ok := el.(forceClicker)
		if !ok {
			t.Fatalf("%T has no ForceClick", el)
		}
		if err := fc.ForceClick(ctx, "left", 1); err != nil {
			t.Fatalf("force click %s: %v", sel, err)
		}
	}
	force("#continue") // under the consent wall
	waitResult(t, p, "continued")
	force("#accept") // not covered: the real mouse
	if _, err := p.WaitState(ctx, []string{"#spinner"}, drivers.StateDetached); err != nil {
		t.Fatal(err)
	}
	force("#buy") // under the transparent .card-link layer
	waitResult(t, p, "continued,bought")
	for _, id := range []string{"#overlay-hits", "#backdrop-hits"} {
		if got := text(t, p, id); got != "0" {
			t.Errorf("%s = %s, want 0", id, got)
		}
	}
	got, err := p.Eval(ctx, `() => window.__trusted`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"continue": false, "accept": true, "buy": false}
	m, _ := got.(map[string]any)
	for k, v := range want {
		if m[k] != v {
			t.Errorf("isTrusted of the %s click = %v, want %v (all: %v)", k, m[k], v, got)
		}
	}
}
