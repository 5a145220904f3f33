package interp

import (
	"context"
	"testing"

	"github.com/rpa-dev/rpa/drivers/fake"
)

// TestCancelHungDriverLine: a cancelled run whose action ignores ctx
// (returned after cancelGrace, abandoned) is cancelled at the line of that
// action, not at the flow's first line (rpa serve --stdio, SIGTERM).
func TestCancelHungDriverLine(t *testing.T) {
	b := fake.New()
	sp := &stuckPage{Page: b.AddPage("http://x"), release: make(chan struct{})}
	defer close(sp.release)
	started := make(chan struct{}, 8)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	f := flow(nil, nil, logs("a"), logs("b"), act("", "click", "#a"))
	res, _ := Run(ctx, f, Options{Browser: b, Page: sp, Events: func(e Event) {
		if e.Kind == EventStarted {
			started <- struct{}{}
		}
	}})
	if res.Error == nil || res.Error.Kind != "cancelled" || res.Error.Line != 3 {
		t.Fatalf("error %+v, want cancelled at line 3", res.Error)
	}
}
