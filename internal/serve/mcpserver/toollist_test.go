package mcpserver

import (
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang"
)

// TestWriteTools: one line per flow by name, required params starred.
func TestWriteTools(t *testing.T) {
	flows := map[string]*lang.Flow{}
	for _, src := range []string{
		"flow b \"Second\"\n\nparam q: string\nparam n: int = 2\n\nlog q\n",
		"flow a \"First\"\n\nlog \"x\"\n",
	} {
		f, ds := lang.Load("x.flow", []byte(src))
		if ds.HasErrors() {
			t.Fatal(ds)
		}
		flows[f.File.Name] = f
	}
	var b strings.Builder
	if errs := WriteTools(&b, flows); len(errs) > 0 {
		t.Fatal(errs)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "TOOL") || !strings.HasPrefix(lines[1], "workflow_a") ||
		!strings.Contains(lines[2], "q:string* n:int") || !strings.HasSuffix(lines[2], "Second") {
		t.Errorf("table:\n%s", b.String())
	}
}
