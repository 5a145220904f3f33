package stdlib_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

// failFastCases are a flow per kind of page that will not produce the
// element a step waits for, with the defaults of the README (wait 10s, 3
// tries a second apart, 30s per action), and what the failure says.
var failFastCases = []struct {
	name, body string
	kind       string // drivers.PageState kind in the run error
	says       string
}{
	{"sign-in wall", `open "{{ base }}/wall.html"
fill "#wiki__text" "x"`, drivers.PageSignIn, `fill: no element matches "#wiki__text": the page is a sign-in page: it asks for a password and says "You are currently not logged in!`},
	{"error banner", `open "{{ base }}/refused.html"
click "#save"
click "#done"`, drivers.PageError, `click: no element matches "#done": the page shows an error: "Quantity must be a whole number"`},
	{"500 document", `open "{{ base }}/status/500"
click "#orders"`, drivers.PageHTTPError, `click: no element matches "#orders": the page is an HTTP 500 error document ("Internal Server Error")`},
	{"quiet page", `open "{{ base }}/basic.html"
click "#nope"`, drivers.PageSettled, `click: no element matches "#nope"; the page had settled (nothing loaded or changed for `},
}

const failFastDefaults = "defaults wait: 10s retries: 2 every: 1s timeout: 30s\n"

// runFailFast runs one case's flow on a fresh tab within limit.
func runFailFast(tb testing.TB, body string, limit time.Duration) *interp.Result {
	tb.Helper()
	if browser == nil {
		tb.Skip("RPA_SKIP_BROWSER set")
	}
	f, ds := lang.Load("t.flow", []byte("flow t\nparam base: string\n"+failFastDefaults+body+"\n"))
	if ds.HasErrors() {
		tb.Fatalf("load: %v", ds)
	}
	checked, err := f.CheckArgs(map[string]any{"base": srv.URL})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	res, last := interp.Run(ctx, f, interp.Options{Args: checked, Browser: browser})
	if last != nil {
		_ = last.Close()
	}
	return res
}

// TestFailFastFlows (issue 22): each page kind fails its step with the
// reason in the message and in the run error's chain (what the failure
// packet's "page" shows). The sign-in page, the error and the HTTP error
// document end the wait early: a drivers.PageState verdict only comes from
// a page settled before the wait ran out. The quiet page is reported after
// the first try's wait, settled (interp's TestReplayFailFast counts the
// tries: one).
func TestFailFastFlows(t *testing.T) {
	for _, c := range failFastCases {
		t.Run(c.name, func(t *testing.T) {
			res := runFailFast(t, c.body, 90*time.Second)
			if res.Success || res.Error.Kind != core.KindNotFound || !strings.Contains(res.Error.Message, c.says) {
				t.Fatalf("got %+v", res.Error)
			}
			st := drivers.StateOf(res.Error)
			if st == nil || st.Kind != c.kind {
				t.Fatalf("state %+v", st)
			}
			if st.Verdict() != (c.kind != drivers.PageSettled) || core.IsFinal(res.Error) != st.Verdict() {
				t.Errorf("verdict %v, final %v", st.Verdict(), core.IsFinal(res.Error))
			}
			last := res.Results[len(res.Results)-1]
			if last.Status != interp.StatusFailed || res.Error.Line != last.Line {
				t.Errorf("last step %+v", last)
			}
		})
	}
}

// BenchmarkFailFast times each page kind's failing flow as a whole (open
// included) with the README's defaults: before issue 22 every one took
// the three tries' 30s. -benchtime 1x is enough.
func BenchmarkFailFast(b *testing.B) {
	for _, c := range failFastCases {
		b.Run(strings.ReplaceAll(c.name, " ", "_"), func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				res := runFailFast(b, c.body, 90*time.Second)
				total += time.Since(t0)
				if res.Success {
					b.Fatal("succeeded")
				}
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/flow")
		})
	}
}
