package rod_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
)

// A locate asked for the element's fingerprint (drivers.TakeFingerprint,
// what a healing hook asks) takes it in its own evaluation, in the first
// document of the tab and in one a navigation brought (whose first such
// locate brings the healing helper along): Fingerprint then answers
// without the page (a cancelled context) and says what a separate
// evaluation says. With a click's aim or a fill's preparation in the same
// look the action still does its work. (Before, every element a run found
// cost one more evaluation, two in a new document, awaited before the
// action.)
func TestFingerprintInLocate(t *testing.T) {
	ctx := tctx(t, 60*time.Second)
	p, cmds := countedPage(t, "basic.html")
	h, ok := p.(drivers.Healer)
	if !ok {
		t.Fatal("the page is not a drivers.Healer")
	}
	locate(t, p, drivers.ForRead, "body") // the engine's first call in the tab is not what is counted
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	check := func(doc string, want drivers.Checks, sel string) drivers.Element {
		t.Helper()
		cmds.Take()
		el := locate(t, p, want|drivers.TakeFingerprint, sel)
		// One evaluation when its first in-page slice finds the element; a loaded
		// machine may need another slice (see TestTableInLocate). The fingerprint
		// answering with a cancelled context below is the proof; the bench holds the
		// count.
		if ev := sent(cmds, "Runtime.", "DOM."); len(ev) == 0 {
			t.Errorf("%s: the locate of %s sent no evaluation", doc, sel)
		} else if len(ev) > 1 {
			t.Logf("%s: the locate of %s took %d evaluations (a slow machine)", doc, sel, len(ev))
		}
		got, err := h.Fingerprint(gone, el)
		if err != nil {
			t.Fatalf("%s: the fingerprint of %s asked the page: %v", doc, sel, err)
		}
		if n := len(cmds.Take()); n != 0 {
			t.Errorf("%s: the fingerprint of %s sent %d commands, want none", doc, sel, n)
		}
		plain := locate(t, p, want, sel)
		fp, err := h.Fingerprint(ctx, plain)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, fp) {
			t.Errorf("%s: the locate's fingerprint of %s is\n%+v\nan evaluation of its own says\n%+v", doc, sel, got, fp)
		}
		return el
	}

	check("the first document", drivers.ForRead, "#go") // brings the helper
	check("the first document", drivers.ForRead, "#name")
	el := check("the first document", drivers.ForInput|drivers.PrepFill, "#name")
	if err := el.Fill(ctx, "Ada"); err != nil {
		t.Fatal(err)
	}
	el = check("the first document", drivers.ForPointer|drivers.Aim, "#go")
	if err := el.Click(ctx, "left", 1); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitText(ctx, "hello:Ada:true"); err != nil {
		t.Fatalf("the fill and click after locates that took fingerprints: %v", err)
	}

	if err := p.Navigate(ctx, url("basic2.html")); err != nil {
		t.Fatal(err)
	}
	el = check("a document the driver navigated to", drivers.ForPointer|drivers.Aim, "#back")
	if err := el.Click(ctx, "left", 1); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitURL(ctx, "basic.html"); err != nil {
		t.Fatal(err)
	}
	check("a document a link navigated to", drivers.ForInput|drivers.PrepFill, "#name")

	// A locate that waits (more than one in-page slice) brings the helper
	// with its first evaluation only.
	if err := p.Navigate(ctx, url("basic2.html")); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Eval(ctx, `() => setTimeout(() => {
  const b = document.createElement('button');
  b.id = 'later';
  b.textContent = 'Later';
  document.body.append(b);
}, 1500)`); err != nil {
		t.Fatal(err)
	}
	cmds.Take()
	el = locate(t, p, drivers.ForPointer|drivers.TakeFingerprint, "#later")
	methods, sizes := cmds.TakeSized()
	big := 0
	evals := 0
	for i, m := range methods {
		if m == "Runtime.evaluate" {
			evals++
			if sizes[i] > 10000 {
				big++
			}
		}
	}
	if evals < 2 || big != 1 {
		t.Errorf("a locate that waited sent %d evaluations, %d of them with the helper; want 2 or more, one with it (%v %v)", evals, big, methods, sizes)
	}
	if fp, err := h.Fingerprint(gone, el); err != nil || fp.ID != "later" {
		t.Errorf("the fingerprint of the element a waiting locate found: %+v %v", fp, err)
	}
}

// A locate for a table action (drivers.ReadTable) reads the table in its
// own evaluation, once the page's due tasks ran: Table then answers
// without the page and says what a call of its own says, rows a render
// puts in a table it has just inserted included; an element that is no
// table gets the table call's own error.
func TestTableInLocate(t *testing.T) {
	ctx := tctx(t, 60*time.Second)
	p, cmds := countedPage(t, "table.html")
	locate(t, p, drivers.ForRead, "body") // the engine's first call in the tab is not what is counted
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	read := func(sel string) *drivers.Grid {
		t.Helper()
		cmds.Take()
		el := locate(t, p, drivers.ForRead|drivers.ReadTable, sel)
		// One evaluation when its first in-page slice finds the table; a loaded machine
		// (CI, -race, load 5) may need a second slice, each a locate's evaluation. That
		// the read came with the locate is what Table with a cancelled context proves
		// below; bench's TestActionBreakdown holds the count (table: 1 command).
		if ev := sent(cmds, "Runtime.", "DOM."); len(ev) == 0 {
			t.Errorf("the locate of %s sent no evaluation", sel)
		} else if len(ev) > 1 {
			t.Logf("the locate of %s took %d evaluations (a slow machine)", sel, len(ev))
		}
		g, err := el.Table(gone)
		if err != nil {
			t.Fatalf("the table %s asked the page: %v", sel, err)
		}
		return g
	}
	for _, sel := range []string{"#report", "#bare"} {
		got := read(sel)
		want, err := locate(t, p, drivers.ForRead, sel).Table(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("the locate's reading of %s is\n%+v\na call of its own says\n%+v", sel, got, want)
		}
	}

	// a table inserted empty whose rows a timer of 0 ms puts in
	if _, err := p.Eval(ctx, `() => setTimeout(() => {
  const t = document.createElement('table');
  t.id = 'late';
  document.body.append(t);
  setTimeout(() => { t.innerHTML = '<thead><tr><th>k</th></tr></thead><tbody><tr><td>1</td></tr><tr><td>2</td></tr></tbody>'; }, 0);
}, 200)`); err != nil {
		t.Fatal(err)
	}
	if g := read("#late"); len(g.Body) != 2 || len(g.Head) != 1 {
		t.Errorf("the table a render filled after inserting it read as %+v, want its head and 2 rows", g)
	}

	el := locate(t, p, drivers.ForRead|drivers.ReadTable, "caption")
	_, err := el.Table(ctx)
	_, want := locate(t, p, drivers.ForRead, "caption").Table(ctx)
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("table of a caption: %v, want the call's own error %v", err, want)
	}
}
