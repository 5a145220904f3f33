package rod_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/launcher"
	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
)

// processesUsing lists pids whose command line mentions needle.
func processesUsing(needle string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if strings.Contains(string(b), needle) {
			// skip zombies (already dead, waiting to be reaped by init)
			st, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if f := strings.Fields(string(st)); len(f) > 2 && f[2] == "Z" {
				continue
			}
			out = append(out, e.Name())
		}
	}
	return out
}

func TestLaunchCloseLeavesNoProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "own-profile")
	ctx := tctx(t, 30*time.Second)
	b, err := rodd.New().Launch(ctx, drivers.LaunchOptions{UserDataDir: dir, Flags: map[string]string{"lang": "en-US"}})
	if err != nil {
		t.Fatal(err)
	}
	if pages, err := b.Pages(ctx); err != nil || len(pages) != 0 {
		t.Errorf("a fresh browser has %d tabs (%v), want none", len(pages), err)
	}
	p, err := b.NewPage(ctx, url("basic.html"))
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, p, "#title"); got != "Basic page" {
		t.Fatalf("title %q", got)
	}
	p2, err := b.NewPage(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if pages, err := b.Pages(ctx); err != nil || len(pages) != 2 || pages[0] != p || pages[1] != p2 {
		t.Errorf("pages = %v, %v; want the two tabs oldest first", pages, err)
	}
	v, err := p.Eval(ctx, `() => [innerWidth, innerHeight]`)
	if err != nil {
		t.Fatal(err)
	}
	if vs, _ := v.([]any); len(vs) != 2 || vs[0] != 1280.0 || vs[1] != 720.0 {
		t.Errorf("viewport = %v", v)
	}
	if !b.Alive() {
		t.Fatal("not alive")
	}
	if procs := processesUsing(dir); len(procs) < 2 {
		t.Fatalf("expected chromium processes using %s, found %v", dir, procs)
	}
	start := time.Now()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("close took %v", time.Since(start))
	if b.Alive() {
		t.Error("alive after Close")
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		procs := processesUsing(dir)
		if len(procs) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("chromium processes left after Close: %v", procs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := b.NewPage(ctx, ""); err == nil {
		t.Error("NewPage after Close succeeded")
	}
}

func TestRemoteAttach(t *testing.T) {
	// attach to the shared browser's endpoint through a second connection
	args, err := rodd.Args(drivers.LaunchOptions{UserDataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(args, " ")
	for _, f := range []string{"--headless=new", "--no-sandbox", "--disable-gpu", "--window-position=-2400,-2400",
		"--window-size=1280,720", "--disable-extensions", "--disable-popup-blocking", "--disable-notifications",
		"--disable-quic", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-background-networking"} {
		if !strings.Contains(joined, f) {
			t.Errorf("flag %s missing from %s", f, joined)
		}
	}
	shown, _ := rodd.Args(drivers.LaunchOptions{UserDataDir: t.TempDir(), Show: true})
	if strings.Contains(strings.Join(shown, " "), "headless") {
		t.Error("Show still headless")
	}
	if _, err := rodd.Args(drivers.LaunchOptions{}); err == nil {
		t.Error("missing user-data dir accepted")
	}
	ctx := tctx(t, 10*time.Second)
	if _, err := rodd.New().Launch(ctx, drivers.LaunchOptions{Remote: "ws://127.0.0.1:1/devtools/browser/x"}); kindOf(err) != core.KindBrowser {
		t.Errorf("attach to nothing: %v", err)
	}
}

func TestFindBrowser(t *testing.T) {
	if _, err := rodd.FindBrowser("/nonexistent/chromium"); err == nil ||
		!strings.Contains(err.Error(), "apt-get update && apt-get install -y chromium") {
		t.Errorf("missing bin: %v", err)
	}
	t.Setenv("ROD_BROWSER", "/nonexistent/chrome")
	if _, err := rodd.FindBrowser(""); err == nil || !strings.Contains(err.Error(), "ROD_BROWSER") {
		t.Errorf("bad ROD_BROWSER: %v", err)
	}
	_, err := rodd.New().Launch(context.Background(), drivers.LaunchOptions{UserDataDir: t.TempDir()})
	if kindOf(err) != core.KindBrowser || !strings.Contains(err.Error(), "apt-get") {
		t.Errorf("launch without browser: %v", err)
	}
	t.Setenv("ROD_BROWSER", "")
	if p, err := rodd.FindBrowser(""); err != nil || p == "" {
		t.Errorf("default browser: %q %v", p, err)
	}
}

func TestParseChord(t *testing.T) {
	for _, c := range []struct {
		in   string
		mods int
		ok   bool
	}{
		{"Enter", 0, true}, {"a", 0, true}, {"Control+A", 1, true}, {"Shift+Tab", 1, true},
		{"Control+Shift+ArrowLeft", 2, true}, {"Control++", 1, true}, {"+", 0, true},
		{"", 0, false}, {"Nope", 0, false}, {"a+b", 0, false}, {"Control+é", 0, false},
	} {
		mods, _, err := rodd.ParseChord(c.in)
		if (err == nil) != c.ok || (c.ok && len(mods) != c.mods) {
			t.Errorf("ParseChord(%q) = %d mods, %v", c.in, len(mods), err)
		}
	}
}

func TestMatchURL(t *testing.T) {
	for _, c := range []struct {
		pat, u string
		want   bool
	}{
		{"basic2", "http://x/basic2.html", true}, {"re:^http://x/b.*2", "http://x/basic2.html", true},
		{"re:^https", "http://x", false}, {"nope", "http://x", false},
	} {
		if got, err := rodd.MatchURL(c.pat, c.u); got != c.want || err != nil {
			t.Errorf("MatchURL(%q, %q) = %v, %v", c.pat, c.u, got, err)
		}
	}
}

func TestRemoteAttachReal(t *testing.T) {
	bin, err := rodd.FindBrowser("")
	if err != nil {
		t.Skip(err)
	}
	l := launcher.New().Bin(bin).Leakless(false).Set("no-sandbox").Set("headless", "new").
		UserDataDir(filepath.Join(t.TempDir(), "remote"))
	u, err := l.Launch()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Kill()
	ctx := tctx(t, 20*time.Second)
	b, err := rodd.New().Launch(ctx, drivers.LaunchOptions{Remote: u})
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.NewPage(ctx, url("basic.html"))
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, p, "#title"); got != "Basic page" {
		t.Errorf("title %q", got)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	// detaching leaves the remote browser running
	b2, err := rodd.New().Launch(ctx, drivers.LaunchOptions{Remote: u})
	if err != nil {
		t.Fatalf("remote browser gone after detach: %v", err)
	}
	// a new profile has a browser context of its own: the first one's tab
	// went with its context
	pages, err := b2.Pages(ctx)
	if err != nil || len(pages) != 0 {
		t.Errorf("pages after re-attach: %d, %v (want 0: each profile has its own context)", len(pages), err)
	}
	_ = b2.Close()
}

func TestBrowserCrash(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "crash")
	ctx := tctx(t, 30*time.Second)
	b, err := rodd.New().Launch(ctx, drivers.LaunchOptions{UserDataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.NewPage(ctx, url("basic.html"))
	if err != nil {
		t.Fatal(err)
	}
	pid := b.(interface{ PID() int }).PID()
	if pid == 0 {
		t.Fatal("no pid")
	}
	if err := killGroup(pid); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for b.Alive() {
		if time.Now().After(deadline) {
			t.Fatal("still alive after the process was killed")
		}
		time.Sleep(50 * time.Millisecond)
	}
	long := tctx(t, 60*time.Second)
	start := time.Now()
	if _, _, err := p.Locate(long, []string{"#go"}, drivers.ForRead); kindOf(err) != core.KindBrowser || !strings.Contains(err.Error(), "browser is gone") {
		t.Errorf("Locate on a dead browser: %v", err)
	}
	if d := time.Since(start); d > 30*time.Second { // only when it waited for the deadline
		t.Errorf("Locate on a dead browser took %v", d)
	}
	done := make(chan error, 1)
	go func() { done <- b.Close() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hangs on a dead browser")
	}
}
