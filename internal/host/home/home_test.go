package home

import "testing"

// TestDir: $RPA_HOME when set, else ~/.rpa.
func TestDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("RPA_HOME", dir)
	if Dir() != dir {
		t.Fatalf("Dir = %q", Dir())
	}
	t.Setenv("RPA_HOME", "")
	t.Setenv("HOME", "/tmp/somehome")
	if Dir() != "/tmp/somehome/.rpa" {
		t.Errorf("default Dir = %q", Dir())
	}
}
