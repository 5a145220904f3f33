package rod_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// TestClickOnReusedNode: a node the page re-used for other content after
// the locate (a virtualised list recycling its rows) is not clicked: the
// click fails not_found (the replay engine locates again) and the page
// sees nothing, whether the re-render came before the aim or between the
// aim and the press. A locate after it finds the row and the click lands.
func TestClickOnReusedNode(t *testing.T) {
	p := open(t, "recycle.html")
	for _, tc := range []struct{ name, before string }{
		{"before the aim", `() => { window.rotate(); return 1 }`},
		{"between the aim and the press", `() => { window.rotateOnMove = true; return 1 }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			el := locate(t, p, drivers.ForPointer, `button[data-row="b"]`)
			if _, err := p.Eval(tctx(t, 5*time.Second), tc.before); err != nil {
				t.Fatal(err)
			}
			err := el.Click(tctx(t, 10*time.Second), "left", 1)
			if core.KindOf(err) != core.KindNotFound || !strings.Contains(err.Error(), `no longer matches "button[data-row=\"b\"]"`) {
				t.Fatalf("click on the re-used node: %v", err)
			}
			if got := text(t, p, "#result"); got != "pending" {
				t.Fatalf("the page saw the click: %q", got)
			}
			click(t, p, `button[data-row="b"]`)
			waitResult(t, p, "clicked b")
			if _, err := p.Eval(tctx(t, 5*time.Second), `() => { document.getElementById('result').textContent = 'pending'; return 1 }`); err != nil {
				t.Fatal(err)
			}
		})
	}
}
