package rod_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
)

// A fill located with drivers.PrepFill and a click located with
// drivers.Aim send their preparation in the locate's evaluation: a fill is
// the locate, the text and the check of the value; a click the locate, the
// mouse's move, press and release, and the check that they reached the
// element (sent beside them: it waits in the page for the click). A
// locate's aim holds no click a key makes (Enter on another
// button) while its own click has not come.
func TestPreparedActions(t *testing.T) {
	ctx := tctx(t, 60*time.Second)
	p, cmds := countedPage(t, "basic.html")
	locate(t, p, drivers.ForRead, "#title") // the document answers
	input := func() []string { return sent(cmds, "Runtime.", "Input.") }
	input()

	el := locate(t, p, drivers.ForInput|drivers.PrepFill, "#name")
	if err := el.Fill(ctx, "Zoë"); err != nil {
		t.Fatal(err)
	}
	if got, want := input(), []string{"Runtime.evaluate", "Input.insertText", "Runtime.callFunctionOn"}; !slices.Equal(got, want) {
		t.Errorf("a prepared fill sent %v, want %v", got, want)
	}

	el = locate(t, p, drivers.ForPointer|drivers.Aim, "#go")
	if err := el.Click(ctx, "left", 1); err != nil {
		t.Fatal(err)
	}
	// the check that the events reached the element goes beside them
	want := []string{"Runtime.evaluate", "Input.dispatchMouseEvent", "Input.dispatchMouseEvent", "Input.dispatchMouseEvent", "Runtime.callFunctionOn"}
	if got := input(); len(got) != len(want) || got[0] != want[0] || !slices.Equal(slices.Sorted(slices.Values(got[1:])), want[1:]) {
		t.Errorf("an aimed click sent %v, want %v (the last four in any order)", got, want)
	}
	if v, err := p.Eval(ctx, `() => document.body.dataset.result`); err != nil || v != "hello:Zoë:true" {
		t.Fatalf("after the click: %v %v", v, err)
	}

	// Aimed at #twice, the Enter on #go still clicks #go.
	if _, err := p.Eval(ctx, `() => { document.body.dataset.result = 'pending' }`); err != nil {
		t.Fatal(err)
	}
	locate(t, p, drivers.ForPointer|drivers.Aim, "#twice")
	if err := locate(t, p, drivers.ForRead, "#go").Focus(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Press(ctx, "Enter"); err != nil {
		t.Fatal(err)
	}
	if v, err := p.Eval(ctx, `() => document.body.dataset.result`); err != nil || v != "hello:Zoë:true" {
		t.Fatalf("Enter on #go with a click aimed at #twice: %v %v", v, err)
	}
}

// A click located with drivers.Aim on an element the page rendered again
// at the end of a motion, and takes clicks on only after its next due
// task (relist.html, as ant-design-vue's tree), is taken every time: the
// locate's evaluation lets the page's due tasks run, then checks again
// that the element stands where it was seen stable, settles no more and
// receives the hit, before it answers with the aim. (Aimed the moment the
// element was found, as 7c7d28c did, the click reached #leaf while the
// page was still busy and was ignored, and Click reported ok.)
func TestAimedClickAfterMotion(t *testing.T) {
	p := open(t, "relist.html")
	for i := 1; i <= 5; i++ {
		click(t, p, "#expand")
		el := locate(t, p, drivers.ForPointer|drivers.Aim, "#leaf")
		if err := el.Click(tctx(t, 10*time.Second), "left", 1); err != nil {
			t.Fatal(err)
		}
		if got, want := text(t, p, "#result"), fmt.Sprintf("taken:%d ignored:0", i); got != want {
			t.Fatalf("after click %d on #leaf: %s, want %s", i, got, want)
		}
	}
}
