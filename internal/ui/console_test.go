package ui

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/drivers/snapshot"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
)

var update = flag.Bool("update", false, "rewrite the goldens and the screenshots of testdata/")

// The one Chromium of the package that plays the person at the desktop (the runs the console
// starts use the pool's own browser, as in production).
var person struct {
	once sync.Once
	br   drivers.Browser
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if person.br != nil {
		person.br.Close()
	}
	if person.dir != "" {
		os.RemoveAll(person.dir)
	}
	os.Exit(code)
}

// personPage opens a tab of the person's browser.
func personPage(t testing.TB, ctx context.Context) drivers.Page {
	t.Helper()
	person.once.Do(func() {
		person.dir, person.err = os.MkdirTemp("", "rpa-ui-person-")
		if person.err != nil {
			return
		}
		lctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		person.br, person.err = rod.New().Launch(lctx, drivers.LaunchOptions{UserDataDir: person.dir})
	})
	if person.err != nil {
		t.Fatalf("launching Chromium: %v", person.err)
	}
	pg, err := person.br.NewPage(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	return pg
}

// lockedLog is a log writer safe for concurrent use.
type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *lockedLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *lockedLog) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// console is a console under test with real tools: the flows folder served by mcpserver over a
// pool of real Chromium, a run store, and the console mounted on httptest.
type console struct {
	home, dir string
	srv       *mcpserver.Server
	ui        *Server
	ts        *httptest.Server
	log       *lockedLog
}

func newConsole(t *testing.T, files map[string]string) *console {
	t.Helper()
	return newConsoleIn(t, t.TempDir(), files)
}

// newConsoleIn is newConsole on the rpa folder home (two consoles on one
// home are two processes of one desktop).
func newConsoleIn(t *testing.T, home string, files map[string]string) *console {
	t.Helper()
	dir := filepath.Join(home, "flows")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lg := &lockedLog{}
	pool, err := profiles.New(profiles.Options{
		Driver: rod.New(),
		Idle:   -1,
		Launch: func(id string) (drivers.LaunchOptions, error) {
			d := filepath.Join(home, "profiles", id)
			return drivers.LaunchOptions{UserDataDir: d}, os.MkdirAll(d, 0o700)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := runs.OpenHome(home, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The MCP server logs into the same buffer: no secret may show there either.
	srv, err := mcpserver.New(mcpserver.Options{FlowsDir: dir, Pool: pool, Runs: st, Debounce: 20 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(lg, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Home: home, FlowsDir: dir, Tools: srv, Log: lg})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		s.Close()
		ts.Close()
		srv.Close()
		pool.Close()
		st.Close()
	})
	return &console{home: home, dir: dir, srv: srv, ui: s, ts: ts, log: lg}
}

// get fetches a console path with the token cookie, as the person's browser would.
func (c *console) get(t testing.TB, path string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", c.ts.URL+path, nil)
	req.Header.Set(TokenHeader, c.ui.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// step bounds one browser step (only to catch a hang).
func step(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// el finds an element by its role and accessible name.
func el(t testing.TB, pg drivers.Page, role, name string) drivers.Element {
	t.Helper()
	e, _, err := pg.Locate(step(t), []string{fmt.Sprintf(`aria/%s[role="%s"]`, name, role)}, drivers.Attached|drivers.Visible)
	if err != nil {
		body, _ := pg.Text(context.Background())
		t.Fatalf("%s %q: %v\npage text:\n%s", role, name, err, body)
	}
	return e
}

func click(t testing.TB, pg drivers.Page, role, name string) {
	t.Helper()
	if err := el(t, pg, role, name).Click(step(t), "left", 1); err != nil {
		t.Fatalf("click %s %q: %v", role, name, err)
	}
}

func fill(t testing.TB, pg drivers.Page, role, name, value string) {
	t.Helper()
	if err := el(t, pg, role, name).Fill(step(t), value); err != nil {
		t.Fatalf("fill %s %q: %v", role, name, err)
	}
}

func waitText(t testing.TB, pg drivers.Page, s string) {
	t.Helper()
	if err := pg.WaitText(step(t), s); err != nil {
		body, _ := pg.Text(context.Background())
		t.Fatalf("waiting for %q: %v\npage text:\n%s", s, err, body)
	}
}

var (
	reDuration = regexp.MustCompile(`\d+ ms`)
	reCutHome  = regexp.MustCompile(`\$HOME[^"\s]*…`)
	reRunID    = regexp.MustCompile(`run [0-9A-Za-z_-]{8,}`)
	reRunURI   = regexp.MustCompile(`rpa://runs/[0-9A-Za-z_-]+/`)
	rePort     = regexp.MustCompile(`127\.0\.0\.1:\d+`)
	reSettled  = regexp.MustCompile(`changed for \d[\d.]*(ms|s)?…?`) // how long a page had settled (drivers.PageSettled)
	// the clause a wait's error and the failure packet's page field add on a settled page
	reSettledNote = regexp.MustCompile(`(; | page kind settled text )the page had settled \(nothing loaded or changed for T\)?`)
	reRef         = regexp.MustCompile(` \[ref=[a-z0-9]+\]`)
	// reUnnamed matches a snapshot line of a control that has no accessible name.
	reUnnamed = regexp.MustCompile(`^- (textbox|button|combobox|checkbox|radio|link|spinbutton|slider|switch|tab|dialog)( \[|:|$)`)
)

// checkPage compares the structure of the page's main (its accessibility snapshot, refs left out, the
// test's folders, ports and durations replaced) with testdata/golden/NAME.txt and saves a
// screenshot as testdata/screenshots/NAME.png when -update.
func (c *console) checkPage(t *testing.T, pg drivers.Page, name string) {
	t.Helper()
	ctx := step(t)
	snap, err := snapshot.Take(ctx, pg, snapshot.Options{MaxRows: 3, Scope: "main"}) // the nav grows with the pages of others
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	var b strings.Builder
	for _, l := range snap.Lines {
		b.WriteString(strings.Repeat("  ", l.Depth) + reRef.ReplaceAllString(l.Text, "") + "\n")
	}
	got := b.String()
	for _, l := range strings.Split(got, "\n") {
		if m := reUnnamed.FindString(strings.TrimSpace(l)); m != "" {
			t.Errorf("page %s: a control without an accessible name: %s", name, strings.TrimSpace(l))
		}
	}
	got = strings.ReplaceAll(got, c.dir, "$FLOWS")
	got = strings.ReplaceAll(got, c.home, "$HOME")
	got = reDuration.ReplaceAllString(got, "N ms")
	got = reRunID.ReplaceAllString(got, "run ID")
	got = reRunURI.ReplaceAllString(got, "rpa://runs/ID/")
	got = rePort.ReplaceAllString(got, "127.0.0.1:PORT")
	got = reSettled.ReplaceAllString(got, "changed for T")
	// Whether the page had settled when a wait gave up depends on the machine's load
	// (drivers.PageSettled): the golden holds the failure without that clause.
	got = reSettledNote.ReplaceAllString(got, "")
	golden(t, ctx, pg, name, got)
}

// golden compares a page's normalised structure got with
// testdata/golden/NAME.txt; with -update it writes it, and a screenshot of
// the page as testdata/screenshots/NAME.png.
func golden(t *testing.T, ctx context.Context, pg drivers.Page, name, got string) {
	t.Helper()
	// A text the snapshot cut short inside a path under $HOME ends at a point that
	// depends on the temp folder's length: cut it at $HOME.
	got = reCutHome.ReplaceAllString(got, "$$HOME…")
	path := filepath.Join("testdata", "golden", name+".txt")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		png, err := pg.Screenshot(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", "screenshots", name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("page %s: structure differs from %s (run with -update if the change is right)\n--- got\n%s--- want\n%s", name, path, got, want)
	}
}
