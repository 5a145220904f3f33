package interp

import (
	"context"
	"testing"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers/fake"
)

// TestPopupMarking: an action the table marks Popup (click, open, ...)
// forgets the popups seen before it, so `tab "last"` after it waits for one
// it opened; an action that opens none (text) leaves an earlier popup to
// find. The behaviour, run through the interpreter (it replaces a test
// that restated the table).
func TestPopupMarking(t *testing.T) {
	for _, tc := range []struct {
		step  string
		finds bool
	}{
		{`t = text "#a"`, true},
		{`click "#a"`, false},
		{`hover "#a"`, false},
		{`press "Tab"`, false},
	} {
		first := true
		b := newBrowser(func(p *fake.Page) {
			if first { // the run's tab, with a popup opened before the step
				first = false
				p.Add("#a", &fake.Element{Txt: "A"})
				p.OpenPopup("http://x/stale")
			}
		})
		pg, err := b.NewPage(context.Background(), "http://x/")
		if err != nil {
			t.Fatal(err)
		}
		res := run(t, load(t, "flow t\n"+tc.step+"\ntab \"last\" wait: 20ms retries: 0\n"), Options{Browser: b, Page: pg})
		if res.Success != tc.finds {
			t.Errorf("%s then tab \"last\": success %v (%+v), want %v", tc.step, res.Success, res.Error, tc.finds)
		}
	}
}

// TestOnceBounds: how a once-action is bounded comes from its row
// (actions.Bound), seen by the host hook as its context's deadline: llm
// by an explicit timeout: only (not by the flow's defaults), exec only by
// cancellation (the host applies an explicit timeout:).
func TestOnceBounds(t *testing.T) {
	deadline := map[string]bool{}
	seen := func(name string, ctx context.Context) {
		_, ok := ctx.Deadline()
		deadline[name] = ok
	}
	host := core.Host{
		LLM: func(ctx context.Context, prompt string, input any) (string, error) {
			seen(prompt, ctx)
			return "ok", nil
		},
		Exec: func(ctx context.Context, c core.ExecCommand) (*core.ExecResult, error) {
			seen("exec", ctx)
			return &core.ExecResult{}, nil
		},
	}
	f := load(t, `flow t
defaults timeout: 5s
a = llm "free"
b = llm "bounded" timeout: 5s
d = exec "true"
`)
	res := run(t, f, Options{Host: host})
	if !res.Success {
		t.Fatalf("%+v", res.Error)
	}
	want := map[string]bool{"free": false, "bounded": true, "exec": false}
	for k, v := range want {
		if got, ok := deadline[k]; !ok || got != v {
			t.Errorf("%s: deadline %v (called %v), want %v", k, got, ok, v)
		}
	}
}
