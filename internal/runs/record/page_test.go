package record_test

import (
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/runs"
)

// TestPacketPage: a step that failed on a sign-in wall has the page's
// state in the failure packet (kind and text, masked) and a hint that the
// selectors are not to blame.
func TestPacketPage(t *testing.T) {
	st, err := runs.Open(t.TempDir(), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, fin := runFlow(t, st, `flow wall "Writes a page behind a sign-in wall"
param base: string "server"
open "{{ base }}/wall.html"
fill "#wiki__text" "x"
`, "", map[string]any{"base": srv.URL})
	if res.Success || fin.Packet == nil {
		t.Fatalf("result %+v, packet %v", res.Error, fin.Packet)
	}
	p := fin.Packet
	if p.Page == nil || p.Page.Kind != drivers.PageSignIn || !strings.HasPrefix(p.Page.Text, "the page is a sign-in page: it asks for a password") {
		t.Fatalf("page %+v", p.Page)
	}
	if !strings.Contains(strings.Join(p.Hints, "\n"), "the selectors are not to blame") {
		t.Errorf("hints %q", p.Hints)
	}
	if raw := string(mustJSON(t, p)); !strings.Contains(raw, `"page":{"kind":"sign_in","text":"the page is a sign-in page`) {
		t.Errorf("packet JSON: %s", raw)
	}
}
