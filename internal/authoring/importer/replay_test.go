package importer_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/authoring/importer"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/format"
)

// The replay tests share one headless Chromium and one page server.
var (
	browser drivers.Browser
	site    *httptest.Server
	evMu    sync.Mutex
	events  []string
)

func TestMain(m *testing.M) { os.Exit(mainRun(m)) }

func mainRun(m *testing.M) int {
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir("testdata/pages")))
	mux.HandleFunc("/event", func(w http.ResponseWriter, r *http.Request) {
		evMu.Lock()
		for k, vs := range r.URL.Query() {
			for _, v := range vs {
				events = append(events, k+"="+v)
			}
		}
		evMu.Unlock()
		fmt.Fprint(w, "ok")
	})
	site = httptest.NewServer(mux)
	defer site.Close()
	code := m.Run()
	if browser != nil {
		browser.Close()
	}
	return code
}

// launch starts the shared browser on first need (the golden tests need none).
func launch(t *testing.T) drivers.Browser {
	t.Helper()
	if browser != nil {
		return browser
	}
	dir, err := os.MkdirTemp("", "rpa-importer-test-")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := rodd.New().Launch(ctx, drivers.LaunchOptions{UserDataDir: filepath.Join(dir, "profile")})
	if err != nil {
		t.Fatalf("launch chromium: %v", err)
	}
	browser = b
	return b
}

// takeEvents returns the events the pages reported since the last call,
// sorted: the pages report with fetch, and two reports close together may
// arrive in either order.
func takeEvents() []string {
	evMu.Lock()
	defer evMu.Unlock()
	out := events
	events = nil
	sort.Strings(out)
	return out
}

// sortedLines sorts the lines of an events text.
func sortedLines(s string) string {
	l := strings.Fields(s)
	sort.Strings(l)
	return strings.Join(l, "\n") + "\n"
}

// TestReplay imports recordings written for the pages under
// testdata/pages, prints them, loads them back with lang.Load and runs
// them with interp.Run on headless Chromium through drivers/rod. The pages
// report what was done to them (GET /event), so the final state is checked
// from the server's side: it is the state @puppeteer/replay leaves when it
// replays the Chrome recordings (testdata/replay/*.events, recorded with
// testdata/replay/replay.mjs).
func TestReplay(t *testing.T) {
	shot := filepath.Join(t.TempDir(), "done.png")
	cases := []struct {
		input string
		flow  string         // the flow to run ("" = the only one)
		args  map[string]any // base_url is added
		want  string         // events, one per line; "" = testdata/replay/NAME.events
	}{
		{input: "chrome/login-form.json", args: map[string]any{"password": "s3cret"}},
		{input: "chrome/keys-frames-popup.json"},
		// Enter submits a form that navigates a moment later; the next step's
		// selector exists on both pages, so only a wait for the navigation
		// asserted on the key step presses the right one.
		{input: "chrome/enter-navigates.json"},
		{input: "side/site.side", flow: "tools", args: map[string]any{"password": "s3cret"},
			want: "login=alice/eu/ok/1\nsearch=kWh\ncount=1\ncount=2\ncount=3\ncount=4\nnote=hello\nack=1\n"},
		// a prompt, a confirm and a late alert after one click, then a
		// confirm to dismiss (the page reports each result)
		{input: "side/dialogs.side", want: "r=renamed:Q3-report\nr=delete:cancelled\n"},
		{input: "jsonflow/site_flow.json", args: map[string]any{"password": "s3cret", "user": "bob", "terms": []any{"x", "y"}, "shot_path": shot},
			want: "login=bob/us/ok/0\ncount=1\ncount=2\n"},
	}
	b := launch(t)
	defer func() {
		if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
			t.Errorf("the JSON flow's screenshot step wrote no %s: %v", shot, err)
		}
	}()
	for _, c := range cases {
		t.Run(c.input, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", c.input))
			if err != nil {
				t.Fatal(err)
			}
			flows, ds := importer.Import(c.input, src, importer.Options{})
			if ds.HasErrors() {
				t.Fatalf("import: %v", ds)
			}
			loaded := map[string]*lang.Flow{}
			for _, f := range flows {
				lf, lds := lang.Load(f.Name+".flow", format.Flow(f.File))
				if lds.HasErrors() {
					t.Fatalf("lang.Load %s: %v", f.Name, lds)
				}
				loaded[f.Name] = lf
			}
			name := c.flow
			if name == "" {
				name = flows[0].Name
			}
			args := map[string]any{"base_url": site.URL}
			for k, v := range c.args {
				args[k] = v
			}
			typed, err := loaded[name].CheckArgs(args)
			if err != nil {
				t.Fatalf("args: %v", err)
			}
			want := c.want
			if want == "" {
				w, err := os.ReadFile(filepath.Join("testdata/replay", strings.TrimSuffix(filepath.Base(c.input), ".json")+".events"))
				if err != nil {
					t.Fatal(err)
				}
				want = string(w)
			}
			takeEvents()
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			res, page := interp.Run(ctx, loaded[name], interp.Options{Args: typed, Browser: b,
				Flows: func(n string) (*lang.Flow, bool) { f, ok := loaded[n]; return f, ok }})
			defer closeTabs(b)
			_ = page
			if !res.Success {
				last := ""
				if n := len(res.Results); n > 0 {
					last = fmt.Sprintf("%+v", *res.Results[n-1])
				}
				t.Fatalf("run failed: %+v\nlast step: %s\nevents: %v\n%s", *res.Error, last, takeEvents(), format.Flow(loaded[name].File))
			}
			time.Sleep(300 * time.Millisecond) // the last page's report
			got := strings.Join(takeEvents(), "\n") + "\n"
			if want = sortedLines(want); got != want {
				t.Errorf("pages reported\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func closeTabs(b drivers.Browser) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pages, _ := b.Pages(ctx)
	for _, p := range pages {
		p.Close()
	}
}
