package lang

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLoadAt: a buffer not yet on disk has its `call` targets resolved
// among the files of its folder, as LoadFile would once it is written.
func TestLoadAt(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "callee.flow"), []byte("flow callee\nparam region: string\nlog region\n"), 0o644)
	path := filepath.Join(dir, "new.flow")
	if f, ds := LoadAt(path, []byte("flow new\nx = call callee with: {\"region\": \"N\"}\n")); f == nil || len(ds) > 0 {
		t.Errorf("good buffer: %v", ds)
	}
	if f, ds := LoadAt(path, []byte("flow new\nx = call callee with: {\"regoin\": \"N\"}\n")); f != nil || !ds.HasErrors() {
		t.Errorf("bad with: key loads (%v)", ds)
	}
	if f, _ := Load(path, []byte("flow new\nx = call callee with: {\"regoin\": \"N\"}\n")); f == nil {
		t.Error("Load resolves the folder: LoadAt is not needed")
	}
}
