package stdlib_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

// One Chromium and one page server for the package (real-browser tests of
// every action against testdata/pages and ./testdata/pages).
var (
	browser drivers.Browser
	srv     *httptest.Server
	tmpRoot string
)

func TestMain(m *testing.M) { os.Exit(mainRun(m)) }

func mainRun(m *testing.M) int {
	if os.Getenv("RPA_SKIP_BROWSER") != "" {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "rpa-stdlib-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	tmpRoot = dir
	srv = httptest.NewServer(pages())
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	browser, err = rodd.New().Launch(ctx, drivers.LaunchOptions{UserDataDir: filepath.Join(dir, "profile")})
	if err != nil {
		fmt.Fprintln(os.Stderr, "launch:", err)
		return 1
	}
	code := m.Run()
	_ = browser.Close()
	return code
}

// pages serves ./testdata/pages, then ../testdata/pages, plus /api helpers.
func pages() http.Handler {
	mine := http.Dir("testdata/pages")
	shared := http.Dir("../testdata/pages")
	mux := http.NewServeMux()
	mux.HandleFunc("/api/report.csv", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/csv")
		w.Header().Set("Content-Disposition", `attachment; filename="report.csv"`)
		fmt.Fprint(w, "a,b\n1,2\n")
	})
	mux.HandleFunc("/api/slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		fmt.Fprint(w, "ok")
	})
	mux.HandleFunc("/status/500", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, "<!doctype html><title>Error</title><h1>Internal Server Error</h1><p>The server could not complete the request.</p>")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if f, err := mine.Open(r.URL.Path); err == nil {
			f.Close()
			http.FileServer(mine).ServeHTTP(w, r)
			return
		}
		http.FileServer(shared).ServeHTTP(w, r)
	})
	return mux
}

// flowRun loads src (a .flow body without the header; "{{ base }}" is the
// server URL), runs it on a fresh tab and closes every tab it opened.
func flowRun(t *testing.T, src string, args map[string]any, host core.Host) *interp.Result {
	t.Helper()
	if browser == nil {
		t.Skip("RPA_SKIP_BROWSER set")
	}
	f, ds := lang.Load("t.flow", []byte("flow t\nparam base: string\n"+src+"\n"))
	if ds.HasErrors() {
		t.Fatalf("load: %v", ds)
	}
	if args == nil {
		args = map[string]any{}
	}
	args["base"] = srv.URL
	checked, err := f.CheckArgs(args)
	if err != nil {
		t.Fatalf("args: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	t0 := time.Now()
	res, last := interp.Run(ctx, f, interp.Options{Args: checked, Browser: browser, Host: host, Events: func(e interp.Event) {
		if e.Kind == interp.EventStarted {
			t.Logf("%5dms start %d %s %s", time.Since(t0).Milliseconds(), e.Index, e.Action, e.Target)
		}
	}})
	// Close the tab the run ended on. (Other tabs a flow opened stay:
	// Browser.Pages can block on a tab that is closing.)
	if last != nil {
		_ = last.Close()
	}
	return res
}

// expect runs src and checks it succeeded with outputs whose JSON is want.
func expect(t *testing.T, src string, want string) *interp.Result {
	t.Helper()
	res := flowRun(t, src, nil, core.Host{})
	if !res.Success {
		t.Fatalf("failed: %+v\nsteps: %s", res.Error, steps(res))
	}
	if got := jsonOf(res.Outputs); got != want {
		t.Fatalf("outputs:\n got %s\nwant %s", got, want)
	}
	return res
}

func steps(res *interp.Result) string {
	var b strings.Builder
	for _, s := range res.Results {
		fmt.Fprintf(&b, "\n  %d %s line %d %s %dms %s", s.Index, s.Action, s.Line, s.Status, s.DurationMs, s.Error)
	}
	return b.String()
}

// argsOf is f's arguments checked from m; a bad argument fails the test.
func argsOf(t testing.TB, f *lang.Flow, m map[string]any) lang.Args {
	t.Helper()
	a, err := f.CheckArgs(m)
	if err != nil {
		t.Fatalf("args: %v", err)
	}
	return a
}
