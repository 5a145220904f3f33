package interp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers/fake"
	"github.com/rpa-dev/rpa/lang"
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
	if d := time.Since(t0); d > 7*time.Second { // only when the 8s wait was not cut
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

// TestDeadlineIsTimeout: the run's deadline passing is kind "timeout"
// ("the run's deadline passed", no doubled "cancelled"), and try does not
// catch it; a cancel stays kind "cancelled".
func TestDeadlineIsTimeout(t *testing.T) {
	b := newBrowser(func(p *fake.Page) {})
	f := load(t, "flow t\ntry {\n  sleep 5s\n} catch e {\n  log \"caught\"\n}\nlog \"after\"\n")
	ctx, cancel := context.WithTimeout(context.Background(), ms(100))
	defer cancel()
	res, _ := Run(ctx, f, Options{Browser: b})
	if res.Success || res.Error == nil || res.Error.Kind != "timeout" || res.Error.Message != "the run's deadline passed" {
		t.Fatalf("error %+v", res.Error)
	}
	if len(res.Log) > 0 {
		t.Errorf("the deadline was caught: log %q", res.Log)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(ms(100), cancel2)
	res, _ = Run(ctx2, f, Options{Browser: b})
	if res.Error == nil || res.Error.Kind != "cancelled" || res.Error.Message != "the run was cancelled" {
		t.Fatalf("cancel: error %+v", res.Error)
	}
}

// TestOpenRelativeURLFailsAtOnce: an interpolated URL that is not absolute
// fails open at once with a clear message (no wait for a load).
func TestOpenRelativeURLFailsAtOnce(t *testing.T) {
	b := newBrowser(func(p *fake.Page) {})
	f := load(t, "flow t\nparam base: string = \"notaurl\"\nopen \"{{ base }}/login\"\n")
	t0 := time.Now()
	res := run(t, f, Options{Browser: b})
	if d := time.Since(t0); d > 8*time.Second { // only when it waited (10s) for a load
		t.Errorf("took %v", d)
	}
	if res.Success || res.Error == nil || res.Error.Message != `open: "notaurl/login" is not an absolute URL (want http://, https://, file:, about: or data:)` {
		t.Fatalf("error %+v", res.Error)
	}
}

// TestRecursionOneMessage: a flow calling itself (not caught by check when
// flows come from elsewhere) stops at MaxCallDepth with one short message,
// not one "call NAME:" per level.
func TestRecursionOneMessage(t *testing.T) {
	b := newBrowser(func(p *fake.Page) {})
	f := load(t, "flow rec\nx = call rec\n")
	res := run(t, f, Options{Browser: b, Flows: func(name string) (*lang.Flow, bool) { return f, name == "rec" }})
	if res.Success || res.Error == nil {
		t.Fatalf("result %+v", res)
	}
	want := "call rec: calls nested more than 32 deep (a flow calls itself, directly or through others)"
	if res.Error.Message != want {
		t.Fatalf("message (%d bytes) %q, want %q", len(res.Error.Message), res.Error.Message, want)
	}
}
