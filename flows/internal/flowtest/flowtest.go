// Package flowtest runs a folder of example flows (flows/cases, flows/gallery) in headless
// Chromium against the pages its test serves: one browser for the test binary, every flow of
// the folder tested, outputs compared with each case's expected end state. For tests only.
package flowtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/format"
)

// The browser and the pages' server of the test binary, while Main runs its tests.
var (
	browser drivers.Browser
	baseURL string
)

// Main serves pages and launches one Chromium (its profile in a temporary folder named after
// name), runs the tests and returns their exit code, for TestMain: os.Exit(flowtest.Main(m, "cases", mux)).
func Main(m *testing.M, name string, pages http.Handler) int {
	srv := httptest.NewServer(pages)
	defer srv.Close()
	baseURL = srv.URL
	dir, err := os.MkdirTemp("", "rpa-"+name+"-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := rodd.New().Launch(ctx, drivers.LaunchOptions{UserDataDir: filepath.Join(dir, "profile")})
	if err != nil {
		fmt.Fprintln(os.Stderr, "launch:", err)
		return 1
	}
	browser = b
	code := m.Run()
	if err := b.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "close:", err)
	}
	return code
}

// Case is the test of one flow: its arguments besides base_url (the pages' URL), and the
// outputs it must end with (as decoded JSON: what `rpa run --json` and MCP clients see).
type Case struct {
	Flow     string
	Args     func(t *testing.T) map[string]any
	Want     map[string]any                         // outputs equal to these
	Contains map[string]string                      // string outputs that must contain the value
	Suffix   map[string]string                      // string outputs that must end with the value
	Steps    func(t *testing.T, res *interp.Result) // more checks of the run, if any
}

// Run runs each case's flow, loaded from the test's folder, as a subtest, and fails for a flow
// of the folder that has no case.
func Run(t *testing.T, cases []Case) {
	flows, ds := lang.LoadDir(".")
	if ds.HasErrors() {
		t.Fatalf("load: %v", ds)
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		seen[tc.Flow] = true
		t.Run(tc.Flow, func(t *testing.T) { run(t, flows, tc) })
	}
	for name := range flows {
		if !seen[name] {
			t.Errorf("flow %s has no test case", name)
		}
	}
}

func run(t *testing.T, flows map[string]*lang.Flow, tc Case) {
	f, ok := flows[tc.Flow]
	if !ok {
		t.Fatalf("no flow %s", tc.Flow)
	}
	raw := map[string]any{"base_url": baseURL}
	if tc.Args != nil {
		for k, v := range tc.Args(t) {
			raw[k] = v
		}
	}
	args, err := f.CheckArgs(raw)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, page := interp.Run(ctx, f, interp.Options{
		Args:    args,
		Browser: browser,
		Flows:   func(name string) (*lang.Flow, bool) { g, ok := flows[name]; return g, ok },
	})
	closeTabs(t, page)
	if !res.Success {
		t.Fatalf("flow failed: %+v\n%s", res.Error, steps(res))
	}
	got := outputs(t, res)
	for k, want := range tc.Want {
		if !reflect.DeepEqual(got[k], want) {
			t.Errorf("%s = %s, want %s", k, js(got[k]), js(want))
		}
	}
	for k, sub := range tc.Contains {
		if s, _ := got[k].(string); !strings.Contains(s, sub) {
			t.Errorf("%s = %q, want it to contain %q", k, s, sub)
		}
	}
	for k, suf := range tc.Suffix {
		if s, _ := got[k].(string); !strings.HasSuffix(s, suf) {
			t.Errorf("%s = %q, want it to end with %q", k, s, suf)
		}
	}
	if tc.Steps != nil {
		tc.Steps(t, res)
	}
}

// closeTabs closes every tab the run left open, so the next case starts clean.
func closeTabs(t *testing.T, last drivers.Page) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if last != nil {
		_ = last.Close()
	}
	pages, err := browser.Pages(ctx)
	if err != nil {
		t.Logf("pages: %v", err)
		return
	}
	for _, p := range pages {
		_ = p.Close()
	}
}

// outputs is the flow's return value as decoded JSON.
func outputs(t *testing.T, res *interp.Result) map[string]any {
	b, err := json.Marshal(res.Outputs)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("outputs %s: %v", b, err)
	}
	return m
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// steps lists a run's steps, one a line, for a failure's message.
func steps(res *interp.Result) string {
	var b strings.Builder
	for _, s := range res.Results {
		fmt.Fprintf(&b, "  %d line %d %s %s %dms %s\n", s.Index, s.Line, s.Action, s.Status, s.DurationMs, s.Error)
	}
	return b.String()
}

// Embedded checks that the flows embedded in fsys are the files of the test's folder, in
// canonical form, and that there are n of them (one per case).
func Embedded(t *testing.T, fsys fs.FS, n int) {
	names, err := fs.Glob(fsys, "*.flow")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != n {
		t.Errorf("embedded %d flows, the test has %d cases", len(names), n)
	}
	for _, name := range names {
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		disk, err := os.ReadFile(name)
		if err != nil || string(disk) != string(src) {
			t.Errorf("%s: embedded copy differs from the file (%v)", name, err)
		}
		f, ds := lang.Load(name, src)
		if ds.HasErrors() {
			t.Errorf("%s: %v", name, ds)
			continue
		}
		if got := format.Flow(f.File); string(got) != string(src) {
			t.Errorf("%s is not in canonical form (rpa fmt -w %s):\n%s", name, name, got)
		}
	}
}
