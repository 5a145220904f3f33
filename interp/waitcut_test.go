package interp

import (
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers/fake"
)

// TestWaitCutByTimeoutSaysSo: a wait: longer than timeout: is cut short
// at the timeout, and the error says that the timeout did it (not just
// "no element matches").
func TestWaitCutByTimeoutSaysSo(t *testing.T) {
	b := newBrowser(func(p *fake.Page) {})
	f := flow(nil, []opt{{"wait", 8 * time.Second}, {"timeout", ms(150)}, {"retries", 0}},
		act("", "open", "http://x"), act("", "click", "#never"))
	t0 := time.Now()
	res := run(t, f, Options{Browser: b})
	if d := time.Since(t0); d > 3*time.Second {
		t.Fatalf("took %v", d)
	}
	if res.Success || res.Error == nil || !strings.Contains(res.Error.Message, "within 150ms (timeout: cut the wait of 8s short)") {
		t.Fatalf("error %+v", res.Error)
	}
	// a wait shorter than the timeout keeps its own message
	f = flow(nil, []opt{{"wait", ms(50)}, {"timeout", 5 * time.Second}, {"retries", 0}},
		act("", "open", "http://x"), act("", "click", "#never"))
	res = run(t, f, Options{Browser: b})
	if res.Success || res.Error == nil || strings.Contains(res.Error.Message, "timeout") && strings.Contains(res.Error.Message, "cut") {
		t.Fatalf("error %+v", res.Error)
	}
}
