package mcpserver

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDeepFlowDoesNotStopTheServer: a flow nesting an expression a million
// levels deep (a 2 MB file) in the served folder is reported and skipped;
// the server starts (again and again) and serves the other flows.
func TestDeepFlowDoesNotStopTheServer(t *testing.T) {
	dir := copyFlows(t, "hit.flow")
	deep := "flow deep \"nests\"\n\nx = \"{{ " + strings.Repeat("(", 1_000_000) + "1" + strings.Repeat(")", 1_000_000) + " }}\"\n"
	if err := os.WriteFile(filepath.Join(dir, "deep.flow"), []byte(deep), 0o644); err != nil {
		t.Fatal(err)
	}
	for start := 1; start <= 2; start++ {
		s, logs := newServer(t, Options{FlowsDir: dir, NoWatch: true})
		if names := s.ToolNames(); !slices.Contains(names, "workflow_hit") || slices.Contains(names, "workflow_deep") {
			t.Fatalf("start %d: tools %v", start, names)
		}
		if l := logs.String(); !strings.Contains(l, "deep.flow") || !strings.Contains(l, "nested too deeply") {
			t.Fatalf("start %d: the bad file is not reported:\n%.2000s", start, l)
		}
		s.Close()
	}
}
