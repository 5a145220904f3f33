package rod_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// TestLocateNotEditableGivesUp: filling an element that can never take text
// (a checkbox) ends the wait early with a clear reason, while a read-only
// field (which a page may unlock) and a list with a selector that matches
// nothing yet still wait for the whole timeout.
func TestLocateNotEditableGivesUp(t *testing.T) {
	p := open(t, "form.html")
	cases := []struct {
		name  string
		sels  []string
		early bool   // the wait ends before the deadline
		msg   string // in the error
	}{
		{"checkbox", []string{"#f-agree"}, true, "is not editable"},
		{"checkbox among matches", []string{"#f-agree", "input[type=checkbox]"}, true, "is not editable"},
		{"a selector without a match may still appear", []string{"#f-agree", "#later"}, false, "is not editable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
			defer cancel()
			_, _, err := p.Locate(ctx, tc.sels, drivers.ForInput)
			if err == nil {
				t.Fatal("located a checkbox for input")
			}
			if core.KindOf(err) != core.KindDisabled || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err = %v (kind %s), want kind disabled with %q", err, core.KindOf(err), tc.msg)
			}
			if ranOut := errors.Is(err, context.DeadlineExceeded); ranOut == tc.early {
				t.Errorf("wait ran out = %v, want %v (err %v)", ranOut, !tc.early, err)
			}
		})
	}
	// read-only: the page may unlock it; the wait goes on and then succeeds
	if _, err := p.Eval(tctx(t, 5*time.Second), `() => { const e = document.getElementById('f-text'); e.readOnly = true; setTimeout(() => { e.readOnly = false; }, 2500); }`); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.Locate(tctx(t, 10*time.Second), []string{"#f-text"}, drivers.ForInput); err != nil {
		t.Errorf("read-only field unlocked later: %v", err)
	}
}
