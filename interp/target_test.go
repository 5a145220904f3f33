package interp

import (
	"context"
	"testing"

	"github.com/rpa-dev/rpa/drivers/fake"
	"github.com/rpa-dev/rpa/lang"
)

// TestEventTargets: progress shows a duration as written and a wait by its
// pattern, not nanoseconds or nothing.
func TestEventTargets(t *testing.T) {
	f, ds := lang.Load("t.flow", []byte("flow t\nopen \"http://x/a\"\nsleep 10ms\nsleep 1s\nwait url: \"/a\"\nwait text: \"ready\" timeout: 50ms optional: true\n"))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	var got []string
	Run(context.Background(), f, Options{Browser: fake.New(), Events: func(e Event) {
		if e.Kind == EventStarted {
			got = append(got, e.Action+" "+e.Target)
		}
	}})
	want := []string{"open http://x/a", "sleep 10ms", "sleep 1s", `wait url: /a`, `wait text: ready`}
	if len(got) != len(want) {
		t.Fatalf("targets %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("target %d = %q, want %q", i, got[i], want[i])
		}
	}
}
