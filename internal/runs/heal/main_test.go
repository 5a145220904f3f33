package heal_test

import (
	"context"
	"encoding/json"
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
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/heal"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/stdlib"
)

// One Chromium and one server of ../testdata/heal for the package.
var (
	browser drivers.Browser
	srv     *httptest.Server
)

func TestMain(m *testing.M) { os.Exit(mainRun(m)) }

func mainRun(m *testing.M) int {
	if os.Getenv("RPA_SKIP_BROWSER") != "" {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "rpa-heal-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	srv = httptest.NewServer(http.FileServer(http.Dir("../../../testdata/heal")))
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

func needBrowser(t testing.TB) {
	t.Helper()
	if browser == nil {
		t.Skip("RPA_SKIP_BROWSER set")
	}
}

func loadFlow(t testing.TB, path string) *lang.Flow {
	t.Helper()
	f, ds := lang.LoadFile(path)
	if ds.HasErrors() {
		t.Fatalf("load %s: %v", path, ds)
	}
	return f
}

// outcome is one run: its result, the page's log of acted-on elements
// (data-k of each click and change) and the hook.
type outcome struct {
	res  *interp.Result
	log  []string
	hook *heal.Hook
}

// runFlow runs f on page with mode and store, reads the page's log and
// closes its tab.
func runFlow(t testing.TB, f *lang.Flow, args map[string]any, mode heal.Mode, store heal.Store, host core.Host) outcome {
	t.Helper()
	h := heal.New(mode, store, "")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	checked, err := f.CheckArgs(args)
	if err != nil {
		t.Fatalf("args: %v", err)
	}
	res, last := interp.Run(stdlib.WithLocateHook(ctx, h), f, interp.Options{Args: checked, Browser: browser, Host: host})
	if err := h.Flush(); err != nil {
		t.Fatal(err)
	}
	var log []string
	if last != nil {
		if v, err := last.Eval(ctx, `() => window.__log || []`); err == nil {
			raw, _ := json.Marshal(v)
			_ = json.Unmarshal(raw, &log)
		}
		_ = last.Close()
	}
	return outcome{res: res, log: log, hook: h}
}

func openStore(t testing.TB) *runs.Store {
	t.Helper()
	s, err := runs.Open(t.TempDir(), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func stepsOf(res *interp.Result) string {
	var b strings.Builder
	for _, s := range res.Results {
		fmt.Fprintf(&b, "\n  %d %s line %d %s %s", s.Index, s.Action, s.Line, s.Status, s.Error)
		if s.Heal != nil {
			raw, _ := json.Marshal(s.Heal)
			fmt.Fprintf(&b, "\n     heal %s", raw)
		}
	}
	return b.String()
}
