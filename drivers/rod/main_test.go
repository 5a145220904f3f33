package rod_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
)

// One browser and one page server for the whole package.
var (
	testBrowser drivers.Browser
	srv         *httptest.Server
	srv2        *httptest.Server // a second origin (cross-origin frames)
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "rpa-rod-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	h := pagesHandler()
	srv = httptest.NewServer(h)
	defer srv.Close()
	srv2 = httptest.NewServer(h)
	defer srv2.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := rodd.New().Launch(ctx, drivers.LaunchOptions{UserDataDir: filepath.Join(dir, "profile")})
	if err != nil {
		fmt.Fprintln(os.Stderr, "launch:", err)
		return 1
	}
	testBrowser = b
	code := m.Run()
	stopIsolated()
	if err := b.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "close:", err)
	}
	return code
}

// pagesHandler serves testdata/pages, plus /api/* helpers.
func pagesHandler() http.Handler {
	mux := http.NewServeMux()
	files := http.FileServer(http.Dir("../../testdata/pages"))
	mux.Handle("/", files)
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(150 * time.Millisecond) // the reference flow's server delay
		w.Header().Set("Cache-Control", "no-store")
		files.ServeHTTP(w, r)
	})
	mux.HandleFunc("/slow.css", func(w http.ResponseWriter, r *http.Request) {
		// latecss.html's stylesheet, after ?ms= (or until the tab goes)
		ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/css")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, "#banner { height: 200px !important }")
	})
	mux.HandleFunc("/api/slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		fmt.Fprint(w, "ok")
	})
	mux.HandleFunc("/api/slower", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(1600 * time.Millisecond) // appears.html: longer than a page takes to count as settled
		fmt.Fprint(w, "ok")
	})
	mux.HandleFunc("/status/500", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, "<!doctype html><title>Error</title><h1>Internal Server Error</h1><p>The server could not complete the request.</p>")
	})
	return mux
}

func url(name string) string { return srv.URL + "/" + name }

// open opens name in a new tab, closed at the end of the test.
func open(t testing.TB, name string) drivers.Page {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, err := testBrowser.NewPage(ctx, url(name))
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func tctx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func locate(t testing.TB, f drivers.Frame, want drivers.Checks, sels ...string) drivers.Element {
	t.Helper()
	el, _, err := f.Locate(tctx(t, 10*time.Second), sels, want)
	if err != nil {
		t.Fatalf("locate %v: %v", sels, err)
	}
	return el
}

// click locates and clicks as stdlib's click does: a click the driver held
// back because the page replaced or re-used the element (not_found) locates
// it again, at most 3 times.
func click(t testing.TB, f drivers.Frame, sels ...string) {
	t.Helper()
	for i := 0; ; i++ {
		el := locate(t, f, drivers.ForPointer, sels...)
		err := el.Click(tctx(t, 10*time.Second), "left", 1)
		if err != nil && core.KindOf(err) == core.KindNotFound && i < 3 {
			continue
		}
		if err != nil {
			t.Fatalf("click %v: %v", sels, err)
		}
		return
	}
}

func fill(t testing.TB, f drivers.Frame, sel, value string) {
	t.Helper()
	el := locate(t, f, drivers.ForInput, sel)
	if err := el.Fill(tctx(t, 10*time.Second), value); err != nil {
		t.Fatalf("fill %s: %v", sel, err)
	}
}

func text(t testing.TB, f drivers.Frame, sel string) string {
	t.Helper()
	el := locate(t, f, drivers.ForRead, sel)
	s, err := el.Text(tctx(t, 10*time.Second))
	if err != nil {
		t.Fatalf("text %s: %v", sel, err)
	}
	return s
}

// waitResult waits until #result has the text want.
func waitResult(t testing.TB, f drivers.Frame, want string) {
	t.Helper()
	ctx := tctx(t, 10*time.Second)
	last := ""
	for ctx.Err() == nil {
		el, _, err := f.Locate(ctx, []string{"#result"}, drivers.Attached)
		if err == nil {
			last, _ = el.Text(ctx)
			if last == want {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("#result = %q, want %q", last, want)
}

func kindOf(err error) core.Kind {
	var de *core.Error
	if errors.As(err, &de) {
		return de.Kind
	}
	return ""
}

var _ = strings.Contains
