package importer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang"
)

func flowsNamed(t *testing.T, names ...string) []*Flow {
	t.Helper()
	var out []*Flow
	for _, n := range names {
		f, ds := lang.Parse(n+".flow", []byte("flow "+n+"\n\nopen \"https://x.test/\"\n"))
		if ds.HasErrors() {
			t.Fatal(ds)
		}
		out = append(out, &Flow{Name: n, File: f})
	}
	return out
}

// TestWrite: one flow to w or a .flow file; several to a folder; several
// without a folder refused with nothing written.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	if dest, err := Write(&b, "", "in.json", flowsNamed(t, "a")); err != nil || dest != "stdout" || !strings.HasPrefix(b.String(), "flow a") {
		t.Errorf("to w: %q %v\n%s", dest, err, b.String())
	}
	file := filepath.Join(dir, "one.flow")
	if dest, err := Write(nil, file, "in.json", flowsNamed(t, "a")); err != nil || dest != file {
		t.Errorf("to a file: %q %v", dest, err)
	}
	folder := filepath.Join(dir, "out")
	if _, err := Write(nil, folder, "in.side", flowsNamed(t, "a", "b")); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b"} {
		if _, err := os.Stat(filepath.Join(folder, n+".flow")); err != nil {
			t.Error(err)
		}
	}
	for _, out := range []string{"", filepath.Join(dir, "two.flow")} {
		_, err := Write(&b, out, "in.side", flowsNamed(t, "a", "b"))
		if oe := (*OutputError)(nil); !errors.As(err, &oe) || !strings.Contains(err.Error(), "holds 2 tests") {
			t.Errorf("-o %q: %v", out, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "two.flow")); !os.IsNotExist(err) {
		t.Errorf("refused output written: %v", err)
	}
}
