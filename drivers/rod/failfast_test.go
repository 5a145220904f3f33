package rod_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// TestFailFast: a wait for an element ends before its time when the page
// has settled into a state that will not produce it, with the reason in
// the error (a drivers.PageState, final: no try can help): a sign-in wall
// by its content, an error shown next to the form of the last action, an
// HTTP error document. That the wait's context is still alive when the
// error comes shows it ended early (no clock is read). A quiet page without
// the element is reported when the wait runs out, as settled, not final (a
// flow's retries decide).
func TestFailFast(t *testing.T) {
	cases := []struct {
		name  string
		page  string
		setup func(t *testing.T, p drivers.Page)
		sels  []string
		kind  string
		says  string
	}{
		{name: "sign-in wall", page: "wall.html", sels: []string{`textarea[name="wikitext"]`, "#wiki__text"},
			kind: drivers.PageSignIn, says: `the page is a sign-in page: it asks for a password and says "You are currently not logged in!`},
		{name: "error near the last action", page: "refused.html", sels: []string{"#done"},
			setup: func(t *testing.T, p drivers.Page) { click(t, p, "#save") },
			kind:  drivers.PageError, says: `the page shows an error: "Quantity must be a whole number"`},
		{name: "HTTP error document", page: "status/500", sels: []string{"#orders"},
			kind: drivers.PageHTTPError, says: `the page is an HTTP 500 error document ("Internal Server Error")`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := open(t, c.page)
			if c.setup != nil {
				c.setup(t, p)
			}
			ctx := tctx(t, 20*time.Second)
			_, _, err := p.Locate(ctx, c.sels, drivers.ForInput)
			if err == nil {
				t.Fatal("found an element that is not there")
			}
			if ctx.Err() != nil {
				t.Fatalf("the wait ran out: %v", err)
			}
			st := drivers.StateOf(err)
			if st == nil || st.Kind != c.kind || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("got %v (state %+v), want %s saying %s", err, st, c.kind, c.says)
			}
			if !core.IsFinal(err) || core.KindOf(err) != core.KindNotFound || !strings.HasPrefix(err.Error(), "no element matches ") {
				t.Errorf("final %v, kind %s: %v", core.IsFinal(err), core.KindOf(err), err)
			}
			if drivers.Seen(err) != st.Text {
				t.Errorf("seen %q", drivers.Seen(err))
			}
		})
	}
	t.Run("quiet page", func(t *testing.T) {
		p := navigated(t, "basic.html")
		ctx := tctx(t, 2500*time.Millisecond)
		_, _, err := p.Locate(ctx, []string{"#nope"}, drivers.ForPointer)
		st := drivers.StateOf(err)
		if ctx.Err() == nil || st == nil || st.Kind != drivers.PageSettled || core.IsFinal(err) {
			t.Fatalf("got %v (state %+v, ctx %v)", err, st, ctx.Err())
		}
		if !strings.Contains(err.Error(), `no element matches "#nope"; the page had settled (nothing loaded or changed for `) {
			t.Errorf("message %q", err)
		}
	})
	t.Run("the sign-in form itself is no wall", func(t *testing.T) {
		p := navigated(t, "wall.html")
		ctx := tctx(t, 2500*time.Millisecond)
		_, _, err := p.Locate(ctx, []string{`input[name="user"]`, `aria/User[role="textbox"]`}, drivers.ForInput)
		if st := drivers.StateOf(err); ctx.Err() == nil || st == nil || st.Kind != drivers.PageSettled {
			t.Fatalf("a step looking for the sign-in form's fields: %v (state %+v)", err, st)
		}
	})
	t.Run("a notice is no error", func(t *testing.T) {
		p := navigated(t, "refused.html")
		locate(t, p, drivers.ForInput, "#qty") // the last action's element, in the form
		ctx := tctx(t, 2500*time.Millisecond)
		_, _, err := p.Locate(ctx, []string{"#done"}, drivers.ForRead)
		if st := drivers.StateOf(err); ctx.Err() == nil || st == nil || st.Kind != drivers.PageSettled {
			t.Fatalf("got %v (state %+v)", err, st)
		}
	})
	t.Run("a request in flight is not settled", func(t *testing.T) {
		p := open(t, "appears.html")
		sl := p.(drivers.SettledLocator)
		if _, _, err := sl.LocateUntilSettled(tctx(t, 10*time.Second), []string{"#report"}, drivers.ForRead, time.Second); err != nil {
			t.Fatalf("gave up on an element a slow request brings: %v", err)
		}
	})
	t.Run("until settled", func(t *testing.T) {
		p := open(t, "basic.html")
		ctx := tctx(t, 20*time.Second)
		_, _, err := p.(drivers.SettledLocator).LocateUntilSettled(ctx, []string{"#nope"}, drivers.ForRead, time.Second)
		if st := drivers.StateOf(err); ctx.Err() != nil || st == nil || st.Kind != drivers.PageSettled || core.IsFinal(err) {
			t.Fatalf("got %v (state %+v)", err, st)
		}
	})
}

// navigated opens a blank tab and navigates it to name, so that the driver
// sees every request of the page (unlike a tab's first page, loaded while
// it attaches).
func navigated(t *testing.T, name string) drivers.Page {
	t.Helper()
	p := open(t, "")
	if err := p.Navigate(tctx(t, 20*time.Second), url(name)); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFailFastWaits: wait url:, wait text: and wait SEL end early on a
// page that settled into an error or a sign-in page, saying so.
func TestFailFastWaits(t *testing.T) {
	p := open(t, "refused.html")
	click(t, p, "#save")
	for name, wait := range map[string]func(ctx context.Context) error{
		"url":  func(ctx context.Context) error { return p.WaitURL(ctx, "/orders/") },
		"text": func(ctx context.Context) error { return p.WaitText(ctx, "Saved") },
		"state": func(ctx context.Context) error {
			_, err := p.WaitState(ctx, []string{"#done"}, drivers.StateVisible)
			return err
		},
	} {
		ctx := tctx(t, 20*time.Second)
		err := wait(ctx)
		st := drivers.StateOf(err)
		if err == nil || ctx.Err() != nil || st == nil || st.Kind != drivers.PageError || !core.IsFinal(err) {
			t.Errorf("%s: %v (state %+v, ctx %v)", name, err, st, ctx.Err())
		}
	}
	w := open(t, "wall.html")
	ctx := tctx(t, 20*time.Second)
	if err := w.WaitURL(ctx, "/edit"); drivers.StateOf(err) == nil || drivers.StateOf(err).Kind != drivers.PageSignIn || ctx.Err() != nil {
		t.Errorf("wait url on a wall: %v", err)
	}
	// a wait for the sign-in page's own URL is no wall
	ctx = tctx(t, 2*time.Second)
	if err := w.WaitURL(ctx, "/login"); drivers.StateOf(err) != nil {
		t.Errorf("wait url /login: %v", err)
	}
}
