package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunDerivedSecretNotRecorded: rpa run of a flow that renders a
// value derived from its secret param into the page (URL, title, text)
// and then fails leaves no trace of the derived value in its output, the
// run's folder (events, failure.json, report.html, screenshots) or
// anything else under RPA_HOME/runs.
func TestRunDerivedSecretNotRecorded(t *testing.T) {
	r := rpaRun(t, "run", "testdata/run/derived_secret.flow", "--arg", "password=Zq7-SECRETVAL-k9", "--json")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (the click fails)\nstderr:\n%s", r.code, r.stderr)
	}
	if strings.Contains(strings.ToLower(r.stdout+r.stderr), "secretval") {
		t.Errorf("the output holds the derived value:\n%s\n%s", r.stdout, r.stderr)
	}
	n, packet := 0, false
	err := filepath.WalkDir(filepath.Join(r.home, "runs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		packet = packet || d.Name() == "failure.json"
		if i := bytes.Index(bytes.ToLower(b), []byte("secretval")); i >= 0 {
			t.Errorf("%s holds the derived value: …%s…", filepath.Base(p), b[max(0, i-80):min(len(b), i+40)])
		}
		return nil
	})
	if err != nil || !packet {
		t.Fatalf("walked %d files (failure.json: %v): %v", n, packet, err)
	}
}
