package profiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunProfileErrorSaysItOnce: a temporary profile that cannot be made
// is named once in the error ("temporary profile: mkdir ..."), and so is a
// persistent one.
func TestRunProfileErrorSaysItOnce(t *testing.T) {
	file := filepath.Join(t.TempDir(), "home")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RPA_HOME", file) // a file: nothing can be made under it
	for _, tc := range []struct{ id, prefix string }{
		{"", "temporary profile: mkdir " + file},
		{"work", `profile "work": mkdir ` + file},
	} {
		_, _, err := ForRun(tc.id)
		if err == nil {
			t.Fatalf("ForRun(%q) = nil error", tc.id)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, tc.prefix) || strings.Count(msg, "profile") != 1 {
			t.Errorf("ForRun(%q): %q, want it to start %q and say profile once", tc.id, msg, tc.prefix)
		}
	}
}
