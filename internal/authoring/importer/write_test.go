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
	if dest, err := Write(&b, "", "in.json", flowsNamed(t, "a"), false); err != nil || dest != "stdout" || !strings.HasPrefix(b.String(), "flow a") {
		t.Errorf("to w: %q %v\n%s", dest, err, b.String())
	}
	file := filepath.Join(dir, "one.flow")
	if dest, err := Write(nil, file, "in.json", flowsNamed(t, "a"), false); err != nil || dest != file {
		t.Errorf("to a file: %q %v", dest, err)
	}
	folder := filepath.Join(dir, "out")
	if _, err := Write(nil, folder, "in.side", flowsNamed(t, "a", "b"), false); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b"} {
		if _, err := os.Stat(filepath.Join(folder, n+".flow")); err != nil {
			t.Error(err)
		}
	}
	for _, out := range []string{"", filepath.Join(dir, "two.flow")} {
		_, err := Write(&b, out, "in.side", flowsNamed(t, "a", "b"), false)
		if oe := (*OutputError)(nil); !errors.As(err, &oe) || !strings.Contains(err.Error(), "holds 2 tests") {
			t.Errorf("-o %q: %v", out, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "two.flow")); !os.IsNotExist(err) {
		t.Errorf("refused output written: %v", err)
	}
}

// TestWriteRefusesExisting: a flow that exists already (a hand-written
// one of the same NAME) is refused, naming it, with nothing written (not
// the other flows of a folder either); --force (force) replaces it.
func TestWriteRefusesExisting(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mine.flow")
	folder := filepath.Join(dir, "out")
	mine := []byte("flow a \"written by hand\"\n")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, filepath.Join(folder, "b.flow")} {
		if err := os.WriteFile(p, mine, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		out   string
		flows []*Flow
		named string
	}{
		{file, flowsNamed(t, "a"), file},
		{folder, flowsNamed(t, "a", "b"), filepath.Join(folder, "b.flow")},
	} {
		_, err := Write(nil, tc.out, "in.side", tc.flows, false)
		if oe := (*OutputError)(nil); !errors.As(err, &oe) || !strings.Contains(err.Error(), tc.named+" exists") || !strings.Contains(err.Error(), "--force") {
			t.Errorf("-o %s: %v", tc.out, err)
		}
		if got, _ := os.ReadFile(tc.named); string(got) != string(mine) {
			t.Errorf("-o %s: the existing flow was replaced:\n%s", tc.out, got)
		}
	}
	if _, err := os.Stat(filepath.Join(folder, "a.flow")); !os.IsNotExist(err) {
		t.Errorf("a refused import wrote another flow: %v", err)
	}
	if _, err := Write(nil, folder, "in.side", flowsNamed(t, "a", "b"), true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(folder, "b.flow")); !strings.HasPrefix(string(got), "flow b") {
		t.Errorf("--force did not replace b.flow:\n%s", got)
	}
}
