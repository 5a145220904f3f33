package rod_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

func TestDiagnose(t *testing.T) {
	p := open(t, "overlay.html")
	in, ok := p.(drivers.Inspector)
	if !ok {
		t.Fatal("rod page is not a drivers.Inspector")
	}
	reps, err := in.Diagnose(tctx(t, 10*time.Second), []string{"#nope", "#continue", "#accept", "button"}, drivers.ForPointer)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind   core.Kind
		reason string
		count  int
		box    bool
	}{
		{core.KindNotFound, "", 0, false},
		{core.KindCovered, "div#consent", 1, true},
		{"", "passes now", 1, true},
		{"", "passes now", 5, true}, // the first button is #accept
	}
	if len(reps) != len(want) {
		t.Fatalf("%d reports: %+v", len(reps), reps)
	}
	for i, w := range want {
		r := reps[i]
		if r.Kind != w.kind || !strings.Contains(r.Reason, w.reason) || r.Count != w.count || (r.Box != nil) != w.box {
			t.Errorf("%s: got %+v (box %v), want %+v", r.Selector, r, r.Box, w)
		}
	}
}

func TestProblems(t *testing.T) {
	p := open(t, "basic.html")
	w, ok := p.(drivers.ProblemWatcher)
	if !ok {
		t.Fatal("rod page is not a drivers.ProblemWatcher")
	}
	ctx := tctx(t, 10*time.Second)
	if err := w.WatchProblems(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Eval(ctx, `() => { console.error("boom", 42); fetch("/missing-thing").catch(() => {}); setTimeout(() => { throw new Error("late failure") }, 0); return 1 }`); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second) // only catches a hang
	var got []drivers.Problem
	for time.Now().Before(deadline) {
		got = w.Problems()
		if len(got) >= 3 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	kinds := map[string]string{}
	for _, pr := range got {
		kinds[pr.Kind] += pr.Text + " " + pr.URL + ";"
	}
	if !strings.Contains(kinds["console"], "boom 42") || !strings.Contains(kinds["network"], "/missing-thing") ||
		!strings.Contains(kinds["exception"], "late failure") {
		t.Fatalf("problems: %+v", got)
	}
}
