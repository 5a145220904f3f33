package rod_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
)

// The first engine call in a document a navigation brought is one
// evaluation, whether the page navigated itself (a link) or the driver
// did; and the healing helper's calls run in that document too. (A call
// on the window object rod had cached for the old document failed, had
// rod fetch the new one and ran again: three evaluations; the healing
// helper, which nothing retried, fingerprinted nothing after a
// navigation.)
func TestFirstCallAfterNavigation(t *testing.T) {
	cmds := rodd.CountCommands()
	ctx := tctx(t, 60*time.Second)
	b, err := rodd.New().Launch(ctx, drivers.LaunchOptions{UserDataDir: filepath.Join(t.TempDir(), "profile")})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := b.NewPage(ctx, url("basic.html"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if len(cmds.Take()) == 0 {
		t.Fatal("the browser's commands were not counted")
	}

	evaluations := func() []string {
		var out []string
		for _, m := range cmds.Take() {
			if strings.HasPrefix(m, "Runtime.") {
				out = append(out, m)
			}
		}
		return out
	}
	firstLocate := func(how string) {
		t.Helper()
		if err := p.WaitURL(ctx, "basic2.html"); err != nil {
			t.Fatal(err)
		}
		cmds.Take()
		locate(t, p, drivers.ForPointer, "#back")
		if ev := evaluations(); len(ev) != 1 {
			t.Errorf("after %s, the first locate sent %d evaluations, want 1: %v", how, len(ev), ev)
		}
		// back to basic.html for the next navigation
		if err := p.Navigate(ctx, url("basic.html")); err != nil {
			t.Fatal(err)
		}
	}

	click(t, p, "#next")
	firstLocate("a click on a link")
	if err := p.Navigate(ctx, url("basic2.html")); err != nil {
		t.Fatal(err)
	}
	firstLocate("a navigation of the driver's")

	// The healing helper after a navigation: a fingerprint of the new
	// document's element, and candidates scored in that document.
	click(t, p, "#next")
	if err := p.WaitURL(ctx, "basic2.html"); err != nil {
		t.Fatal(err)
	}
	el := locate(t, p, drivers.ForPointer, "#title")
	h, ok := p.(drivers.Healer)
	if !ok {
		t.Fatal("the page is not a drivers.Healer")
	}
	fp, err := h.Fingerprint(ctx, el)
	if err != nil {
		t.Fatalf("fingerprint after a navigation: %v", err)
	}
	if fp.ID != "title" || fp.Text != "Second page" {
		t.Fatalf("fingerprint after a navigation: %+v", fp)
	}
	cands, err := h.Candidates(ctx, fp, 3, true)
	if err != nil || len(cands) == 0 {
		t.Fatalf("candidates after a navigation: %v %v", cands, err)
	}
	sels, err := h.CandidateSelectors(ctx, cands[0].Ref)
	if err != nil || !slices.Contains(sels, "#title") {
		t.Fatalf("the best candidate's selectors: %v %v", sels, err)
	}
}
