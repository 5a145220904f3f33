package record_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/runs"
)

// TestSecretSelectorRechecked: a selector holding a secret is re-checked
// as the step ran it (not as its masked text, which is no valid CSS) and
// shown masked; the packet, the report and the store keep no trace of the
// secret.
func TestSecretSelectorRechecked(t *testing.T) {
	home := t.TempDir()
	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	src := `flow refused "A selector holding a secret"

param base: string "server"
param password: secret "password"

open "{{ base }}/basic.html"
click "#nope-{{ password }}" wait: 1s retries: 0
`
	res, fin := runFlow(t, st, src, "", map[string]any{"base": srv.URL, "password": secret})
	if res.Success || fin.Packet == nil {
		t.Fatalf("result %+v, packet %v", res.Error, fin.Packet)
	}
	p := fin.Packet
	if len(p.Selectors) != 1 || p.Selectors[0].Selector != "#nope-***" || !strings.Contains(p.Selectors[0].Reason, "no element matches") ||
		strings.Contains(p.Selectors[0].Reason, "bad CSS") {
		t.Errorf("selectors: %+v", p.Selectors)
	}
	html, err := os.ReadFile(fin.Report)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(html), "bad CSS") {
		t.Errorf("the report re-checked the masked selector")
	}
	st.Close()
	assertNoSecret(t, filepath.Join(home, "runs"))
}

// TestLoginHints: on a login page the hint is true whether the session
// expired or a login failed; when the page shows an error near the form,
// the hint says the login was refused and quotes it.
func TestLoginHints(t *testing.T) {
	st, err := runs.Open(t.TempDir(), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, tc := range []struct {
		page, want, not string
	}{
		{"login-refused.html", `says "Invalid username or password": the login was refused`, "expired"},
		{"login.html", "a login page: the session may have expired or a login did not go through", "refused"},
	} {
		src := `flow hint "A step that fails on a login page"

param base: string "server"

open "{{ base }}/` + tc.page + `"
click "#orders" wait: 1s retries: 0
`
		res, fin := runFlow(t, st, src, "", map[string]any{"base": srv.URL})
		if res.Success || fin.Packet == nil {
			t.Fatalf("%s: result %+v", tc.page, res.Error)
		}
		h := strings.Join(fin.Packet.Hints, "\n")
		if !strings.Contains(h, tc.want) || strings.Contains(h, tc.not) || strings.Contains(h, "probably expired") {
			t.Errorf("%s: hints %q", tc.page, fin.Packet.Hints)
		}
	}
}

// TestPacketLongURLClipped: a tab's address of many kilobytes is cut in
// the packet (the current tab is never dropped to fit the budget, so its
// address was sent whole) and the packet says it was cut.
func TestPacketLongURLClipped(t *testing.T) {
	st, err := runs.Open(t.TempDir(), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	src := `flow longurl "A failure on a page with a long address"

param base: string "server"
param q: string "query"

open "{{ base }}/basic.html?q={{ q }}"
click "#nope" wait: 1s retries: 0
`
	res, fin := runFlow(t, st, src, "", map[string]any{"base": srv.URL, "q": strings.Repeat("x", 20000)})
	if res.Success || fin.Packet == nil {
		t.Fatalf("result %+v, packet %v", res.Error, fin.Packet)
	}
	p := fin.Packet
	if len(p.URL) > 1100 || !strings.HasSuffix(p.URL, " bytes)") || !p.Truncated {
		t.Errorf("url: %d bytes, truncated %v", len(p.URL), p.Truncated)
	}
	for _, tab := range p.Tabs {
		if len(tab.URL) > 1100 {
			t.Errorf("tab url: %d bytes", len(tab.URL))
		}
	}
}
