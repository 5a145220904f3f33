package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConnectEnvExample: the example a fix names exists where it says (the
// packages' copy, or the portable archive's next to the binary), or the
// text says where each kind of install keeps it.
func TestConnectEnvExample(t *testing.T) {
	p := ConnectEnvExample()
	if _, err := os.Stat(p); err != nil && !strings.Contains(p, "next to rpa") {
		t.Errorf("%q: %v", p, err)
	}
	exe, _ := os.Executable()
	beside := filepath.Join(filepath.Dir(exe), "connect.env.example")
	if _, err := os.Stat(packagedExample); err != nil {
		if err := os.WriteFile(beside, []byte("RPA_URL=\n"), 0o644); err != nil {
			t.Skip("test binary folder not writable")
		}
		defer os.Remove(beside)
		if got := ConnectEnvExample(); got != beside {
			t.Errorf("with an example next to the binary: %q, want %q", got, beside)
		}
	}
}
