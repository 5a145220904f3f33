package rod_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// TestEnabledRule: a control is disabled by aria-disabled="true" on
// itself or on a wrapper (and so is the label inside it), enabled again by
// a nearer aria-disabled="false", disabled inside an inert region; a click
// waits for the control to be enabled instead of landing while the page
// ignores it.
func TestEnabledRule(t *testing.T) {
	p := open(t, "ariadisabled.html?ms=2500")
	fill(t, p, "#user", "wangfang")
	for _, tc := range []struct{ sel, msg string }{
		{"#submit", `button#submit is disabled (aria-disabled="true" on div.actions)`},
		{"text=注册", `button#submit is disabled (aria-disabled="true" on div.actions)`},
		{"text=同意条款", `span#agree.btn is disabled (aria-disabled="true")`},
		{"#agree", `span#agree.btn is disabled (aria-disabled="true")`},
		{"#frozen", `button#frozen is disabled (inside the inert div)`},
	} {
		_, _, err := p.Locate(tctx(t, 150*time.Millisecond), []string{tc.sel}, drivers.ForPointer)
		if core.KindOf(err) != core.KindDisabled || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s while checking: %v, want disabled: %s", tc.sel, err, tc.msg)
		}
	}
	click(t, p, "#help") // aria-disabled="false" below the disabled wrapper
	if got := text(t, p, "#help-result"); got != "help" {
		t.Errorf("help = %q", got)
	}
	// the click waits out the check instead of being ignored
	click(t, p, "text=同意条款")
	click(t, p, "text=注册")
	waitResult(t, p, "submitted:wangfang")
	if got := text(t, p, "#ignored"); got != "0" {
		t.Errorf("%s clicks were ignored by the page", got)
	}
}

// TestWaitSaysWhatItSaw: a wait for a state that runs out says what the
// page showed.
func TestWaitSaysWhatItSaw(t *testing.T) {
	p := open(t, "ariadisabled.html")
	for _, tc := range []struct {
		sels []string
		st   drivers.State
		msg  string
	}{
		{[]string{"#panel"}, drivers.StateVisible, `"#panel" matches div#panel, which is not visible (display: none)`},
		{[]string{"#nope", "#nope2"}, drivers.StateVisible, `no element matches "#nope", "#nope2"`},
		{[]string{"#submit"}, drivers.StateHidden, `"#submit" matches button#submit, which is still visible`},
		{[]string{".btn"}, drivers.StateDetached, `".btn" matches 2 elements, the first span#agree.btn`},
	} {
		_, err := p.WaitState(tctx(t, 300*time.Millisecond), tc.sels, tc.st)
		if err == nil || drivers.Seen(err) != tc.msg {
			t.Errorf("wait %v %s: %v (seen %q), want seen %q", tc.sels, tc.st, err, drivers.Seen(err), tc.msg)
		}
	}
}

// TestClickWaitsForReenabled: an element located while enabled and
// disabled by the page before the click (an async check started by typing)
// is not clicked while the page ignores clicks: Click waits for it to be
// enabled again, and says it is disabled when ctx ends first. On the old
// code aim checked visibility and the hit only, and the click was ignored.
func TestClickWaitsForReenabled(t *testing.T) {
	p := open(t, "ariadisabled.html?ms=1500")
	el, _, err := p.Locate(tctx(t, 5*time.Second), []string{"#agree"}, drivers.ForPointer)
	if err != nil {
		t.Fatal(err)
	}
	fill(t, p, "#user", "wangfang") // starts the check: #agree is aria-disabled for 1.5 s
	err = el.Click(tctx(t, 150*time.Millisecond), "left", 1)
	if core.KindOf(err) != core.KindDisabled || !strings.Contains(err.Error(), `span#agree.btn is disabled (aria-disabled="true")`) {
		t.Errorf("click while disabled: %v, want disabled", err)
	}
	if err := el.Click(tctx(t, 10*time.Second), "left", 1); err != nil {
		t.Fatal(err)
	}
	if got := text(t, p, "#ignored"); got != "0" {
		t.Errorf("%s clicks were ignored by the page", got)
	}
	if got := text(t, p, "#agree"); got != "已同意" {
		t.Errorf("#agree reads %q after the click, want 已同意", got)
	}
}
