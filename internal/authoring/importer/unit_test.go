package importer

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/diag"
	"github.com/rpa-dev/rpa/lang/format"
)

func TestSecretName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"auth[password]", "auth_password"},
		{"Password", "password"},
		{"user-password", "user_password"},
		{"  pass word  ", "pass_word"},
		{"2fa_code", "p_2fa_code"},
		{"type", "p_type"},   // an action name
		{"len", "p_len"},     // an expr builtin
		{"page", "p_page"},   // reserved by the language
		{"密码", "field"},      // nothing left
		{"__x__", "x"},       // trimmed
		{"a..b--c", "a_b_c"}, // each run is one "_"
		{"loginForm:pwd", "loginform_pwd"},
	} {
		if got := secretName(c.in); got != c.want {
			t.Errorf("secretName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestJSONPositions(t *testing.T) {
	for _, c := range []struct {
		src, want string
	}{
		{"{\n  \"a\": 1,\n  \"b\": tru\n}", "3:8"},
		{"{\"a\": [1, 2,]}", "1:13"},
		{"{\"a\" 1}", "1:6"},
		{"[1, 2", "1:6"},
		{"{\"s\": \"x\ny\"}", "1:9"},
		{"{} {}", "1:4"},
	} {
		_, err := parseJSON([]byte(c.src))
		je, ok := err.(*jsonError)
		if !ok {
			t.Errorf("%q: err = %v, want a *jsonError", c.src, err)
			continue
		}
		if got := newSource("f", []byte(c.src)).pos(je.off).String(); got != c.want {
			t.Errorf("%q: error at %s, want %s (%v)", c.src, got, c.want, err)
		}
	}
	root, err := parseJSON([]byte("{\n  \"steps\": [\n    {\"type\": \"x\", \"n\": -1.5e3, \"u\": \"\\u00e9\\ud83d\\ude00\"}\n  ]\n}"))
	if err != nil {
		t.Fatal(err)
	}
	st := root.get("steps").elems[0]
	s := newSource("f", []byte("{\n  \"steps\": [\n    {\"type\": \"x\", \"n\": -1.5e3, \"u\": \"\\u00e9\\ud83d\\ude00\"}\n  ]\n}"))
	if got := s.pos(st.off).String(); got != "3:5" {
		t.Errorf("step at %s, want 3:5", got)
	}
	if v, _ := st.getNum("n"); v != -1500 {
		t.Errorf("n = %v", v)
	}
	if u := st.getStr("u"); u != "é😀" {
		t.Errorf("u = %q", u)
	}
}

// importOne imports src as name and returns the single flow's text and the
// diagnostics in one-line form.
func importOne(t *testing.T, name, src string, opts Options) (string, []string) {
	t.Helper()
	flows, ds := Import(name, []byte(src), opts)
	var lines []string
	for _, d := range ds {
		lines = append(lines, d.OneLine())
	}
	if len(flows) != 1 {
		t.Fatalf("%d flows; diagnostics: %v", len(flows), lines)
	}
	return string(format.Flow(flows[0].File)), lines
}

func chromeDoc(steps ...string) string {
	return `{"title": "t", "steps": [` + strings.Join(steps, ",\n") + `]}`
}

func TestChromeKeys(t *testing.T) {
	text, ds := importOne(t, "k.json", chromeDoc(
		`{"type": "keyDown", "key": "Control"}`, `{"type": "keyDown", "key": "a"}`,
		`{"type": "keyUp", "key": "a"}`, `{"type": "keyUp", "key": "Control"}`,
		`{"type": "keyDown", "key": "Shift"}`, `{"type": "keyUp", "key": "Shift"}`,
		`{"type": "keyDown", "key": "Enter"}`, `{"type": "keyDown", "key": "Tab"}`,
		`{"type": "keyUp", "key": "Enter"}`, `{"type": "keyUp", "key": "Tab"}`,
		`{"type": "keyDown", "key": "Escape"}`,
	), Options{})
	want := "press \"Control+a\"\npress \"Shift\"\npress \"Enter\"\npress \"Tab\"\npress \"Escape\"\n"
	if !strings.HasSuffix(text, want) {
		t.Errorf("got\n%s\nwant it to end with\n%s", text, want)
	}
	if len(ds) != 0 {
		t.Errorf("diagnostics: %v", ds)
	}
}

func TestStrictAndPositions(t *testing.T) {
	src := chromeDoc(
		`{"type": "navigate", "url": "https://example.com/"}`,
		`{"type": "customStep", "name": "x", "parameters": {}}`,
		`{"type": "change", "value": "hunter22", "selectors": [["input[name=\"pwd\"]"]]}`,
		`{"type": "scroll", "x": 0, "y": 400}`,
		`{"type": "waitForExpression", "expression": "window.ok"}`,
		`{"type": "bogus"}`)
	for _, strict := range []bool{false, true} {
		flows, ds := Import("s.json", []byte(src), Options{Strict: strict})
		got := map[string]diag.Severity{}
		for _, d := range ds {
			got[d.Subject.Start.String()+" "+strings.SplitN(d.Summary, ":", 2)[0]] = d.Severity
		}
		want := diag.Warning
		if strict {
			want = diag.Error
		}
		for _, k := range []string{"2:2 step 2 (customStep \"x\")", "4:2 step 4 (scroll)", "5:2 step 5 (waitForExpression)", "6:2 step 6"} {
			sev, ok := got[k]
			if !ok || sev != want {
				t.Errorf("strict=%v: %q: severity %v found=%v, want %v; all: %v", strict, k, sev, ok, want, got)
			}
		}
		if sev, ok := got["3:2 step 3 (change)"]; !ok || sev != diag.Warning {
			t.Errorf("strict=%v: the dropped password is a warning in both modes, got %v %v", strict, sev, ok)
		}
		if strict != ds.HasErrors() {
			t.Errorf("strict=%v: HasErrors = %v", strict, ds.HasErrors())
		}
		text := string(format.Flow(flows[0].File))
		if strings.Contains(text, "hunter22") {
			t.Errorf("the recorded password reached the flow:\n%s", text)
		}
		for _, w := range []string{"param pwd: secret", `fill "input[name=\"pwd\"]" pwd`, "# not imported: customStep x", "# not imported: waitForExpression window.ok"} {
			if !strings.Contains(text, w) {
				t.Errorf("flow lacks %q:\n%s", w, text)
			}
		}
	}
}

func TestSecretParamCollisions(t *testing.T) {
	text, _ := importOne(t, "c.json", chromeDoc(
		`{"type": "change", "value": "one1", "selectors": [["input[name=\"auth[password]\"]"]]}`,
		`{"type": "change", "value": "two2", "selectors": [["#auth-password"]]}`,
		`{"type": "change", "value": "one1", "selectors": [["input[name=\"auth[password]\"]"]]}`,
		`{"type": "change", "value": "x", "selectors": [["aria/Type password"]]}`,
		`{"type": "navigate", "url": "https://example.com/?p=two2"}`,
	), Options{})
	for _, w := range []string{
		`param auth_password: secret "Password for the auth[password] field"`,
		`param auth_password_2: secret "Password for the auth-password field"`,
		`param type_password: secret`,
		`fill "input[name=\"auth[password]\"]" auth_password` + "\n",
		`open "{{base_url}}/?p={{auth_password_2}}"`,
	} {
		if !strings.Contains(text, w) && !strings.Contains(strings.ReplaceAll(text, "{{ ", "{{"), w) {
			t.Errorf("flow lacks %q:\n%s", w, text)
		}
	}
	if strings.Count(text, "param auth_password") != 2 {
		t.Errorf("the same field twice must reuse its param:\n%s", text)
	}
	for _, secret := range []string{"one1", "two2"} {
		if strings.Contains(text, secret) {
			t.Errorf("%q reached the flow:\n%s", secret, text)
		}
	}
}

func TestSideErrors(t *testing.T) {
	cmd := func(c, target, value string) string {
		return fmt.Sprintf(`{"id": "x", "command": %q, "target": %q, "value": %q}`, c, target, value)
	}
	side := func(cmds ...string) string {
		return `{"id": "p", "version": "2.0", "name": "p", "url": "http://h", "tests": [{"id": "t", "name": "t", "commands": [` +
			strings.Join(cmds, ",\n") + `]}]}`
	}
	for _, c := range []struct {
		name string
		src  string
		want string
	}{
		{"end without block", side(cmd("open", "/", ""), cmd("end", "", "")), "command 2 (end): no open if"},
		{"else without if", side(cmd("else", "", "")), "command 1 (else): no matching if"},
		{"unclosed while", side(cmd("while", "${a} < 1", ""), cmd("click", "id=x", "")), `command "while" has no matching end`},
		{"run unknown", side(cmd("run", "nope", "")), `no test named "nope"`},
		{"dom locator", side(cmd("click", "dom=document.forms[0]", "")), `locator "dom=document.forms[0]" has no equivalent`},
		{"js condition", side(cmd("if", "document.title.length > 2", ""), cmd("end", "", "")), "cannot be expressed; the flow uses false"},
	} {
		_, ds := Import("p.side", []byte(c.src), Options{})
		found := false
		for _, d := range ds {
			if strings.Contains(d.Summary, c.want) {
				found = true
				if d.Subject.Start.Line == 0 {
					t.Errorf("%s: diagnostic without a position: %s", c.name, d.OneLine())
				}
			}
		}
		if !found {
			t.Errorf("%s: no diagnostic containing %q in %v", c.name, c.want, ds)
		}
	}
}

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      Format
		ok        bool
	}{
		{"r.json", `{"title": "x", "steps": [{"type": "navigate", "url": "u"}]}`, FormatChrome, true},
		{"p.side", `{"tests": []}`, FormatSide, true},
		{"p.json", `{"version": "2.0", "tests": []}`, FormatSide, true},
		{"f.json", `{"name": "n", "steps": [{"type": "click", "attrs": {"selector": "#a"}}]}`, FormatJSONFlow, true},
		{"x.json", `{"foo": 1}`, "", false},
	} {
		got, ok := Detect(c.name, []byte(c.src))
		if got != c.want || ok != c.ok {
			t.Errorf("Detect(%s) = %q %v, want %q %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestChangeOnSelect(t *testing.T) {
	text, _ := importOne(t, "s.json", chromeDoc(
		`{"type": "change", "value": "eu", "selectors": [["aria/Region"], ["select#region"]]}`,
		`{"type": "change", "value": "hi", "selectors": [["xpath///form/textarea[1]"]]}`,
		`{"type": "change", "value": "v", "selectors": [["aria/Thing"]]}`,
	), Options{})
	for _, w := range []string{`select ["aria/Region", "select#region"] "eu"`, `fill "xpath=//form/textarea[1]" "hi"`, `fill "aria/Thing" "v"`} {
		if !strings.Contains(text, w) {
			t.Errorf("flow lacks %q:\n%s", w, text)
		}
	}
	if strings.Contains(text, "if page.exists") {
		t.Errorf("no run-time probe expected when the tag is known:\n%s", text)
	}
}

func TestDur(t *testing.T) {
	for ms, want := range map[float64]string{500: "500ms", 5000: "5s", 90000: "1m30s", 1500: "1500ms", 3600000: "1h", 0.2: "1ms"} {
		if got := dur(ms).Raw; got != want {
			t.Errorf("dur(%v) = %s, want %s", ms, got, want)
		}
	}
	_ = ast.Pos{}
}

func TestSideKeys(t *testing.T) {
	src := `{"version": "2.0", "url": "http://h", "tests": [{"name": "k", "commands": [
		{"command": "type", "target": "id=q", "value": "kWh${KEY_ENTER}"},
		{"command": "sendKeys", "target": "name=q", "value": "${KEY_TAB}x${KEY_NOPE}"}]}]}`
	text, ds := importOne(t, "k.side", src, Options{})
	want := "fill \"#q\" \"kWh\"\npress \"Enter\" on: \"#q\"\npress \"Tab\" on: \"[name=\\\"q\\\"]\"\ntype \"[name=\\\"q\\\"]\" \"x\"\n"
	if !strings.Contains(text, want) {
		t.Errorf("got\n%s\nwant\n%s", text, want)
	}
	if len(ds) != 1 || !strings.Contains(ds[0], "KEY_NOPE") {
		t.Errorf("want one diagnostic about ${KEY_NOPE}, got %v", ds)
	}
}

// TestSideDialogPolicies: the runtime holds one dialog policy for every
// dialog type, so a prompt answer no prompt has taken yet is carried into
// later accept policies (or the prompt would get its default), ended by
// assertPrompt, and a dismiss that would also dismiss it is warned about.
func TestSideDialogPolicies(t *testing.T) {
	cmd := func(c, target string) string {
		return fmt.Sprintf(`{"command": %q, "target": %q, "value": ""}`, c, target)
	}
	side := func(cmds ...string) string {
		return `{"version": "2.0", "url": "http://h", "tests": [{"name": "d", "commands": [` + strings.Join(cmds, ",\n") + `]}]}`
	}
	for _, c := range []struct {
		name, src, want, diag string
	}{
		{"answer then ok", side(cmd("answerOnNextPrompt", "Q3"), cmd("chooseOkOnNextConfirmation", ""), cmd("click", "id=b")),
			"dialog \"accept\" text: \"Q3\"\ndialog \"accept\" text: \"Q3\"\nclick \"#b\"\n", ""},
		{"ok then answer", side(cmd("chooseOkOnNextConfirmation", ""), cmd("answerOnNextPrompt", "${who}"), cmd("click", "id=b")),
			"dialog \"accept\"\ndialog \"accept\" text: who\nclick \"#b\"\n", ""},
		{"assertPrompt ends the answer", side(cmd("answerOnNextPrompt", "Q3"), cmd("click", "id=b"), cmd("assertPrompt", "Name?"), cmd("chooseOkOnNextConfirmation", "")),
			"assert any(dialogs(), {.type == \"prompt\" && .message == \"Name?\"}), \"assertPrompt Name?\"\ndialog \"accept\"\n", ""},
		{"late answer then accept", side(cmd("click", "id=b"), cmd("answerPrompt", "Q3"), cmd("acceptConfirmation", "")),
			"dialog \"accept\" text: \"Q3\"\ndialog \"accept\" text: \"Q3\"\nclick \"#b\"\n", ""},
		{"dismiss after answer", side(cmd("answerOnNextPrompt", "Q3"), cmd("chooseCancelOnNextConfirmation", ""), cmd("click", "id=b")),
			"dialog \"accept\" text: \"Q3\"\ndialog \"dismiss\"\nclick \"#b\"\n", "also dismisses the prompt"},
		{"second identical check wants a second dialog", side(cmd("click", "id=b"), cmd("assertConfirmation", "Sure?"), cmd("click", "id=b"), cmd("assertConfirmation", "Sure?")),
			"click \"#b\"\nwait until: (count(dialogs(), {.type == \"confirm\" && .message == \"Sure?\"}) >= 2) optional: true\nassert count(", ""},
		{"no count inside control flow", side(cmd("times", "2"), cmd("click", "id=b"), cmd("assertAlert", "A"), cmd("end", ""), cmd("assertAlert", "A")),
			"  assert any(dialogs(), {.type == \"alert\" && .message == \"A\"}), \"assertAlert A\"\n}\nwait until: any(", ""},
		{"late alert waits", side(cmd("click", "id=b"), cmd("assertAlert", "Done")),
			"click \"#b\"\nwait until: any(dialogs(), {.type == \"alert\" && .message == \"Done\"}) optional: true\n", ""},
	} {
		text, ds := importOne(t, "d.side", c.src, Options{})
		if !strings.Contains(text, c.want) {
			t.Errorf("%s: got\n%s\nwant it to contain\n%s", c.name, text, c.want)
		}
		if got := strings.Join(ds, "\n"); (c.diag == "") != (got == "") || !strings.Contains(got, c.diag) {
			t.Errorf("%s: diagnostics %q, want one containing %q", c.name, got, c.diag)
		}
		if _, lds := lang.Load("d.flow", []byte(text)); lds.HasErrors() {
			t.Errorf("%s: lang.Load: %v\n%s", c.name, lds, text)
		}
	}
}

// TestJSONLiteralsAllocate: true, false and null cost their node, not a
// copy of the rest of the input each (a 120 kB array of 20,000 literals
// allocated 1 GB).
func TestJSONLiteralsAllocate(t *testing.T) {
	src := []byte("[" + strings.Repeat("true,false,null,", 10000) + "true]")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := parseJSON(src); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(100*len(src)); got > limit {
		t.Errorf("parsing %d bytes allocated %d bytes, want at most %d", len(src), got, limit)
	}
}
