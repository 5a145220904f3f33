package interp

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers/fake"
	"github.com/rpa-dev/rpa/lang"
)

// TestWaitTimeoutWording: a wait that times out says "wait:" once, in the
// run error and in its step, with what it waited for.
func TestWaitTimeoutWording(t *testing.T) {
	for _, tc := range []struct{ step, want string }{
		{`wait "#nope" timeout: 200ms`, `wait: timed out after 200ms waiting for "#nope" to be visible`},
		{`wait text: "zz" timeout: 200ms`, `wait: timed out after 200ms waiting for text "zz"`},
		{`wait url: "**/zz" timeout: 200ms`, `wait: timed out after 200ms waiting for the URL to match "**/zz"`},
		{`wait until: false timeout: 200ms`, `wait: timed out after 200ms waiting for the until: condition`},
	} {
		f, ds := lang.Load("t.flow", []byte("flow t\nopen \"https://x/\"\n"+tc.step+"\n"))
		if ds.HasErrors() {
			t.Fatal(ds)
		}
		res, _ := Run(context.Background(), f, Options{Browser: fake.New()})
		if res.Success || res.Error.Message != tc.want || res.Error.Action != "wait" {
			t.Fatalf("%s: %+v, want %q", tc.step, res.Error, tc.want)
		}
		if n := len(res.Results); n != 2 || res.Results[1].Error != tc.want {
			t.Errorf("%s: step error %q", tc.step, res.Results[n-1].Error)
		}
	}
}

// TestOutcomeSaysActionOnce: the CLI's error line names the action in
// parentheses only when the message does not start with it.
func TestOutcomeSaysActionOnce(t *testing.T) {
	f, ds := lang.Load("t.flow", []byte("flow t\nlog 1\n"))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	res := &Result{TotalActions: 2, CompletedActions: 1, FailedActions: 1, DurationMs: 5,
		Error: &RunError{Kind: core.KindTimeout, Message: `wait: timed out after 1s waiting for text "x"`, Line: 4, Action: "wait"}}
	var out, errb bytes.Buffer
	PrintOutcome(&out, &errb, f, res)
	if want := "t.flow:4: timeout: wait: timed out after 1s waiting for text \"x\"\n"; !strings.HasSuffix(errb.String(), want) {
		t.Errorf("stderr %q, want it to end %q", errb.String(), want)
	}
}
