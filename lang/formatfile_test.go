package lang

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFormatFile: canonical text in place (written only when it changes),
// a conversion next to the file with its mode, and the refusals.
func TestFormatFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.flow")
	os.WriteFile(path, []byte("flow a   \"x\"\n\n# keep\nlog    \"hi\"\n"), 0o600)
	c, src, ds, err := FormatFile(path, "")
	if err != nil || ds.HasErrors() || c.Dest != path || !strings.Contains(string(c.Out), "# keep\nlog \"hi\"") {
		t.Fatalf("%+v %v %v", c, ds, err)
	}
	if wrote, err := WriteFormatted(c, path, src); !wrote || err != nil {
		t.Fatalf("first write: %v %v", wrote, err)
	}
	c, src, _, _ = FormatFile(path, "")
	if wrote, err := WriteFormatted(c, path, src); wrote || err != nil {
		t.Errorf("canonical file rewritten: %v %v", wrote, err)
	}
	c, src, _, _ = FormatFile(path, "yaml")
	if c.Dest != filepath.Join(dir, "a.yaml") || len(c.Notes) != 1 {
		t.Errorf("to yaml: %+v", c)
	}
	if _, err := WriteFormatted(c, path, src); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(c.Dest); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("yaml file: %v %v", st, err)
	}
	bad := filepath.Join(dir, "b.flow")
	os.WriteFile(bad, []byte("flow b\nclick \"x\n"), 0o644)
	if _, _, ds, err := FormatFile(bad, ""); err != nil || !ds.HasErrors() {
		t.Errorf("does not parse: %v %v", ds, err)
	}
	for _, c := range []struct{ path, to, want string }{
		{path, "json", "--to must be flow or yaml"},
		{filepath.Join(dir, "n.txt"), "", "not a flow file"},
		{filepath.Join(dir, "none.flow"), "", "no such file"},
	} {
		if _, _, _, err := FormatFile(c.path, c.to); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v", c.path, c.to, err)
		}
	}
}
