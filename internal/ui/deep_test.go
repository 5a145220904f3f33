package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckDeepFlow: checking a flow that nests an expression a million
// levels deep (as typed into the editor) answers with the error; the
// console stays up and checks the next text.
func TestCheckDeepFlow(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.flow"), []byte(helloFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	s, ts := newTestServer(t, Options{FlowsDir: dir, ServedDir: dir})
	deep := "flow hello \"nests\"\n\nx = \"{{ " + strings.Repeat("(", 1_000_000) + "1" + strings.Repeat(")", 1_000_000) + " }}\"\n"
	code, v := api(t, ts.URL, s.Token(), "/api/check", checkRequest{File: "hello.flow", Text: deep})
	ds, _ := v["diagnostics"].([]any)
	if code != 200 || len(ds) == 0 || !strings.Contains(ds[0].(map[string]any)["text"].(string), "nested too deeply") {
		t.Fatalf("check: %d %.500v", code, v)
	}
	if code, v := api(t, ts.URL, s.Token(), "/api/check", checkRequest{File: "hello.flow", Text: helloFlow}); code != 200 {
		t.Fatalf("the next check: %d %v", code, v)
	}
}
