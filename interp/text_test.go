package interp

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/lang"
)

func TestProgressAndOutcome(t *testing.T) {
	var b bytes.Buffer
	p := &Progress{W: &b, Live: true}
	p.Event(Event{Kind: EventStarted, Index: 1, Total: 2, Action: "click", Target: "#go"})
	p.Event(Event{Kind: EventLog, Summary: "hello"})
	p.Event(Event{Kind: EventFinished, Index: 2, Total: 2, Action: "fill", Target: "#x", Status: StatusFailed, DurationMs: 12, Summary: "no element"})
	p.Flush()
	got := b.String()
	for _, want := range []string{"    1/2  click     #go", "\r\033[K         log: hello\n", "12 ms  failed: no element\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("progress %q lacks %q", got, want)
		}
	}
	b.Reset()
	(&Progress{W: &b, Quiet: true}).Event(Event{Kind: EventLog, Summary: "x"})
	if b.Len() != 0 {
		t.Errorf("quiet printed %q", b.String())
	}

	f, ds := lang.Load("t.flow", []byte("flow t\nlog 1\n"))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	res := &Result{TotalActions: 3, CompletedActions: 2, FailedActions: 1, DurationMs: 5, Outputs: map[string]any{"a": 1},
		Error: &RunError{Kind: core.KindNotFound, Message: "no element", Line: 2, Col: 1, Action: "click"}}
	var out, errb bytes.Buffer
	PrintOutcome(&out, &errb, f, res)
	if out.String() != "{\n  \"a\": 1\n}\n" {
		t.Errorf("stdout %q", out.String())
	}
	if want := "FAILED  t: 3 actions (2 ok, 1 failed or skipped) in 5 ms\nt.flow:2:1: not_found (click): no element\n"; errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
}
