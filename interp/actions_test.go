package interp

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/fake"
	"github.com/rpa-dev/rpa/lang"
)

func mustRun(t *testing.T, f *lang.Flow, o Options) *Result {
	t.Helper()
	res := run(t, f, o)
	if !res.Success {
		t.Fatalf("failed: %+v", res.Error)
	}
	return res
}

func TestCheckUncheck(t *testing.T) {
	var cb *fake.Element
	b := newBrowser(func(p *fake.Page) { cb = p.Add("#cb", &fake.Element{Toggle: true}) })
	mustRun(t, load(t, "flow t\ncheck \"#cb\"\ncheck \"#cb\"\nuncheck \"#cb\"\nuncheck \"#cb\"\ncheck \"#cb\"\n"), Options{Browser: b})
	if cb.Clicks != 3 || !cb.IsChecked {
		t.Fatalf("clicks %d checked %v, want 3 true", cb.Clicks, cb.IsChecked)
	}
	// A checkbox that does not change on click fails with a clear message.
	b = newBrowser(func(p *fake.Page) { p.Add("#cb", &fake.Element{}) })
	res := run(t, load(t, "flow t\ncheck \"#cb\" retries: 0\n"), Options{Browser: b})
	if res.Success || !strings.Contains(res.Error.Message, "still unchecked") {
		t.Fatalf("%+v", res.Error)
	}
}

func TestTabsAndClose(t *testing.T) {
	b := newBrowser(func(p *fake.Page) {
		p.Add("#open", &fake.Element{OnClick: func(p *fake.Page) error {
			go func() {
				time.Sleep(30 * time.Millisecond)
				p.OpenPopup("http://x/popup").Add("#h", &fake.Element{Txt: "popup!"})
			}()
			return nil
		}})
		p.Add("#h", &fake.Element{Txt: "main"})
	})
	src := `flow t
open "http://x/main"
click "#open"
tab "last"
a = text "#h"
u = url
close
b = text "#h"
tab 0
c = url
tab "main"
d = url
return [a, u, b, c, d]
`
	res := mustRun(t, load(t, src), Options{Browser: b})
	if got := jsonOf(res.Outputs); got != `["popup!","http://x/popup","main","http://x/main","http://x/main"]` {
		t.Fatalf("outputs %s", got)
	}
	// tab "last" without a popup fails within wait.
	res = run(t, load(t, "flow t\nopen \"http://x\"\ntab \"last\" wait: 30ms retries: 0\n"), Options{Browser: b})
	if res.Success || res.Error.Kind != "timeout" {
		t.Fatalf("%+v", res.Error)
	}
}

func TestDialogs(t *testing.T) {
	var page *fake.Page
	b := newBrowser(func(p *fake.Page) {
		page = p
		p.Add("#ask", &fake.Element{OnClick: func(p *fake.Page) error {
			ok, text := p.Dialog("prompt", "Your name?")
			if ok {
				p.Add("#answer", &fake.Element{Txt: text})
			}
			return nil
		}})
	})
	src := `flow t
open "http://x"
dialog "accept" text: "Ada"
click "#ask"
a = text "#answer"
return [a, len(dialogs()), dialogs()[0].message]
`
	res := mustRun(t, load(t, src), Options{Browser: b})
	if got := jsonOf(res.Outputs); got != `["Ada",1,"Your name?"]` {
		t.Fatalf("outputs %s", got)
	}
	if len(res.Log) != 1 || res.Log[0] != "dialog prompt: Your name?" {
		t.Fatalf("log %q", res.Log)
	}
	_ = page
}

func TestHostHooks(t *testing.T) {
	b := newBrowser(stdPage)
	// ask: answered, password answers are secrets, number answers are numbers.
	var asked []core.Question
	host := core.Host{Ask: func(ctx context.Context, q core.Question) (core.Answer, error) {
		asked = append(asked, q)
		switch q.Input {
		case "password":
			return core.Answer{Status: "answered", Text: "otp-991"}, nil
		case "number":
			return core.Answer{Status: "answered", Text: "42"}, nil
		}
		if q.Title == "decline me" {
			return core.Answer{Status: "declined"}, nil
		}
		return core.Answer{Status: "answered", Text: "yes"}, nil
	}}
	src := `flow t
a = ask "Proceed?" message: "really"
p = ask "OTP" input: "password"
n = ask "How many?" input: "number" timeout: 5s
log "otp {{ p }}"
return [a, p, n + 1]
`
	res := mustRun(t, load(t, src), Options{Browser: b, Host: host})
	if got := jsonOf(res.Outputs); got != `["yes","***",43]` {
		t.Fatalf("outputs %s", got)
	}
	if res.Log[0] != "otp ***" || asked[0].Message != "really" || asked[0].Timeout != 120*time.Second || asked[2].Timeout != 5*time.Second {
		t.Fatalf("log %q asked %+v", res.Log, asked)
	}
	res = run(t, load(t, "flow t\nask \"decline me\"\n"), Options{Browser: b, Host: host})
	if res.Success || res.Error.Kind != "hitl_declined" {
		t.Fatalf("%+v", res.Error)
	}
	// ask timing out
	slow := core.Host{Ask: func(ctx context.Context, q core.Question) (core.Answer, error) {
		<-ctx.Done()
		return core.Answer{}, ctx.Err()
	}}
	res = run(t, load(t, "flow t\nask \"x\" timeout: 20ms\n"), Options{Browser: b, Host: slow})
	if res.Success || res.Error.Kind != "hitl_timeout" {
		t.Fatalf("%+v", res.Error)
	}
	// no hooks: clear errors
	for src, kind := range map[string]core.Kind{
		"ask \"x\"":             "hitl_declined",
		"llm \"summarise\"":     "browser",
		"exec [\"ls\", \"-l\"]": "exec_refused",
	} {
		res = run(t, load(t, "flow t\n"+src+"\n"), Options{Browser: b})
		if res.Success || res.Error.Kind != kind || !strings.Contains(res.Error.Message, "here") {
			t.Errorf("%s: %+v", src, res.Error)
		}
	}
	// exec: list form as is; string form with quoted interpolations.
	var cmds []core.ExecCommand
	ex := core.Host{Exec: func(ctx context.Context, c core.ExecCommand) (*core.ExecResult, error) {
		cmds = append(cmds, c)
		if len(c.Args) > 0 && c.Args[0] == "rm" {
			return nil, &core.Error{Kind: "exec_refused", Msg: "exec: rm is not allowed"}
		}
		return &core.ExecResult{Stdout: "out", Code: 0}, nil
	}}
	src = `flow t
param dir: string = "a b; rm -rf /"
r = exec ["ls", dir]
s = exec "ls {{ dir }}" timeout: 3s
return [r.stdout, r.code]
`
	mustRun(t, load(t, src), Options{Host: ex})
	if cmds[0].Args[1] != "a b; rm -rf /" || cmds[1].Shell != `ls 'a b; rm -rf /'` || cmds[1].Timeout != 3*time.Second {
		t.Fatalf("cmds %+v", cmds)
	}
	res = run(t, load(t, "flow t\nexec [\"rm\", \"x\"]\n"), Options{Host: ex})
	if res.Success || res.Error.Kind != "exec_refused" {
		t.Fatalf("%+v", res.Error)
	}
	// llm
	llm := core.Host{LLM: func(ctx context.Context, prompt string, input any) (string, error) {
		return prompt + ":" + jsonOf(input), nil
	}}
	res = mustRun(t, load(t, "flow t\nx = llm \"sum\" input: [1, 2]\nreturn x\n"), Options{Host: llm})
	if res.Outputs != "sum:[1,2]" {
		t.Fatalf("%v", res.Outputs)
	}
}

func TestCall(t *testing.T) {
	b := newBrowser(stdPage)
	child := load(t, "flow child\nparam region: string\nparam n: int = 2\nparam key: secret = \"k-123\"\nt = text \"#a\"\nreturn {\"r\": region, \"n\": n * 2, \"t\": t, \"k\": key}\n")
	bad := load(t, "flow bad\nclick \"#nope\" wait: 10ms retries: 0\n")
	flows := func(name string) (*lang.Flow, bool) {
		switch name {
		case "child":
			return child, true
		case "bad":
			return bad, true
		}
		return nil, false
	}
	res := mustRun(t, load(t, "flow t\nres = call child with: {\"region\": \"11\"}\nreturn res\n"), Options{Browser: b, Flows: flows})
	if got := jsonOf(res.Outputs); got != `{"k":"***","n":4,"r":"11","t":"A"}` {
		t.Fatalf("outputs %s", got)
	}
	if res.TotalActions != 2 || res.Results[0].Action != "call" && res.Results[1].Action != "call" {
		t.Fatalf("results %+v", res.Results)
	}
	for src, kind := range map[string]core.Kind{
		"call child":                       "expression", // missing required arg
		"call child with: {\"region\": 1}": "expression", // bad type
		"call nothere":                     "expression",
		"call bad":                         "not_found",
		"call child with: {\"zz\": 1, \"region\": \"a\"}": "expression",
	} {
		res := run(t, load(t, "flow t\n"+src+"\n"), Options{Browser: b, Flows: flows})
		if res.Success || res.Error.Kind != kind || res.Error.Line != 2 || res.Error.Action != "call" {
			t.Errorf("%s: %+v", src, res.Error)
		}
	}
}

// TestRunArgs: a run without arguments checks the empty set itself (a
// required param is missing: the run fails before anything runs, naming
// it; defaults apply), and takes checked arguments as they are.
func TestRunArgs(t *testing.T) {
	f := load(t, "flow t\nparam s: string\nparam n: int = 1\nreturn [s, n]\n")
	res := run(t, f, Options{})
	if res.Success || res.Error.Kind != "expression" || !strings.Contains(res.Error.Message, `"s"`) || len(res.Results) != 0 {
		t.Fatalf("%+v", res.Error)
	}
	res = run(t, f, Options{Args: argsOf(t, f, map[string]any{"s": "x"})})
	if !res.Success || jsonOf(res.Outputs) != `["x",1]` {
		t.Fatalf("%+v %s", res.Error, jsonOf(res.Outputs))
	}
	g := load(t, "flow g\nreturn 1\n")
	if res := run(t, g, Options{}); !res.Success {
		t.Fatalf("no params, no args: %+v", res.Error)
	}
}

func TestWaitForms(t *testing.T) {
	var page *fake.Page
	var spin *fake.Element
	b := newBrowser(func(p *fake.Page) {
		page = p
		spin = p.Add("#spin", &fake.Element{})
		p.Add("#msg", &fake.Element{Txt: "loading"})
		p.Add("#late", &fake.Element{After: 40 * time.Millisecond, Txt: "here"})
		go func() {
			time.Sleep(60 * time.Millisecond)
			page.SetURL("http://x/query?r=1")
			spin.Set(func(el *fake.Element) { el.Hidden = true })
			page.Add("#msg", &fake.Element{Txt: "done: 3 rows"})
		}()
	})
	src := `flow t
open "http://x/login"
wait "#late"
wait url: "/query"
wait url: "re:r=\\d"
wait "#spin" state: "hidden"
wait "#msg" text: "done"
wait text: "3 rows"
wait idle: true
wait until: (page.count("#late") == 1)
return "ok"
`
	res := mustRun(t, load(t, src), Options{Browser: b})
	if res.TotalActions != 9 {
		t.Fatalf("%d actions", res.TotalActions)
	}
	res = run(t, load(t, "flow t\nwait until: page.exists(\"#never\") timeout: 30ms\n"), Options{Browser: b})
	if res.Success || res.Error.Kind != "timeout" {
		t.Fatalf("%+v", res.Error)
	}
}

func TestFilesActions(t *testing.T) {
	dir := t.TempDir()
	up := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(up, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var fileIn *fake.Element
	b := newBrowser(func(p *fake.Page) {
		fileIn = p.Add("#file", &fake.Element{Hidden: true})
		p.Add("#dl", &fake.Element{})
		p.NextDownload = &drivers.Download{Name: "report.csv", Size: 3, SHA256: "abc", MIME: "text/csv"}
	})
	src := `flow t
param up: string
param dir: string
open "http://x"
upload "#file" up
d = download "#dl" to: dir
s = screenshot path: "{{ dir }}/shot.png"
return [d.name, d.size, d.path, s]
`
	f := load(t, src)
	res := mustRun(t, f, Options{Browser: b, Args: argsOf(t, f, map[string]any{"up": up, "dir": dir})})
	want := `["report.csv",3,"` + dir + `/report.csv","` + dir + `/shot.png"]`
	if got := jsonOf(res.Outputs); got != want {
		t.Fatalf("outputs %s want %s", got, want)
	}
	if len(fileIn.Files) != 1 || fileIn.Files[0] != up {
		t.Fatalf("files %v", fileIn.Files)
	}
	if _, err := os.Stat(filepath.Join(dir, "shot.png")); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	// A retry would pause 30s first.
	res = run(t, load(t, "flow t\ndefaults every: 30s\nupload \"#file\" \"/no/such/file\"\n"), Options{Browser: b})
	if res.Success || !strings.Contains(res.Error.Message, "no such file") || time.Since(t0) > 20*time.Second {
		t.Fatalf("%+v", res.Error)
	}
}

func TestSelectorIndexRecorded(t *testing.T) {
	b := newBrowser(func(p *fake.Page) { p.Add("text=Query", &fake.Element{}) })
	res := mustRun(t, load(t, "flow t\nclick [\"#q-1234\", \"text=Query\"]\n"), Options{Browser: b})
	s := res.Results[0]
	if s.Selector != "text=Query" || s.SelectorIndex == nil || *s.SelectorIndex != 1 {
		t.Fatalf("%+v", s)
	}
	if got := jsonOf(s); !strings.Contains(got, `"selectorIndex":1`) {
		t.Fatal(got)
	}
}

func TestYAMLFlowRuns(t *testing.T) {
	src := `flow: y
params:
  - {name: who, type: string, default: "Ada"}
steps:
  - open: "http://x/{{ who }}"
  - text: "#a"
    as: t
  - set: {n: len(t)}
  - if: n == 1
    then:
      - log: "one {{ t }}"
  - return: '{"t": t, "who": who}'
`
	f, ds := lang.Load("y.yaml", []byte(src))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	res := mustRun(t, f, Options{Browser: newBrowser(stdPage)})
	if got := jsonOf(res.Outputs); got != `{"t":"A","who":"Ada"}` || res.Log[0] != "one A" || res.Results[0].Line != 5 {
		t.Fatalf("%s %q %+v", got, res.Log, res.Results[0])
	}
}

func TestCloseWithoutOpener(t *testing.T) {
	b := newBrowser(stdPage)
	b.AddPage("http://x/first")
	src := `flow t
open "http://x/second"
tab 0
u1 = url
tab "second"
close
u2 = url
return [u1, u2]
`
	res := mustRun(t, load(t, src), Options{Browser: b, Page: nil})
	if got := jsonOf(res.Outputs); got != `["http://x/first","http://x/first"]` {
		t.Fatalf("%s", got)
	}
}

func TestPageFuncsWithoutTab(t *testing.T) {
	b := newBrowser(stdPage)
	res := mustRun(t, load(t, "flow t\nreturn [page.exists(\"#a\"), page.count(\"#a\"), page.url(), page.title()]\n"), Options{Browser: b})
	if got := jsonOf(res.Outputs); got != `[false,0,"",""]` || len(b.Log()) != 0 {
		t.Fatalf("%s %q", got, b.Log())
	}
}

func TestDialogsPerRun(t *testing.T) {
	b := fake.New()
	p := b.AddPage("http://x")
	p.Add("#alert", &fake.Element{OnClick: func(p *fake.Page) error { p.Dialog("alert", "hi"); return nil }})
	f := load(t, "flow t\ndialog \"accept\"\nclick \"#alert\"\nreturn len(dialogs())\n")
	for i := 0; i < 2; i++ {
		res := mustRun(t, f, Options{Browser: b, Page: p})
		if res.Outputs != 1 || len(res.Log) != 1 {
			t.Fatalf("run %d: %v %q", i, res.Outputs, res.Log)
		}
	}
	// The next run on the page starts with the default policy (dismiss).
	mustRun(t, load(t, "flow t\nreturn 1\n"), Options{Browser: b, Page: p})
	if ok, _ := p.Dialog("confirm", "?"); ok {
		t.Fatal("policy leaked into the next run")
	}
}

// TestNoFiles: with Host.NoFiles (served flows without --allow-files) a
// flow cannot open file: URLs nor upload, download or screenshot outside
// the temp dir (a symlink in the temp dir pointing out counts as outside);
// inside the temp dir it still can, and without NoFiles (rpa run) all is
// allowed.
func TestNoFiles(t *testing.T) {
	// The policy allows os.TempDir(); point it at a fresh folder so that this
	// package's files count as outside even when the checkout itself lies
	// under /tmp (as CI's clone may).
	tmp := filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	in := filepath.Join(tmp, "in.txt")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside, err := filepath.Abs("actions_test.go") // this package's folder, not the temp dir
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "link.go")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	notMade := filepath.Join(filepath.Dir(outside), "nofiles-should-not-exist")
	b := newBrowser(func(p *fake.Page) {
		p.Add("#file", &fake.Element{Hidden: true})
		p.Add("#dl", &fake.Element{})
		p.NextDownload = &drivers.Download{Name: "report.csv", Size: 3}
	})
	for _, tc := range []struct {
		name, src string
		kind      core.Kind
		msg       string // "" kind: allowed
	}{
		{"file URL", `open "file:///etc/passwd"`, "navigation", "open: file: URLs are off for served flows (rpa serve --allow-files enables them)"},
		{"file URL upper case", `open " FILE:///etc/passwd"`, "navigation", "file: URLs are off"},
		{"upload outside", `upload "#file" "` + outside + `"`, "exec_refused", "upload: the file " + strconv.Quote(outside) + " is outside the temp dir; local files are off for served flows (rpa serve --allow-files enables them)"},
		{"upload relative", `upload "#file" "actions_test.go"`, "exec_refused", "outside the temp dir"},
		{"upload symlink out", `upload "#file" ["` + in + `", "` + link + `"]`, "exec_refused", "link.go"},
		{"download to outside", `download "#dl" to: "` + notMade + `"`, "exec_refused", "download: the folder"},
		{"screenshot outside", `screenshot path: "` + notMade + `/s.png"`, "exec_refused", "screenshot: the path"},
		{"upload in temp", `upload "#file" "` + in + `"`, "", ""},
		{"download in temp", `download "#dl" to: "` + tmp + `/dl"`, "", ""},
		{"screenshot in temp", `screenshot path: "` + tmp + `/s.png"`, "", ""},
		{"http URL", `open "http://x/"`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "flow t\nopen \"http://x\"\n" + tc.src + "\n"
			res := run(t, load(t, src), Options{Browser: b, Host: core.Host{NoFiles: true}})
			if tc.kind == "" {
				if !res.Success {
					t.Fatalf("refused: %+v", res.Error)
				}
			} else if res.Success || res.Error.Kind != tc.kind || !strings.Contains(res.Error.Message, tc.msg) {
				t.Fatalf("got %+v, want kind %s with %q", res.Error, tc.kind, tc.msg)
			}
			// rpa run (no NoFiles): the same flow is not refused by the policy.
			if tc.kind != "" && !strings.HasPrefix(tc.name, "download") && !strings.HasPrefix(tc.name, "screenshot") {
				res := run(t, load(t, src), Options{Browser: b})
				if !res.Success && strings.Contains(res.Error.Message, "--allow-files") {
					t.Fatalf("refused without NoFiles: %+v", res.Error)
				}
			}
		})
	}
	if _, err := os.Stat(notMade); err == nil {
		t.Errorf("%s was created", notMade)
	}
}
