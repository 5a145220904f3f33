package rod_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// TestStableWithoutLuck: a drawer's slide and a confirmation's zoom from
// its edge are waited out (the box is compared exactly, so the last
// frames of an easing do not pass); a button that pulses or spins forever
// around its centre is stable in position and clicked (also one that
// grows linearly, whose boxes never round alike on two frames); one that
// slides forever never is; a button in a panel still sliding open (a
// finite transition on an ancestor) is clicked once it ends.
func TestStableWithoutLuck(t *testing.T) {
	p := open(t, "motion.html")
	click(t, p, "#open")
	click(t, p, "#approve") // at once: the drawer is still sliding in
	click(t, p, `text="确定"`)
	waitResult(t, p, "approved:EX-77")
	for sel, want := range map[string]string{"#early": "no", "#mask-clicks": "0", "#rejects": "0"} {
		if got := text(t, p, sel); got != want {
			t.Errorf("%s = %s, want %s", sel, got, want)
		}
	}
	clickAll(t, p, "#spin", "#throb")
	if got := text(t, p, "#spin-result"); got != "spun" {
		t.Errorf("spin = %q", got)
	}
	if got := text(t, p, "#throb-result"); got != "urged" {
		t.Errorf("throb = %q", got)
	}
	// a panel sliding open: its button is clicked once the transition ended
	clickAll(t, p, "#grow", "#inside")
	if got := text(t, p, "#inside-result"); got != "inside" {
		t.Errorf("inside = %q: clicked while the panel was still opening", got)
	}
	_, _, err := p.Locate(tctx(t, 600*time.Millisecond), []string{"#ticker"}, drivers.ForPointer)
	if core.KindOf(err) != core.KindNotVisible || !strings.Contains(err.Error(), "button#ticker is still moving") {
		t.Errorf("ticker: %v", err)
	}
}
