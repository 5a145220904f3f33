package lang

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckFlowFile(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.flow", "b.YAML", "notes.txt"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	for name, want := range map[string]string{
		"a.flow": "", "b.YAML": "", "notes.txt": "not a flow file", ".": "is a folder", "none.flow": "no such file",
	} {
		err := CheckFlowFile(filepath.Join(dir, name))
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
}
