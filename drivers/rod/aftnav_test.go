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
	ctx := tctx(t, 60*time.Second)
	p, cmds := countedPage(t, "basic.html")
	evaluations := func() []string { return sent(cmds, "Runtime.") }
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

// countedPage opens name in a tab of a browser of the test's own whose
// DevTools commands cmds counts (closed at the end of the test).
func countedPage(t *testing.T, name string) (drivers.Page, *rodd.Commands) {
	t.Helper()
	cmds := rodd.CountCommands()
	ctx := tctx(t, 60*time.Second)
	b, err := rodd.New().Launch(ctx, drivers.LaunchOptions{UserDataDir: filepath.Join(t.TempDir(), "profile")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	p, err := b.NewPage(ctx, url(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	if len(cmds.Take()) == 0 {
		t.Fatal("the browser's commands were not counted")
	}
	return p, cmds
}

// sent returns the methods of the commands sent since the last look that
// start with one of prefixes.
func sent(cmds *rodd.Commands, prefixes ...string) []string {
	var out []string
	for _, m := range cmds.Take() {
		for _, p := range prefixes {
			if strings.HasPrefix(m, p) {
				out = append(out, m)
				break
			}
		}
	}
	return out
}
