package record_test

import (
	"testing"

	"github.com/rpa-dev/rpa/internal/runs"
)

// TestFailStepHasScreenshot: a step without a page of its own (`fail`)
// still leaves a picture of the tab the run was on, in the packet and as
// its image.
func TestFailStepHasScreenshot(t *testing.T) {
	st, err := runs.Open(t.TempDir(), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, fin := runFlow(t, st, "flow f \"x\"\n\nparam base: string \"server\"\n\nopen \"{{ base }}/login.html\"\nfail \"stop here\"\n", "", map[string]any{"base": srv.URL})
	if res.Success || fin.Packet == nil {
		t.Fatalf("result %+v, packet %v", res.Error, fin.Packet)
	}
	if fin.Packet.Screenshot == "" || len(fin.Image) == 0 {
		t.Errorf("fail step: screenshot %q, image %d bytes", fin.Packet.Screenshot, len(fin.Image))
	}
}
