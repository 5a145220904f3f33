package interp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/fake"
	"github.com/rpa-dev/rpa/lang"
)

// hookTrace runs src with a StepHook that writes one line per call:
// "PHASE LINE KIND [ACTION ARGS] [depth N] [err ...]".
func hookTrace(t *testing.T, src string, args map[string]any, flows map[string]string) ([]string, *Result, *fake.Browser) {
	t.Helper()
	f := load(t, src)
	br := fake.New()
	page := br.AddPage("http://x")
	stdPage(page)
	page.Add("#pw", &fake.Element{})
	var trace []string
	o := Options{Browser: br, Page: page, Args: argsOf(t, f, args)}
	if flows != nil {
		o.Flows = func(name string) (*lang.Flow, bool) {
			src, ok := flows[name]
			if !ok {
				return nil, false
			}
			fl, ds := lang.Load(name+".flow", []byte(src))
			return fl, fl != nil && len(ds) == 0
		}
	}
	o.StepHook = func(ctx context.Context, st *Step) error {
		line := fmt.Sprintf("%s %d %s", st.Phase, st.Line, st.Kind)
		if st.Action != "" {
			line += " " + st.Action
		}
		if st.Args != nil {
			line += " " + jsonOf(st.Args)
		}
		if st.Depth > 0 {
			line += fmt.Sprintf(" depth %d %s", st.Depth, st.Flow)
		}
		if st.Err != "" {
			line += " err " + st.Err
		}
		trace = append(trace, line)
		return nil
	}
	res, _ := Run(context.Background(), f, o)
	return trace, res, br
}

func TestStepHookOrder(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		args  map[string]any
		flows map[string]string
		want  []string
	}{{
		name: "straight, secret masked in args",
		src:  "flow t\nparam pw: secret\nclick \"#a\"\nfill \"#pw\" pw\nx = upper(pw)\nlog \"{{ x }}!\"\n",
		args: map[string]any{"pw": "hunter2"},
		want: []string{
			`before 3 action click ["#a"]`, `after 3 action click`,
			`before 4 action fill ["#pw","***"]`, `after 4 action fill`,
			`before 5 assign`, `after 5 assign`,
			`before 6 log`, `after 6 log`,
		},
	}, {
		name: "loop and branch nest their bodies",
		src:  "flow t\nfor i in [1, 2] {\n    if i == 2 {\n        click \"#b\"\n    }\n}\n",
		want: []string{
			`before 2 for`,
			`before 3 if`, `after 3 if`,
			`before 3 if`, `before 4 action click ["#b"]`, `after 4 action click`, `after 3 if`,
			`after 2 for`,
		},
	}, {
		name:  "call: the called flow's steps one deeper",
		src:   "flow t\ncall sub with: {\"n\": 1}\n",
		flows: map[string]string{"sub": "flow sub\nparam n: int\ny = n + 1\nreturn y\n"},
		want: []string{
			`before 2 action call ["sub"]`,
			`before 3 assign depth 1 sub`, `after 3 assign depth 1 sub`,
			`before 4 return depth 1 sub`, `after 4 return depth 1 sub`,
			`after 2 action call`,
		},
	}, {
		name: "failed step: after has the error, masked",
		src:  "flow t\nparam pw: secret\ntry {\n    fail \"bad {{ pw }}\"\n} catch e {\n    log \"caught\"\n}\n",
		args: map[string]any{"pw": "hunter2"},
		want: []string{
			`before 3 try`, `before 4 fail`, `after 4 fail err bad ***`,
			`before 6 log`, `after 6 log`, `after 3 try`,
		},
	}, {
		name: "an action whose argument fails: before without args, then after",
		src:  "flow t\nxs = [1]\nclick xs[5]\n",
		want: []string{`before 2 assign`, `after 2 assign`, `before 3 action click`, `after 3 action click err `},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trace, _, _ := hookTrace(t, tt.src, tt.args, tt.flows)
			for i := range trace {
				// error texts are the interpreter's; only their start is pinned
				if j := strings.Index(trace[i], " err "); j > 0 && i < len(tt.want) && strings.HasPrefix(trace[i], tt.want[i]) {
					trace[i] = tt.want[i]
				}
			}
			if strings.Join(trace, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("trace:\n%s\nwant:\n%s", strings.Join(trace, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestStepHookScopes reads the variables at a step: the params scope (a
// secret as ***), the flow's names, a loop variable in its body's scope,
// a value derived from the secret masked too, a table in column order.
func TestStepHookScopes(t *testing.T) {
	f := load(t, "flow t\nparam pw: secret\nparam who: string = \"ann\"\nk = lower(pw)\nrows = table \"#t2\"\nfor i in [7] {\n    log \"{{ i }}\"\n}\n")
	br := fake.New()
	page := br.AddPage("http://x")
	page.Add("#t2", &fake.Element{Grid: &drivers.Grid{ // the page's order is not the alphabet's
		Head: [][]drivers.Cell{{{Text: "kWh", Header: true}, {Text: "Date", Header: true}}},
		Body: [][]drivers.Cell{{{Text: "10"}, {Text: "d1"}}, {{Text: "20"}, {Text: "d2"}}},
	}})
	var got []ScopeVars
	o := Options{Browser: br, Page: page, Args: argsOf(t, f, map[string]any{"pw": "Hunter2"})}
	o.StepHook = func(ctx context.Context, st *Step) error {
		if st.Phase == StepBefore && st.Kind == "log" {
			got = st.Scopes()
		}
		return nil
	}
	res, _ := Run(context.Background(), f, o)
	if !res.Success {
		t.Fatal(jsonOf(res.Error))
	}
	want := `[{"Kind":"block","Flow":"t","Vars":[{"Name":"i","Value":7},{"Name":"loop","Value":{"first":true,"index":0,"last":true}}]},` +
		`{"Kind":"flow","Flow":"t","Vars":[{"Name":"k","Value":"***"},{"Name":"rows","Value":[{"kWh":"10","Date":"d1"},{"kWh":"20","Date":"d2"}]}]},` +
		`{"Kind":"params","Flow":"t","Vars":[{"Name":"pw","Value":"***"},{"Name":"who","Value":"ann"}]}]`
	if g := jsonOf(got); g != want {
		t.Errorf("scopes:\n%s\nwant:\n%s", g, want)
	}
	if strings.Contains(jsonOf(got), "unter") {
		t.Error("the secret reached the scopes")
	}
}

// TestStepHookBlocks: a hook that blocks holds the run before the action
// touches the page; the run goes on when it returns.
func TestStepHookBlocks(t *testing.T) {
	f := load(t, "flow t\nclick \"#a\"\nclick \"#b\"\n")
	br := fake.New()
	page := br.AddPage("http://x")
	stdPage(page)
	paused := make(chan *Step)
	goOn := make(chan struct{})
	o := Options{Browser: br, Page: page, Args: argsOf(t, f, nil)}
	o.StepHook = func(ctx context.Context, st *Step) error {
		if st.Phase == StepBefore && st.Line == 3 {
			paused <- st
			<-goOn
		}
		return nil
	}
	done := make(chan *Result, 1)
	go func() { res, _ := Run(context.Background(), f, o); done <- res }()
	select {
	case <-paused:
	case <-time.After(30 * time.Second): // only catches a hang
		t.Fatal("the hook was never called before line 3")
	}
	log := strings.Join(br.Log(), "\n")
	if !strings.Contains(log, "click #a") || strings.Contains(log, "click #b") {
		t.Fatalf("while paused before line 3, the browser's log is:\n%s", log)
	}
	close(goOn)
	res := <-done
	if !res.Success || !strings.Contains(strings.Join(br.Log(), "\n"), "click #b") {
		t.Fatalf("after the hook returned: success %v, log %v", res.Success, br.Log())
	}
}

// TestStepHookStops: the hook's error ends the run at its statement (kind
// cancelled; try does not catch it); a cancel while it blocks too.
func TestStepHookStops(t *testing.T) {
	f := load(t, "flow t\ntry {\n    click \"#a\"\n    click \"#b\"\n} catch e {\n    log \"caught\"\n}\n")
	t.Run("error", func(t *testing.T) {
		br := fake.New()
		page := br.AddPage("http://x")
		stdPage(page)
		o := Options{Browser: br, Page: page, Args: argsOf(t, f, nil)}
		o.StepHook = func(ctx context.Context, st *Step) error {
			if st.Line == 4 {
				return errors.New("stopped by the debugger")
			}
			return nil
		}
		res, _ := Run(context.Background(), f, o)
		if res.Success || res.Error.Kind != core.KindCancelled || res.Error.Line != 4 || res.Error.Message != "stopped by the debugger" {
			t.Fatalf("error %s", jsonOf(res.Error))
		}
		if log := strings.Join(br.Log(), "\n"); strings.Contains(log, "click #b") || strings.Contains(strings.Join(res.Log, "\n"), "caught") {
			t.Fatalf("ran past the stop: %s / %v", log, res.Log)
		}
	})
	t.Run("cancel while blocked", func(t *testing.T) {
		br := fake.New()
		page := br.AddPage("http://x")
		stdPage(page)
		ctx, cancel := context.WithCancel(context.Background())
		o := Options{Browser: br, Page: page, Args: argsOf(t, f, nil)}
		o.StepHook = func(hctx context.Context, st *Step) error {
			if st.Line == 4 {
				cancel()
				<-hctx.Done()
				return hctx.Err()
			}
			return nil
		}
		res, _ := Run(ctx, f, o)
		if res.Success || res.Error.Kind != core.KindCancelled || res.Error.Line != 4 {
			t.Fatalf("error %s", jsonOf(res.Error))
		}
	})
}

// TestStepHookPicture: Picture is nil before a tab exists and the
// driver's picture after.
func TestStepHookPicture(t *testing.T) {
	f := load(t, "flow t\nlog \"x\"\nopen \"http://x/\"\nlog \"y\"\n")
	br := fake.New()
	var pics []int
	o := Options{Browser: br, Args: argsOf(t, f, nil)}
	o.StepHook = func(ctx context.Context, st *Step) error {
		if st.Phase == StepBefore && st.Kind == "log" {
			png, err := st.Picture(ctx)
			if err != nil {
				return err
			}
			pics = append(pics, len(png))
		}
		return nil
	}
	res, _ := Run(context.Background(), f, o)
	if !res.Success {
		t.Fatal(jsonOf(res.Error))
	}
	if len(pics) != 2 || pics[0] != 0 || pics[1] == 0 {
		t.Fatalf("picture sizes %v, want [0 >0]", pics)
	}
}

// BenchmarkInterpOverheadHooked is BenchmarkInterpOverhead with a StepHook
// that returns at once: what the hook costs when set (unset, the
// interpreter only tests it for nil).
func BenchmarkInterpOverheadHooked(b *testing.B) {
	benchOverhead(b, func(context.Context, *Step) error { return nil })
}
