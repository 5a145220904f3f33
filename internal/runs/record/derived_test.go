package record_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/record"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

// A secret transformed inside {{ }} and rendered into an action (the
// page's URL, its text, the failure snapshot and screenshot then hold the
// derived value) leaves no trace of it in the run's folder or its result:
// the run shares the record's masker (interp.Options.Mask).
func TestDerivedSecretNotRecorded(t *testing.T) {
	home := t.TempDir()
	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	src := `flow derived "A secret transformed in an interpolation"

param password: secret "password"

open "data:text/html,<title>{{ lower(password) }}</title><p id=b>{{ urlquery(lower(password)) }}</p>"
click "#missing" wait: 2s retries: 0
`
	path := filepath.Join(t.TempDir(), "derived.flow")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	f, ds := lang.LoadFile(path)
	if ds.HasErrors() {
		t.Fatalf("flow: %v", ds)
	}
	typed, err := f.CheckArgs(map[string]any{"password": "Zq7-SECRETVAL-k9"})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := record.Start(record.Options{Store: st, Flow: f, Args: typed, Caller: runs.Caller{Kind: runs.CallerCLI}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, page := interp.Run(ctx, f, interp.Options{Args: typed, Browser: browser, Events: rec.Hook(nil), Mask: rec.Mask()})
	fin := rec.Finish(ctx, res, page)
	if page != nil {
		defer page.Close()
	}
	if fin.Err != nil {
		t.Fatalf("recording: %v", fin.Err)
	}
	if res.Success || fin.Packet == nil {
		t.Fatalf("the click should fail with a packet: %+v", res.Error)
	}
	leak := func(b []byte) bool {
		low := bytes.ToLower(b)
		return bytes.Contains(low, []byte("secretval"))
	}
	if b, _ := json.Marshal(res); leak(b) {
		t.Errorf("result holds the derived value: %s", b)
	}
	st.Close()
	n := 0
	err = filepath.WalkDir(fin.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		if leak(b) {
			i := bytes.Index(bytes.ToLower(b), []byte("secretval"))
			t.Errorf("%s holds the derived value: …%s…", filepath.Base(p), b[max(0, i-80):min(len(b), i+40)])
		}
		return nil
	})
	if err != nil || n < 3 {
		t.Fatalf("walked %d files: %v", n, err)
	}
	if !strings.Contains(fin.Report, "report.html") {
		t.Fatalf("no report: %q", fin.Report)
	}
}
