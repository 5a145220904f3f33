package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestWrite(t *testing.T) {
	for _, sync := range []bool{true, false} {
		testWrite(t, sync)
	}
}

func testWrite(t *testing.T, sync bool) {
	write := Write
	if !sync {
		write = WriteNoSync
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "a.flow")
	if err := write(p, []byte("one"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := write(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "two" {
		t.Fatalf("%q %v", b, err)
	}
	if st, _ := os.Stat(p); runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
	if err := write(filepath.Join(dir, "no", "such", "dir"), []byte("x"), 0o600); err == nil {
		t.Error("no error for a missing folder")
	}
}
