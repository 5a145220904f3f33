package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/flows"
	"github.com/rpa-dev/rpa/internal/demoapp"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

const region = "110000"

// env is one demo app and one shared Chromium that both rpa's driver and
// plain go-rod are attached to.
type env struct {
	base   string
	ws     string
	rpaBr  drivers.Browser
	rodBr  *rod.Browser
	flow   *lang.Flow
	close  func()
	wantN  int
	want0  demoapp.Record
	tmpDir string

	// warm profiles that keep their tab: one for the one-flow figure, four
	// (each its own profile = browser context on the shared browser) for
	// the parallel one; the floor's counterparts
	tab       *rpaSlot
	par       []*rpaSlot
	floorTab  *floorSlot
	floorPar  []*floorSlot
	parallelN int
}

// chromium starts Chromium with exactly the command line rpa's driver uses
// (rodd.Args) and returns its DevTools URL and a kill func.
func chromium(tb testing.TB, dir string) (string, func()) {
	tb.Helper()
	bin, err := rodd.FindBrowser("")
	if err != nil {
		tb.Skip(err)
	}
	args, err := rodd.Args(drivers.LaunchOptions{UserDataDir: dir})
	if err != nil {
		tb.Fatal(err)
	}
	// The shared browser is reached over a DevTools port of its own (rpa's
	// launches use a pipe and no port).
	cmd := exec.Command(bin, append(args, "--remote-debugging-port=0")...)
	ownGroup(cmd)
	parser := launcher.NewURLParser()
	cmd.Stderr = parser
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	kill := func() {
		killGroup(cmd)
		_ = cmd.Wait()
	}
	select {
	case u := <-parser.URL:
		ws, err := launcher.ResolveURL(u)
		if err != nil {
			kill()
			tb.Fatal(err)
		}
		return ws, kill
	case <-time.After(30 * time.Second):
		kill()
		tb.Fatal("chromium did not report its DevTools URL")
	}
	return "", nil
}

func loadFlow(tb testing.TB) *lang.Flow {
	tb.Helper()
	src, err := fs.ReadFile(flows.FS, "query_power_data.flow")
	if err != nil {
		tb.Fatal(err)
	}
	f, ds := lang.Load("query_power_data.flow", src)
	if ds.HasErrors() {
		tb.Fatal(ds)
	}
	return f
}

func setup(tb testing.TB) *env {
	tb.Helper()
	srv, err := demoapp.Start(demoapp.Options{}) // the documented 150 ms delay
	if err != nil {
		tb.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "rpa-bench-")
	if err != nil {
		tb.Fatal(err)
	}
	ws, kill := chromium(tb, filepath.Join(dir, "shared"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rpaBr, err := rodd.New().Launch(ctx, drivers.LaunchOptions{Remote: ws})
	if err != nil {
		kill()
		tb.Fatal(err)
	}
	rodBr := rod.New().ControlURL(ws)
	if err := rodBr.Connect(); err != nil {
		kill()
		tb.Fatal(err)
	}
	recs := demoapp.Records(region)
	e := &env{base: srv.URL, ws: ws, rpaBr: rpaBr, rodBr: rodBr, flow: loadFlow(tb),
		wantN: min(50, len(recs)), want0: recs[0], tmpDir: dir}
	e.parallelN = 4
	e.tab = &rpaSlot{br: rpaBr}
	for i := 0; i < e.parallelN; i++ {
		b, err := rodd.New().Launch(ctx, drivers.LaunchOptions{Remote: ws})
		if err != nil {
			kill()
			tb.Fatal(err)
		}
		e.par = append(e.par, &rpaSlot{br: b})
	}
	e.floorTab = newFloorSlot(tb, rodBr, true)
	for i := 0; i < e.parallelN; i++ {
		e.floorPar = append(e.floorPar, newFloorSlot(tb, rodBr, true))
	}
	e.close = func() {
		for _, s := range e.par {
			_ = s.br.Close()
		}
		_ = rpaBr.Close()
		_ = rodBr.Close()
		kill()
		_ = srv.Close()
		_ = os.RemoveAll(dir)
	}
	return e
}

// check fails unless rows are the first page of the region.
func (e *env) check(tb testing.TB, rows []map[string]any) {
	tb.Helper()
	if err := e.checkErr(rows); err != nil {
		tb.Fatal(err)
	}
}

func (e *env) checkErr(rows []map[string]any) error {
	if len(rows) != e.wantN {
		return fmt.Errorf("got %d rows, want %d", len(rows), e.wantN)
	}
	if rows[0]["date"] != e.want0.Date || rows[0]["kWh"] != e.want0.KWh {
		return fmt.Errorf("first row %v, want %+v", rows[0], e.want0)
	}
	return nil
}

// ---- rpa: the interpreter running the flow ----

// stepMs, when not nil, accumulates the time of each action of the
// interpreter runs by "N-action" (benchmarks report it per flow).
var (
	stepMs map[string]float64
	stepMu sync.Mutex
)

func runInterp(tb testing.TB, e *env, br drivers.Browser) {
	tb.Helper()
	page, err := interpFlow(e, br, nil)
	if page != nil {
		defer page.Close()
	}
	if err != nil {
		tb.Fatal(err)
	}
}

// interpFlow runs the flow on br, starting in page when not nil (a warm
// profile's tab, as the MCP server keeps it between calls), and returns
// the tab it ended on.
func interpFlow(e *env, br drivers.Browser, page drivers.Page) (drivers.Page, error) {
	args, err := e.flow.ParseArgs(map[string]string{"username": demoapp.DemoUsername,
		"password": demoapp.DemoPassword, "region": region, "base_url": e.base})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, page := interp.Run(ctx, e.flow, interp.Options{Args: args, Browser: br, Page: page})
	if !res.Success {
		return page, fmt.Errorf("flow failed: %+v", res.Error)
	}
	if stepMs != nil {
		stepMu.Lock()
		for _, r := range res.Results {
			stepMs[fmt.Sprintf("%d-%s", r.Index, r.Action)] += float64(r.DurationMs)
		}
		stepMu.Unlock()
	}
	out, _ := res.Outputs.(map[string]any)
	list, _ := out["rows"].([]any)
	rows := make([]map[string]any, len(list))
	for i, r := range list {
		if row, ok := r.(interp.Row); ok { // a table's row, in the page's column order
			rows[i] = row.Values
		} else {
			rows[i], _ = r.(map[string]any)
		}
	}
	return page, e.checkErr(rows)
}

// rpaSlot is one warm profile: its browser and the tab it keeps.
type rpaSlot struct {
	br   drivers.Browser
	page drivers.Page
}

func (s *rpaSlot) run(e *env) error {
	p, err := interpFlow(e, s.br, s.page)
	s.page = p
	return err
}

// ---- go-rod by hand, with its defaults ----

// tableJS reads a table's body rows keyed by the header texts (what a
// careful rod user writes instead of one round trip per cell).
const tableJS = `function () {
  const keys = [...this.querySelectorAll("thead th")].map((th) => th.innerText.trim());
  return [...this.querySelectorAll("tbody tr")].map((tr) => {
    const o = {};
    [...tr.cells].forEach((td, i) => { o[keys[i]] = td.innerText.trim(); });
    return o;
  });
}`

func runRod(tb testing.TB, e *env, br *rod.Browser) {
	tb.Helper()
	page := br.Timeout(60 * time.Second).MustPage(e.base + "/login")
	defer page.MustClose()
	page.MustElement("#username").MustInput(demoapp.DemoUsername)
	page.MustElement("#password").MustInput(demoapp.DemoPassword)
	wait := page.MustWaitNavigation()
	page.MustElement("#submit").MustClick()
	wait()
	if err := page.MustElement("#region").Select([]string{`[value="` + region + `"]`}, true, rod.SelectorTypeCSSSector); err != nil {
		tb.Fatal(err)
	}
	page.MustElementR("button", "Query").MustClick()
	var rows []map[string]any
	if err := page.MustElement("#data-table").MustEval(tableJS).Unmarshal(&rows); err != nil {
		tb.Fatal(err)
	}
	e.check(tb, rows)
}

// ---- the floor: raw DevTools calls, event-driven, page work fused ----

const loginJS = `(user, pass) => {
  const set = (sel, v) => {
    const el = document.querySelector(sel);
    el.focus();
    el.value = v;
    el.dispatchEvent(new Event("input", { bubbles: true }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
  };
  set("#username", user);
  set("#password", pass);
  document.querySelector("#submit").click();
}`

const queryJS = `(region) => new Promise((resolve) => {
  const sel = document.querySelector("#region");
  sel.value = region;
  sel.dispatchEvent(new Event("change", { bubbles: true }));
  const read = () => {
    const t = document.querySelector("#data-table");
    if (!t) return false;
    const keys = [...t.querySelectorAll("thead th")].map((th) => th.innerText.trim());
    resolve([...t.querySelectorAll("tbody tr")].map((tr) => {
      const o = {};
      [...tr.cells].forEach((td, i) => { o[keys[i]] = td.innerText.trim(); });
      return o;
    }));
    return true;
  };
  const mo = new MutationObserver(() => { if (read()) mo.disconnect(); });
  mo.observe(document.body, { childList: true, subtree: true });
  document.querySelector("#query-btn").click();
})`

func runFloor(tb testing.TB, e *env, br *rod.Browser) {
	tb.Helper()
	br = br.Timeout(60 * time.Second)
	page, err := br.Page(proto.TargetCreateTarget{URL: "about:blank"})
	if err != nil {
		tb.Fatal(err)
	}
	defer page.MustClose()
	if err := floorFlow(e, page); err != nil {
		tb.Fatal(err)
	}
}

// floorFlow is the floor's flow on page (a tab of its own, new or kept).
func floorFlow(e *env, page *rod.Page) error {
	page = page.Timeout(60 * time.Second)
	// Wait on lifecycle events by loader id, so a late event of the
	// previous document is never taken for the next one.
	if err := (proto.PageSetLifecycleEventsEnabled{Enabled: true}).Call(page); err != nil {
		return err
	}
	dcl := func(match func(proto.NetworkLoaderID) bool) func() {
		return page.EachEvent(func(ev *proto.PageLifecycleEvent) bool {
			return ev.Name == proto.PageLifecycleEventNameDOMContentLoaded && match(ev.LoaderID)
		})
	}
	var login proto.NetworkLoaderID
	var mu sync.Mutex
	loaded := dcl(func(id proto.NetworkLoaderID) bool { mu.Lock(); defer mu.Unlock(); return id == login })
	nav, err := (proto.PageNavigate{URL: e.base + "/login"}).Call(page)
	if err != nil {
		return err
	}
	mu.Lock()
	login = nav.LoaderID
	mu.Unlock()
	loaded()
	loaded = dcl(func(id proto.NetworkLoaderID) bool { return id != login })
	if _, err := page.Evaluate(rod.Eval(loginJS, demoapp.DemoUsername, demoapp.DemoPassword).ByUser()); err != nil {
		return err
	}
	loaded()
	res, err := page.Evaluate(rod.Eval(queryJS, region).ByPromise())
	if err != nil {
		return err
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(res.Value.JSON("", "")), &rows); err != nil {
		return err
	}
	return e.checkErr(rows)
}

// floorSlot is the floor's warm profile: a browser context and a tab of
// its own, kept between flows.
type floorSlot struct{ page *rod.Page }

func newFloorSlot(tb testing.TB, br *rod.Browser, ownContext bool) *floorSlot {
	tb.Helper()
	req := proto.TargetCreateTarget{URL: "about:blank"}
	if ownContext {
		c, err := proto.TargetCreateBrowserContext{DisposeOnDetach: true}.Call(br)
		if err != nil {
			tb.Fatal(err)
		}
		req.BrowserContextID = c.BrowserContextID
		req.NewWindow = true
	}
	page, err := br.Page(req)
	if err != nil {
		tb.Fatal(err)
	}
	return &floorSlot{page: page}
}

// ---- four flows on four profiles at once, one browser ----

// parallel runs fn for each slot at once and returns the first error.
func parallel(n int, fn func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = fn(i) }()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// ---- step by step: one DevTools round trip per step, event-driven ----

// stepJS wraps a step: wait (MutationObserver) for sel, then act on it.
func stepJS(act string) string {
	return `(sel, arg) => new Promise((resolve, reject) => {
  const act = ` + act + `;
  const el = document.querySelector(sel);
  if (el) return resolve(act(el, arg));
  const mo = new MutationObserver(() => {
    const el = document.querySelector(sel);
    if (el) { mo.disconnect(); resolve(act(el, arg)); }
  });
  mo.observe(document, { childList: true, subtree: true, attributes: true });
  setTimeout(() => { mo.disconnect(); reject(new Error("timeout " + sel)); }, 10000);
})`
}

var (
	fillStep = stepJS(`(el, v) => { el.focus(); el.value = v;
    el.dispatchEvent(new Event("input", { bubbles: true }));
    el.dispatchEvent(new Event("change", { bubbles: true })); }`)
	clickStep = stepJS(`(el) => { el.click(); }`)
	// centreStep answers [x, y], the centre of the element's box (CSS px)
	centreStep = stepJS(`(el) => { const r = el.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }`)
	tableStep  = stepJS(`(t) => {
    const keys = [...t.querySelectorAll("thead th")].map((th) => th.innerText.trim());
    return [...t.querySelectorAll("tbody tr")].map((tr) => {
      const o = {};
      [...tr.cells].forEach((td, i) => { o[keys[i]] = td.innerText.trim(); });
      return o;
    }); }`)
)

func runSteps(tb testing.TB, e *env, br *rod.Browser) {
	tb.Helper()
	br = br.Timeout(60 * time.Second)
	page, err := br.Page(proto.TargetCreateTarget{URL: "about:blank"})
	if err != nil {
		tb.Fatal(err)
	}
	defer page.MustClose()
	if err := (proto.PageSetLifecycleEventsEnabled{Enabled: true}).Call(page); err != nil {
		tb.Fatal(err)
	}
	dcl := func(match func(proto.NetworkLoaderID) bool) func() {
		return page.EachEvent(func(ev *proto.PageLifecycleEvent) bool {
			return ev.Name == proto.PageLifecycleEventNameDOMContentLoaded && match(ev.LoaderID)
		})
	}
	step := func(js, sel string, arg any) *proto.RuntimeRemoteObject {
		res, err := page.Evaluate(rod.Eval(js, sel, arg).ByPromise())
		if err != nil {
			tb.Fatalf("%s: %v", sel, err)
		}
		return res
	}
	var login proto.NetworkLoaderID
	loaded := dcl(func(id proto.NetworkLoaderID) bool { return id == login })
	nav, err := (proto.PageNavigate{URL: e.base + "/login"}).Call(page)
	if err != nil {
		tb.Fatal(err)
	}
	login = nav.LoaderID
	loaded()
	step(fillStep, "#username", demoapp.DemoUsername)
	step(fillStep, "#password", demoapp.DemoPassword)
	loaded = dcl(func(id proto.NetworkLoaderID) bool { return id != login })
	step(clickStep, "#submit", nil)
	loaded()
	step(fillStep, "#region", region) // a select takes .value and change like an input
	step(clickStep, "#query-btn:not([disabled])", nil)
	res := step(tableStep, "#data-table", nil)
	var rows []map[string]any
	if err := json.Unmarshal([]byte(res.Value.JSON("", "")), &rows); err != nil {
		tb.Fatal(err)
	}
	e.check(tb, rows)
}

// ---- cold: a browser launch per flow ----

func coldInterp(tb testing.TB, e *env, i int) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	br, err := rodd.New().Launch(ctx, drivers.LaunchOptions{UserDataDir: filepath.Join(e.tmpDir, fmt.Sprintf("cold-rpa-%d", i))})
	if err != nil {
		tb.Fatal(err)
	}
	defer br.Close()
	runInterp(tb, e, br)
}

func coldRod(tb testing.TB, e *env, i int, run func(testing.TB, *env, *rod.Browser)) {
	tb.Helper()
	ws, kill := chromium(tb, filepath.Join(e.tmpDir, fmt.Sprintf("cold-rod-%d", i)))
	defer kill()
	br := rod.New().ControlURL(ws)
	if err := br.Connect(); err != nil {
		tb.Fatal(err)
	}
	defer br.Close()
	run(tb, e, br)
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

// variants are the benchmarked implementations: warm with a kept tab
// (tab/), four at once (par4/), warm with a new tab per flow (warm/), cold.
func variants(e *env) []struct {
	name string
	run  func(testing.TB, int)
} {
	return []struct {
		name string
		run  func(testing.TB, int)
	}{
		// one flow on a warm profile that keeps its tab (an MCP call)
		{"tab/rpa", func(tb testing.TB, _ int) { must(tb, e.tab.run(e)) }},
		{"tab/floor", func(tb testing.TB, _ int) { must(tb, floorFlow(e, e.floorTab.page)) }},
		// four flows on four profiles at once on the one attached browser
		{"par4/rpa", func(tb testing.TB, _ int) {
			must(tb, parallel(e.parallelN, func(i int) error { return e.par[i].run(e) }))
		}},
		{"par4/floor", func(tb testing.TB, _ int) {
			must(tb, parallel(e.parallelN, func(i int) error { return floorFlow(e, e.floorPar[i].page) }))
		}},
		// a new tab per flow
		{"warm/rpa", func(tb testing.TB, _ int) { runInterp(tb, e, e.rpaBr) }},
		{"warm/rod-defaults", func(tb testing.TB, _ int) { runRod(tb, e, e.rodBr) }},
		{"warm/steps", func(tb testing.TB, _ int) { runSteps(tb, e, e.rodBr) }},
		{"warm/floor", func(tb testing.TB, _ int) { runFloor(tb, e, e.rodBr) }},
		{"cold/rpa", func(tb testing.TB, i int) { coldInterp(tb, e, i) }},
		{"cold/rod-defaults", func(tb testing.TB, i int) { coldRod(tb, e, i, runRod) }},
		{"cold/steps", func(tb testing.TB, i int) { coldRod(tb, e, i, runSteps) }},
		{"cold/floor", func(tb testing.TB, i int) { coldRod(tb, e, i, runFloor) }},
	}
}

// BenchmarkDemoFlow runs the reference flow per variant; the first,
// untimed run of each variant warms the page cache and the server.
func BenchmarkDemoFlow(b *testing.B) {
	e := setup(b)
	defer e.close()
	for _, v := range variants(e) {
		b.Run(v.name, func(b *testing.B) {
			v.run(b, -1)
			stepMs = map[string]float64{}
			defer func() { stepMs = nil }()
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				v.run(b, i)
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/flow")
			// Per-action times of the interpreter (its own measure), e.g.
			// "1-open-ms"; with -v they show what each step costs.
			for k, ms := range stepMs {
				b.ReportMetric(ms/float64(b.N), k+"-ms")
			}
		})
	}
}

// TestVariants runs every variant once, so `go test ./...` proves the
// benchmarks still work (each checks the rows it read).
func TestVariants(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	e := setup(t)
	defer e.close()
	for _, v := range variants(e) {
		t.Run(v.name, func(t *testing.T) { v.run(t, 0) })
	}
}

// TestSpeedTable measures the variants interleaved (one run of each per
// round, so a load spike on a shared machine hits all of them alike) and
// logs median and minimum ms/flow with the ratio to the floor's median.
// It runs only when RPA_BENCH_ROUNDS is set:
//
//	RPA_BENCH_ROUNDS=15 go test ./bench -run TestSpeedTable -v
//
// RPA_BENCH_ONLY=tab,par4 limits it to those groups. The machine's load
// average is logged with the table: compare ratios within one run.
func TestSpeedTable(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv("RPA_BENCH_ROUNDS"))
	if rounds <= 0 {
		t.Skip("set RPA_BENCH_ROUNDS=N to measure")
	}
	e := setup(t)
	defer e.close()
	vs := variants(e)
	if only := os.Getenv("RPA_BENCH_ONLY"); only != "" {
		// a comma-separated list of groups (tab,par4,warm,cold)
		keep := vs[:0]
		for _, v := range vs {
			if strings.Contains(","+only+",", ","+v.name[:strings.Index(v.name, "/")]+",") {
				keep = append(keep, v)
			}
		}
		vs = keep
	}
	lb, _ := os.ReadFile("/proc/loadavg")
	loadBefore := strings.TrimSpace(string(lb))
	times := make([][]float64, len(vs))
	for _, v := range vs {
		v.run(t, -1) // warm the caches, untimed
	}
	for r := 0; r < rounds; r++ {
		for i, v := range vs {
			start := time.Now()
			v.run(t, r)
			times[i] = append(times[i], float64(time.Since(start).Microseconds())/1000)
		}
	}
	med := func(xs []float64) float64 {
		s := append([]float64(nil), xs...)
		sort.Float64s(s)
		return s[len(s)/2]
	}
	floor := map[string]float64{}
	for i, v := range vs {
		if strings.HasSuffix(v.name, "/floor") {
			floor[strings.TrimSuffix(v.name, "/floor")] = med(times[i])
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-20s %10s %10s %8s\n", "variant", "median ms", "min ms", "÷ floor")
	for i, v := range vs {
		s := append([]float64(nil), times[i]...)
		sort.Float64s(s)
		group := v.name[:strings.Index(v.name, "/")]
		fmt.Fprintf(&b, "%-20s %10.0f %10.0f %8.2f\n", v.name, med(s), s[0], med(s)/floor[group])
	}
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("%d rounds (load average before: %s, after: %s):%s", rounds, loadBefore, strings.TrimSpace(string(load)), b.String())
}
