package runs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionNeverRaw: a run record never holds or shows the raw MCP
// session ID (a credential on Streamable HTTP), neither for a new run nor
// for a row an older version wrote; the digest is stable.
func TestSessionNeverRaw(t *testing.T) {
	const raw = "K7QH2ZRAWSESSIONIDX4W3NPLM"
	home := t.TempDir()
	s := openT(t, home, Options{})
	r := &Run{Flow: "f", Caller: Caller{Kind: CallerMCP, Session: raw, Client: "c"}}
	if _, err := s.Begin(r); err != nil {
		t.Fatal(err)
	}
	want := SessionDigest(raw)
	if !strings.HasPrefix(want, "s-") || len(want) != 14 || SessionDigest(want) != want || SessionDigest("") != "" {
		t.Fatalf("SessionDigest(%q) = %q", raw, want)
	}
	// A row as an older version wrote it: the raw ID in the column and in
	// the "run" line of its events.jsonl.
	if _, err := s.db.Exec(`INSERT INTO runs (id, flow, caller_kind, session, start_ms, status) VALUES (?,?,?,?,?,?)`,
		"20261201T120000000-aaaa", "old", CallerMCP, raw, 1, StatusOK); err != nil {
		t.Fatal(err)
	}
	oldEvents := filepath.Join(s.RunDir("20261201T120000000-aaaa"), "events.jsonl")
	os.MkdirAll(filepath.Dir(oldEvents), 0o700)
	if err := os.WriteFile(oldEvents, []byte(`{"kind":"run","caller":{"kind":"mcp","session":"`+raw+`"},"t":0}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{r.ID, "20261201T120000000-aaaa"} {
		got, err := s.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(got)
		if strings.Contains(string(b), raw) || got.Caller.Session != want {
			t.Errorf("run %s: %s", id, b)
		}
	}
	list, err := s.List(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(list)
	if strings.Contains(string(b), raw) {
		t.Errorf("List shows the raw session: %s", b)
	}
	s.Close()
	// The next Open rewrites the old row in the database itself.
	s2 := openT(t, home, Options{})
	var n int
	if err := s2.db.QueryRow(`SELECT count(*) FROM runs WHERE session=?`, raw).Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows with the raw session after Open: %d (%v)", n, err)
	}
	if b, err := os.ReadFile(oldEvents); err != nil || strings.Contains(string(b), raw) || !strings.Contains(string(b), want) {
		t.Fatalf("events.jsonl after Open: %s (%v)", b, err)
	}
}
