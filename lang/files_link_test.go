package lang

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestFlowFilesSymlinks: a link in the flows folder to a file outside it
// is no flow file (the console's editor showed the target: a key, a
// password file); a link to another file of the folder still is.
func TestFlowFilesSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "id_ed25519")
	os.WriteFile(secret, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "real.flow"), []byte("flow real\nlog \"x\"\n"), 0o644)
	for link, target := range map[string]string{"evil.flow": secret, "dots.flow": "../" + filepath.Base(outside) + "/id_ed25519", "alias.flow": "real.flow", "dangling.flow": "none.flow"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	files, err := FlowFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if len(names) != 2 || names[0] != "alias.flow" || names[1] != "real.flow" {
		t.Fatalf("FlowFiles = %v, want the real file and the link to it", names)
	}
}
