package heal_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers/selectorgen"
	"github.com/rpa-dev/rpa/internal/demoapp"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/heal"
	"github.com/rpa-dev/rpa/internal/runs/record"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/stdlib"
)

// demoFlow is flows/query_power_data.flow with a shorter wait and no
// retries (a selector of v1 is waited for before healing; 10s and two
// retries per renamed element would only slow the test down). It returns
// the source and the flow loaded from it.
func demoFlow(t *testing.T) ([]byte, *lang.Flow) {
	t.Helper()
	src, err := os.ReadFile("../../../flows/query_power_data.flow")
	if err != nil {
		t.Fatal(err)
	}
	const old = "defaults wait: 10s retries: 2 every: 1s timeout: 30s"
	if !strings.Contains(string(src), old) {
		t.Fatalf("query_power_data.flow has no line %q: update the test", old)
	}
	src = []byte(strings.Replace(string(src), old, "defaults wait: 3s retries: 0 timeout: 60s", 1))
	path := filepath.Join(t.TempDir(), "query_power_data.flow")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return src, loadFlow(t, path)
}

// recordDemo runs f on the demo app at base under the run recorder (as
// rpa run does) with a heal hook of mode, and returns the result and what
// the recorder finished with.
func recordDemo(t *testing.T, st *runs.Store, f *lang.Flow, base string, mode heal.Mode) (*interp.Result, record.Finished) {
	t.Helper()
	args, err := f.CheckArgs(map[string]any{"username": demoapp.DemoUsername, "password": demoapp.DemoPassword,
		"region": "110000", "base_url": base})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := record.Start(record.Options{Store: st, Flow: f, Args: args, Caller: runs.Caller{Kind: runs.CallerCLI}})
	if err != nil {
		t.Fatal(err)
	}
	var h *heal.Hook
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	rctx := ctx
	if mode != heal.Off {
		h = heal.New(mode, st, rec.ID())
		rctx = stdlib.WithLocateHook(ctx, h)
	}
	res, page := interp.Run(rctx, f, interp.Options{Args: args, Browser: browser, Host: core.Host{}, Events: rec.Hook(nil)})
	if h != nil {
		if err := h.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	fin := rec.Finish(ctx, res, page)
	if page != nil {
		_ = page.Close()
	}
	return res, *fin
}

// demoRows checks a run's outputs: the rows of region 110000's first page
// as the demo app serves them.
func demoRows(t *testing.T, what string, res *interp.Result) {
	t.Helper()
	if !res.Success {
		t.Fatalf("%s: failed: %+v%s", what, res.Error, stepsOf(res))
	}
	out, _ := res.Outputs.(map[string]any)
	rows, _ := out["rows"].([]any)
	want := demoapp.Records("110000")
	want = want[:min(len(want), 50)]
	if len(rows) != len(want) || len(rows) == 0 {
		t.Fatalf("%s: %d rows, want %d", what, len(rows), len(want))
	}
	f, _ := rows[0].(interp.Row) // a table's rows keep the page's column order
	l, _ := rows[len(rows)-1].(interp.Row)
	first, last := f.Values, l.Values
	if first["date"] != want[0].Date || last["date"] != want[len(want)-1].Date || first["kWh"] != want[0].KWh {
		t.Errorf("%s: rows %v … %v, want dates %s … %s", what, first, last, want[0].Date, want[len(want)-1].Date)
	}
}

// healedLines returns the lines of res's steps marked healed.
func healedLines(res *interp.Result) map[int]bool {
	m := map[int]bool{}
	for _, s := range res.Results {
		if s.Heal != nil && s.Heal.Status == "healed" {
			m[s.Line] = true
		}
	}
	return m
}

// TestDemoNextVersion: the reference flow, run on the demo app (marks),
// then in auto on its next version (demoapp.V2: ids renamed, login form
// rewrapped, Query button reworded, table moved) returns the right rows,
// and the result and report say which steps healed; the patch of its
// marks (heal.Propose/Apply, as `rpa heal --write`) runs on V2 with
// healing off and nothing to heal.
func TestDemoNextVersion(t *testing.T) {
	needBrowser(t)
	v1 := httptest.NewServer(demoapp.New(demoapp.Options{Delay: 20 * time.Millisecond}))
	defer v1.Close()
	v2 := httptest.NewServer(demoapp.New(demoapp.Options{Delay: 20 * time.Millisecond, Version: demoapp.V2}))
	defer v2.Close()
	src, f := demoFlow(t)
	st := openStore(t)

	res, _ := recordDemo(t, st, f, v1.URL, heal.Auto)
	demoRows(t, "v1", res)
	if n := len(healedLines(res)); n != 0 {
		t.Fatalf("v1 run healed %d steps", n)
	}

	// The flow as written fails on v2 without healing.
	if res, _ := recordDemo(t, openStore(t), f, v2.URL, heal.Off); res.Success {
		t.Fatalf("v2 with heal off succeeded: the next version breaks no selector")
	}

	// In suggest the run fails at the first renamed field; the packet
	// carries the candidate and the patch for that line.
	res, fin := recordDemo(t, st, f, v2.URL, heal.Suggest)
	if res.Success || fin.Packet == nil || fin.Packet.HealPatch == nil {
		t.Fatalf("v2 suggest: success %v packet %+v", res.Success, fin.Packet)
	}
	hp := fin.Packet.HealPatch
	if hp.Line != 13 || hp.Kind != "suggested" || len(hp.New) == 0 || hp.New[0] != "#login-user" ||
		!slices.Contains(hp.New, "#username") || !strings.Contains(hp.Diff, "-fill \"#username\" username") ||
		!strings.Contains(hp.Diff, "+fill [\"#login-user\"") {
		t.Errorf("packet heal_patch: %+v\n%s", hp.Proposal, hp.Diff)
	}
	for i := 1; i < len(hp.New); i++ { // positional selectors last, the old ones kept before them
		if selectorgen.Positional(hp.New[i-1]) && !selectorgen.Positional(hp.New[i]) {
			t.Errorf("positional %q before %q", hp.New[i-1], hp.New[i])
		}
	}

	res, fin = recordDemo(t, st, f, v2.URL, heal.Auto)
	demoRows(t, "v2 auto", res)
	// Lines of the flow whose selectors v2 breaks: fill #username (13),
	// fill #password (14), select #region (17), click text=Query (18),
	// table #data-table (19).
	want := []int{13, 14, 17, 18, 19}
	got := healedLines(res)
	for _, l := range want {
		if !got[l] {
			t.Errorf("line %d not healed%s", l, stepsOf(res))
		}
	}
	if len(got) != len(want) {
		t.Errorf("healed lines %v, want %v", got, want)
	}
	logged := strings.Join(res.Log, "\n")
	html, err := os.ReadFile(fin.Report)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"line 13: fill healed", "line 18: click healed", "line 19: table healed"} {
		if !strings.Contains(logged, s) {
			t.Errorf("result log lacks %q:\n%s", s, logged)
		}
		if !strings.Contains(string(html), s) {
			t.Errorf("report lacks %q", s)
		}
	}
	if strings.Contains(logged, demoapp.DemoPassword) || strings.Contains(string(html), demoapp.DemoPassword) {
		t.Errorf("the password reached the log or the report")
	}

	// rpa heal --write: propose from the store's marks, apply, run on v2
	// with healing off.
	file, ds := lang.Parse("query_power_data.flow", src)
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	marks, err := st.Marks(file.Name, 0)
	if err != nil {
		t.Fatal(err)
	}
	props := heal.Propose(file, marks, 0)
	out, err := heal.Apply("query_power_data.flow", src, file, props)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("patch:\n%s", heal.Diff("query_power_data.flow", src, out))
	patched, ds := lang.Load("query_power_data.flow", out)
	if ds.HasErrors() {
		t.Fatalf("patched flow: %v\n%s", ds, out)
	}
	res, _ = recordDemo(t, openStore(t), patched, v2.URL, heal.Off)
	demoRows(t, "patched on v2", res)
	if n := len(healedLines(res)); n != 0 {
		t.Errorf("patched flow healed %d steps", n)
	}
	// and it still runs on v1 (the old selectors are kept after the new)
	res, _ = recordDemo(t, openStore(t), patched, v1.URL, heal.Off)
	demoRows(t, "patched on v1", res)
}
