package record_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/record"
	"github.com/rpa-dev/rpa/internal/runs/report"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

var (
	browser drivers.Browser
	srv     *httptest.Server
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "rpa-record-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	srv = httptest.NewServer(http.FileServer(http.Dir("../../../testdata/pages")))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := rodd.New().Launch(ctx, drivers.LaunchOptions{UserDataDir: filepath.Join(dir, "profile")})
	if err != nil {
		fmt.Fprintln(os.Stderr, "launch:", err)
		return 1
	}
	browser = b
	defer b.Close()
	return m.Run()
}

const secret = "Zebra-S3cret-9981"

const coveredFlow = `flow covered "A click on a covered button"

param base: string "server"
param user: string "user"
param password: secret "password"

open "{{ base }}/login.html"
fill "#user" user
fill "#password" password
log "signed in as {{ user }} with {{ password }}"
open "{{ base }}/overlay.html"
click ["#nope", "#continue"] wait: 3s retries: 0
`

// runFlow runs src with a recorder and returns what it finished with.
func runFlow(t *testing.T, st *runs.Store, src, evidence string, args map[string]any) (*interp.Result, *record.Finished) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "flow.flow")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	f, ds := lang.LoadFile(path)
	if ds.HasErrors() {
		t.Fatalf("flow: %v", ds)
	}
	typed, err := f.CheckArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := record.Start(record.Options{Store: st, Flow: f, Args: typed, Caller: runs.Caller{Kind: runs.CallerCLI}, Evidence: evidence})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, page := interp.Run(ctx, f, interp.Options{Args: typed, Browser: browser, Events: rec.Hook(nil)})
	fin := rec.Finish(ctx, res, page)
	if page != nil {
		t.Cleanup(func() { page.Close() })
	}
	if fin.Err != nil {
		t.Fatalf("recording: %v", fin.Err)
	}
	return res, fin
}

func TestCoveredButton(t *testing.T) {
	home := t.TempDir()
	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, fin := runFlow(t, st, coveredFlow, "", map[string]any{"base": srv.URL, "user": "ann", "password": secret})
	if res.Success || res.Error.Kind != "covered" {
		t.Fatalf("result: %+v", res.Error)
	}
	p := fin.Packet
	if p == nil {
		t.Fatal("no packet")
	}
	if p.Line != 12 || p.Action != "click" || !strings.HasPrefix(p.Source, "click [") || !strings.Contains(p.URL, "/overlay.html") || p.Title != "Overlays" {
		t.Errorf("packet head: %+v", p)
	}
	if len(p.Selectors) != 2 || p.Selectors[0].Reason != "no element matches \"#nope\"" && !strings.Contains(p.Selectors[0].Reason, "no element") ||
		!strings.Contains(p.Selectors[1].Reason, "covered by div#consent") {
		t.Errorf("selectors: %+v", p.Selectors)
	}
	if !strings.Contains(strings.Join(p.Hints, "\n"), "div#consent covers the target") {
		t.Errorf("hints: %q", p.Hints)
	}
	if !strings.Contains(p.Snapshot, `dialog "Cookies"`) || !strings.Contains(p.Snapshot, `[target]`) || p.Screenshot == "" || len(fin.Image) == 0 {
		t.Errorf("snapshot %q, screenshot %q, image %d bytes", p.Snapshot, p.Screenshot, len(fin.Image))
	}
	if n := len(mustJSON(t, p)); n > 4*record.DefaultPacketBudget {
		t.Errorf("packet is %d chars, over the budget", n)
	}
	r, err := st.Get(fin.ID)
	if err != nil || r.Status != runs.StatusFailed || r.ErrorKind != "covered" || r.ErrorLine != 12 || r.Args["password"] != "***" {
		t.Fatalf("record: %+v %v", r, err)
	}
	steps, _ := st.Steps(fin.ID)
	if len(steps) != 5 || steps[1].Selector != "#user" || steps[4].ErrorKind != "covered" {
		t.Fatalf("steps: %+v", steps)
	}

	// The report opens in Chromium and shows the failing step.
	html, err := os.ReadFile(fin.Report)
	if err != nil {
		t.Fatal(err)
	}
	rsrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(html)
	}))
	defer rsrv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pg, err := browser.NewPage(ctx, rsrv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	got, err := pg.Eval(ctx, `() => ({
		status: document.querySelector('#status').textContent,
		failedRow: (document.querySelector('#timeline tr.failed') || {}).id,
		failedText: (document.querySelector('#timeline tr.failed') || {}).innerText,
		selectors: document.querySelector('#selectors').innerText,
		shot: document.querySelector('#failure-shot').naturalWidth,
		error: document.querySelector('#error').innerText,
	})`)
	if err != nil {
		t.Fatal(err)
	}
	m := got.(map[string]any)
	if m["status"] != "failed" || m["failedRow"] != "step-5" || !strings.Contains(fmt.Sprint(m["failedText"]), "covered") ||
		!strings.Contains(fmt.Sprint(m["selectors"]), "covered by div#consent") || fmt.Sprint(m["shot"]) == "0" ||
		!strings.Contains(fmt.Sprint(m["error"]), "line 12") {
		t.Fatalf("report DOM: %v", m)
	}
	shot, err := pg.Screenshot(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(shot)); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(t.TempDir(), "report.png")
	if d := os.Getenv("RPA_TEST_ARTIFACTS"); d != "" {
		keep = filepath.Join(d, "report.png")
	}
	if err := os.WriteFile(keep, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("report screenshot: %s", keep)

	// No trace of the secret anywhere: run folder and database files.
	st.Close()
	assertNoSecret(t, filepath.Join(home, "runs"))
}

func TestFullEvidence(t *testing.T) {
	home := t.TempDir()
	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	src := strings.Replace(coveredFlow, "open \"{{ base }}/overlay.html\"\nclick [\"#nope\", \"#continue\"] wait: 3s retries: 0", `click "#signin"`, 1)
	res, fin := runFlow(t, st, src, runs.EvidenceFull, map[string]any{"base": srv.URL, "user": "ann", "password": secret})
	if !res.Success {
		t.Fatalf("result: %+v", res.Error)
	}
	if fin.Packet != nil {
		t.Fatal("a packet for a run that succeeded")
	}
	shots, _ := filepath.Glob(filepath.Join(fin.Dir, "screenshots", "*.jpg"))
	if len(shots) != 4 {
		t.Fatalf("%d screenshots, want one per page action (4): %v", len(shots), shots)
	}
	html, _ := os.ReadFile(fin.Report)
	if n := strings.Count(string(html), "data:image/jpeg;base64,"); n != 4 {
		t.Fatalf("%d images in the report", n)
	}
	// A tight cap drops the oldest shots first and says so.
	var b bytes.Buffer
	if err := report.Render(&b, st, fin.ID, report.Options{MaxBytes: len(html) - 10000}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "data:image/jpeg;base64,"); n >= 4 || !strings.Contains(b.String(), "left out to keep this report under") ||
		!strings.Contains(b.String(), `id="step-4"`) || b.Len() > len(html)-10000 {
		t.Fatalf("capped report: %d images, %d bytes", n, b.Len())
	}
	st.Close()
	assertNoSecret(t, filepath.Join(home, "runs"))
}

func assertNoSecret(t *testing.T, dir string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		if bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte("Zebra-S3")) {
			t.Errorf("%s holds the secret", path)
		}
		return nil
	})
	if err != nil || n < 3 {
		t.Fatalf("walked %d files: %v", n, err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
