package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/runs"
)

// TestCopy: the report is written when missing and copied to dest.
func TestCopy(t *testing.T) {
	s, err := runs.Open(t.TempDir(), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := &runs.Run{Flow: "login", Caller: runs.Caller{Kind: runs.CallerCLI}}
	if _, err := s.Begin(r); err != nil {
		t.Fatal(err)
	}
	s.Finish(r.ID, runs.Outcome{Status: runs.StatusOK})
	dest := filepath.Join(t.TempDir(), "r.html")
	if err := Copy(s, r.ID, dest); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dest)
	if err != nil || !strings.Contains(string(b), "login") {
		t.Errorf("copy: %v\n%.200s", err, b)
	}
	if _, err := os.Stat(filepath.Join(s.RunDir(r.ID), FileName)); err != nil {
		t.Errorf("report not kept in the run folder: %v", err)
	}
}
