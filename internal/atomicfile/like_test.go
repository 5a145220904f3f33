package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteLike(t *testing.T) {
	dir := t.TempDir()
	like := filepath.Join(dir, "a.flow")
	os.WriteFile(like, []byte("x"), 0o600)
	out := filepath.Join(dir, "a.yaml")
	if err := WriteLike(out, like, []byte("y")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v %v", st.Mode(), err)
	}
	if err := WriteLike(filepath.Join(dir, "b"), filepath.Join(dir, "none"), []byte("z")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(dir, "b")); st.Mode().Perm() != 0o644 {
		t.Errorf("default mode %v", st.Mode())
	}
}
