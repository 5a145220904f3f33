package authoring

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/format"
)

var update = flag.Bool("update", false, "rewrite the golden .flow files")

// caseFile is a hand-written log with the flow_save arguments.
type caseFile struct {
	Meta struct {
		Name        string           `json:"name"`
		Description string           `json:"description"`
		Params      []map[string]any `json:"params"`
		Returns     map[string]int   `json:"returns"`
	} `json:"meta"`
	Entries []Entry `json:"entries"`
}

func loadCase(t testing.TB, path string) (*Log, Meta) {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c caseFile
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	m := Meta{Name: c.Meta.Name, Description: c.Meta.Description, Returns: c.Meta.Returns}
	for _, p := range c.Meta.Params {
		mp, err := ParamFromJSON(p)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		m.Params = append(m.Params, mp)
	}
	l := &Log{}
	for _, e := range c.Entries {
		l.Add(e)
	}
	return l, m
}

// TestCompileGolden compiles the hand-written logs of testdata/compile and
// compares the flows with the .flow goldens (-update to refresh). Every
// output loads with zero errors, is already in canonical form (rpa fmt
// leaves it alone), and holds no secret value.
func TestCompileGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "compile", "*.json"))
	if len(files) == 0 {
		t.Fatal("no cases")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			l, m := loadCase(t, path)
			raw, _ := os.ReadFile(path)
			out, err := Compile(l, m)
			if err != nil {
				t.Fatal(err)
			}
			if out.Diagnostics.HasErrors() {
				t.Fatalf("diagnostics: %v\n%s", out.Diagnostics, out.Text)
			}
			if out.Flow == nil {
				t.Fatal("no flow")
			}
			if _, ds := lang.Load(m.Name+".flow", out.Text); ds.HasErrors() {
				t.Fatalf("lang.Load: %v", ds)
			}
			parsed, ds := lang.Parse(m.Name+".flow", out.Text)
			if ds.HasErrors() {
				t.Fatal(ds)
			}
			if canon := format.Flow(parsed); !bytes.Equal(canon, out.Text) {
				t.Errorf("not canonical; rpa fmt gives:\n%s\nwe gave:\n%s", canon, out.Text)
			}
			if bytes.Contains(raw, []byte("demo-pass-42")) && bytes.Contains(out.Text, []byte("demo-pass-42")) {
				t.Errorf("a secret value reached the flow")
			}
			golden := strings.TrimSuffix(path, ".json") + ".flow"
			if *update {
				if err := os.WriteFile(golden, out.Text, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (-update)", err)
			}
			if !bytes.Equal(want, out.Text) {
				t.Errorf("differs from %s (-update to refresh):\n%s", golden, out.Text)
			}
		})
	}
}

// TestCompileDetails checks the promises one by one on the demo log.
func TestCompileDetails(t *testing.T) {
	l, m := loadCase(t, filepath.Join("testdata", "compile", "demo_query.json"))
	if l.Entries[2].Value != "" {
		t.Fatalf("Log.Add kept a secret's value")
	}
	out, err := Compile(l, m)
	if err != nil {
		t.Fatal(err)
	}
	text := string(out.Text)
	for _, want := range []string{
		"param password: secret",
		`param region: string = "110000" "Region code for query"`,
		`param base_url: string = "http://127.0.0.1:8080"`,
		`open "{{ base_url }}/login"`,
		`wait url: "/query"`,
		`rows = table ["#data-table"`,
		`return { "rows": rows }`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("flow lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "#summary") {
		t.Errorf("an unnamed read was kept:\n%s", text)
	}
	if fmt.Sprint(out.Dropped) != "[8]" || fmt.Sprint(out.Secrets) != "[password]" {
		t.Errorf("dropped %v, secrets %v", out.Dropped, out.Secrets)
	}
	// the flow's own param check: region is optional, password required
	f := out.Flow
	for _, p := range f.File.Params {
		if p.Name == "password" && p.Default != nil {
			t.Errorf("password has a default")
		}
	}
}

func TestCompileDeadEnds(t *testing.T) {
	l, m := loadCase(t, filepath.Join("testdata", "compile", "dead_end.json"))
	out, err := Compile(l, m)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(out.Dropped) != "[2 3 4 6]" {
		t.Errorf("dropped %v, want [2 3 4 6]", out.Dropped)
	}
	text := string(out.Text)
	for _, bad := range []string{"#help", "#faq", `"lamp"`, "\nback\n"} {
		if strings.Contains(text, bad) {
			t.Errorf("flow keeps %s:\n%s", bad, text)
		}
	}
	// a back with nothing to undo stays
	l2 := &Log{}
	l2.Add(Entry{Kind: KindOpen, URL: "https://a.test/x"})
	l2.Add(Entry{Kind: KindBack})
	out2, err := Compile(l2, Meta{Name: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out2.Text), "\nback\n") {
		t.Errorf("back dropped:\n%s", out2.Text)
	}
}

func TestCompileMetaErrors(t *testing.T) {
	l, _ := loadCase(t, filepath.Join("testdata", "compile", "demo_query.json"))
	for _, c := range []struct {
		m     Meta
		field string
	}{
		{Meta{Name: "Bad Name"}, "name"},
		{Meta{Name: "a" + strings.Repeat("b", 119)}, "name"}, // workflow_NAME past MCP's 128
		{Meta{Name: "x", Params: []Param{{Name: "p", Step: 99}}}, "params[0].step"},
		{Meta{Name: "x", Params: []Param{{Name: "p", Step: 4}}}, "params[0].step"},
		{Meta{Name: "x", Params: []Param{{Name: "p", Type: "secret", Default: "x", HasDefault: true}}}, "params[0].default"},
		{Meta{Name: "x", Params: []Param{{Name: "username", Type: "secret"}}}, "params[0].type"},
		{Meta{Name: "x", Params: []Param{{Name: "password", Type: "string"}}}, "params[0].type"},
		{Meta{Name: "x", Params: []Param{{Name: "1x"}}}, "params[0].name"},
		{Meta{Name: "x", Returns: map[string]int{"rows": 2}}, "returns.rows"},
	} {
		_, err := Compile(l, c.m)
		var me *MetaError
		if !errors.As(err, &me) || me.Field != c.field {
			t.Errorf("%+v: got %v, want an error on %s", c.m, err, c.field)
		}
		if len(c.m.Name) > 100 && (me == nil || !strings.Contains(me.Msg, "too long (120 characters; at most 119") || strings.Contains(me.Msg, c.m.Name)) {
			t.Errorf("a long name: %v", err)
		}
	}
	// a clash the checker finds is a diagnostic, not a Go error
	out, err := Compile(l, Meta{Name: "x", Returns: map[string]int{"username": 9}})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Diagnostics.HasErrors() || out.Flow != nil {
		t.Errorf("binding over a param: %v\n%s", out.Diagnostics, out.Text)
	}
}

// TestCompileAddressParams: a param whose step is an open stands for the
// part of the address given as its default, in that address and in every
// later address the flow opens or waits for; a default that is not in the
// address, or none, names the field.
func TestCompileAddressParams(t *testing.T) {
	l := &Log{}
	l.Add(Entry{Kind: KindOpen, URL: "http://127.0.0.1:8080/query?region=110000&page=1"})
	l.Add(Entry{Kind: KindClick, Target: &Element{Selectors: []string{"#next"}, Desc: `button "Next"`}, NavURL: "http://127.0.0.1:8080/query?region=110000&page=2"})
	l.Add(Entry{Kind: KindOpen, URL: "https://other.test/r/110000/{{x}}"})
	out, err := Compile(l, Meta{Name: "q", Params: []Param{{Name: "region", Step: 1, Default: "110000", HasDefault: true, Description: "Region code"}}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Diagnostics.HasErrors() {
		t.Fatalf("%v\n%s", out.Diagnostics, out.Text)
	}
	text := string(out.Text)
	for _, want := range []string{
		`param region: string = "110000" "Region code"`,
		`open "{{ base_url }}/query?region={{ urlquery(region) }}&page=1"`,
		`open "https://other.test/r/{{ urlpath(region) }}/{{ '{{' }}x}}"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("flow lacks %q:\n%s", want, text)
		}
	}
	for _, c := range []struct {
		p     Param
		field string
	}{
		{Param{Name: "region", Step: 1}, "params[0].default"},
		{Param{Name: "region", Step: 1, Default: "330100", HasDefault: true}, "params[0].default"},
		{Param{Name: "region", Step: 1, Default: "110000", HasDefault: true, Type: "secret"}, "params[0].default"},
		{Param{Name: "region", Step: 2, Default: "110000", HasDefault: true}, "params[0].step"},
	} {
		_, err := Compile(l, Meta{Name: "q", Params: []Param{c.p}})
		var me *MetaError
		if !errors.As(err, &me) || me.Field != c.field {
			t.Errorf("%+v: got %v, want an error on %s", c.p, err, c.field)
		}
	}
}

// TestCompileWaits: each action that changed the page is followed by the
// wait that makes the next step safe on a fresh profile and a slow
// server, by what the action caused (LANGUAGE.md's `wait` forms).
func TestCompileWaits(t *testing.T) {
	const o = "http://127.0.0.1:8080"
	btn := &Element{Selectors: []string{"#go"}, Desc: `button "Go"`}
	out := &Element{Selectors: []string{"#out"}, Desc: `text #out`}
	loggedIn := []Element{{Selectors: []string{`aria/Log Out[role="link"]`}, Desc: `link "Log Out"`}}
	for _, c := range []struct {
		name    string
		entries []Entry
		want    []string // lines in order, after the first open
		not     []string
	}{
		{"a navigation before an open waits for it", []Entry{
			{Kind: KindClick, Target: btn, From: o + "/login", NavURL: o + "/home"},
			{Kind: KindOpen, URL: o + "/edit"},
		}, []string{`click "#go"`, `wait url: "/home"`, `open "{{ base_url }}/edit"`}, nil},
		{"a pattern the page before matched is not used", []Entry{
			{Kind: KindClick, Target: btn, From: o + "/doku.php?id=start&do=login", NavURL: o + "/doku.php?id=start", Appeared: loggedIn},
			{Kind: KindOpen, URL: o + "/doku.php?id=x&do=edit"},
		}, []string{`click "#go"`, `# link "Log Out" appeared`, `wait "aria/Log Out[role=\"link\"]"`, `open`}, []string{`wait url: "/doku.php"`}},
		{"without an element that appeared, the path and query anchored", []Entry{
			{Kind: KindClick, Target: btn, From: o + "/doku.php?id=start&do=login", NavURL: o + "/doku.php?id=start"},
			{Kind: KindOpen, URL: o + "/doku.php?id=x&do=edit"},
		}, []string{`click "#go"`, `wait url: "re:/doku\\.php\\?id=start$"`, `open`}, nil},
		{"the path and query when the page before lacked them", []Entry{
			{Kind: KindClick, Target: btn, From: o + "/list?page=1", NavURL: o + "/list?page=2"},
			{Kind: KindClick, Target: btn},
		}, []string{`click "#go"`, `wait url: "/list?page=2"`, `click "#go"`}, nil},
		{"the same address again: the network going idle", []Entry{
			{Kind: KindClick, Target: btn, From: o + "/form", NavURL: o + "/form"},
			{Kind: KindClick, Target: btn},
		}, []string{`click "#go"`, `wait idle: true`, `click "#go"`}, nil},
		{"an agent's wait url that passed at once is replaced", []Entry{
			{Kind: KindClick, Target: btn, From: o + "/doku.php?id=p&do=edit", NavURL: o + "/doku.php?id=p", Appeared: loggedIn},
			{Kind: KindWait, URL: "/doku.php"},
			{Kind: KindClick, Target: btn},
		}, []string{`click "#go"`, `wait "aria/Log Out[role=\"link\"]"`, `click "#go"`}, []string{`wait url: "/doku.php"`}},
		{"an agent's wait url that tells the pages apart stands", []Entry{
			{Kind: KindClick, Target: btn, From: o + "/login", NavURL: o + "/home"},
			{Kind: KindWait, URL: "/home"},
			{Kind: KindClick, Target: btn},
		}, []string{`click "#go"`, `wait url: "/home"`, `click "#go"`}, []string{"wait url: \"/home\"\nwait url:"}},
		{"requests without a navigation, then a read: a content wait", []Entry{
			{Kind: KindClick, Target: btn, From: o + "/q", Requests: 1, Appeared: []Element{{Selectors: []string{`aria/Total[role="heading"]`}, Desc: `heading "Total"`}}},
			{Kind: KindRead, Read: "text", Target: out, As: "total"},
		}, []string{`click "#go"`, `wait "aria/Total[role=\"heading\"]"`, `total = text "#out"`}, nil},
		{"requests, then a read of nothing that appeared: the network going idle", []Entry{
			{Kind: KindClick, Target: btn, From: o + "/q", Requests: 2},
			{Kind: KindRead, Read: "text", Target: out, As: "total"},
		}, []string{`click "#go"`, `wait idle: true`, `total = text "#out"`}, nil},
		{"requests, then a read of the element that appeared: its own wait", []Entry{
			{Kind: KindClick, Target: btn, From: o + "/q", Requests: 2, Appeared: []Element{{Selectors: []string{"#out"}}}},
			{Kind: KindRead, Read: "text", Target: out, As: "total"},
		}, []string{`click "#go"`, `total = text "#out"`}, []string{"wait"}},
		{"requests, then an action: its own wait", []Entry{
			{Kind: KindClick, Target: btn, From: o + "/q", Requests: 2},
			{Kind: KindClick, Target: btn},
		}, []string{`click "#go"`, `click "#go"`}, []string{"wait"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := &Log{}
			l.Add(Entry{Kind: KindOpen, URL: o + "/start"})
			for _, e := range c.entries {
				l.Add(e)
			}
			res, err := Compile(l, Meta{Name: "w"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Diagnostics) > 0 {
				t.Fatalf("diagnostics: %v\n%s", res.Diagnostics, res.Text)
			}
			text := string(res.Text)
			body := text[strings.Index(text, "open \"{{ base_url }}/start\"\n")+len("open \"{{ base_url }}/start\"\n"):]
			at := 0
			for _, w := range c.want {
				i := strings.Index(body[at:], w)
				if i < 0 {
					t.Fatalf("lacks %q after offset %d:\n%s", w, at, body)
				}
				at += i + len(w)
			}
			for _, n := range c.not {
				if strings.Contains(body, n) {
					t.Errorf("has %q:\n%s", n, body)
				}
			}
		})
	}
}

// TestCompileParamText: a selector naming its element by text a param
// supplies is left out (the heading a fill wrote, an element named after
// an address param), the element keeps the selectors of its structure;
// an address param goes in through urlquery/urlpath, found also where the
// address holds it escaped, and the flow checks without a warning.
func TestCompileParamText(t *testing.T) {
	l := &Log{}
	l.Add(Entry{Kind: KindOpen, URL: "http://127.0.0.1:8080/wiki/doku.php?id=ns%3Amy+page&do=edit"})
	l.Add(Entry{Kind: KindFill, Target: &Element{Selectors: []string{`textarea[name="wikitext"]`}}, Value: "====== Usage report 2024 ======", Param: "body"})
	l.Add(Entry{Kind: KindRead, Read: "text", As: "heading", Target: &Element{Selectors: []string{
		`aria/Usage report 2024[role="heading"]`, `text="Usage report 2024"`, "div.page > h1", "xpath=/html/body/div/h1"}}})
	l.Add(Entry{Kind: KindRead, Read: "text", As: "again", Target: &Element{Selectors: []string{"#usage_report_2024", "xpath=/html/body/div/h1"}}})
	l.Add(Entry{Kind: KindClick, Target: &Element{Selectors: []string{`a[title="ns:my page"]`, "#crumb a", `aria/ns:my page[role="link"]`}}})
	res, err := Compile(l, Meta{Name: "p", Params: []Param{{Name: "page_id", Step: 1, Default: "ns:my page", HasDefault: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diagnostics) > 0 {
		t.Fatalf("diagnostics (warnings included): %v\n%s", res.Diagnostics, res.Text)
	}
	text := string(res.Text)
	for _, want := range []string{
		`open "{{ base_url }}/wiki/doku.php?id={{ urlquery(page_id) }}&do=edit"`,
		`heading = text ["div.page > h1", "xpath=/html/body/div/h1"]`,
		`again = text "xpath=/html/body/div/h1"`, // the page made the id of the heading's text
		`click "#crumb a"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("flow lacks %q:\n%s", want, text)
		}
	}
	// what a path holds goes through urlpath, a value spanning segments bare
	l2 := &Log{}
	l2.Add(Entry{Kind: KindOpen, URL: "http://h.test/r/a b/x/docs/2024/q1?x=1"})
	res2, err := Compile(l2, Meta{Name: "p", Params: []Param{
		{Name: "r", Step: 1, Default: "a b", HasDefault: true},
		{Name: "d", Step: 1, Default: "docs/2024", HasDefault: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `open "{{ base_url }}/r/{{ urlpath(r) }}/x/{{ d }}/q1?x=1"`; !strings.Contains(string(res2.Text), want) {
		t.Errorf("flow lacks %q:\n%s", want, res2.Text)
	}
}

// BenchmarkCompile50 compiles (and checks) a 50-action log: goal < 10 ms.
func BenchmarkCompile50(b *testing.B) {
	l := &Log{}
	l.Add(Entry{Kind: KindOpen, URL: "http://127.0.0.1:8080/login"})
	for i := 0; l.Len() < 50; i++ {
		t := &Element{Selectors: []string{fmt.Sprintf("#f%d", i), fmt.Sprintf(`aria/Field %d[role="textbox"]`, i), fmt.Sprintf("xpath=//form/input[%d]", i+1)}, Desc: fmt.Sprintf(`textbox "Field %d"`, i)}
		switch i % 5 {
		case 0:
			l.Add(Entry{Kind: KindFill, Target: t, Value: "v", Param: fmt.Sprintf("p%d", i)})
		case 1:
			l.Add(Entry{Kind: KindClick, Target: t, NavURL: fmt.Sprintf("http://127.0.0.1:8080/page%d", i)})
		case 2:
			l.Add(Entry{Kind: KindSelect, Target: t, Value: "110000"})
		case 3:
			l.Add(Entry{Kind: KindWait, Text: "Ready"})
		case 4:
			l.Add(Entry{Kind: KindRead, Read: "table", Target: t, As: fmt.Sprintf("t%d", i)})
		}
	}
	m := Meta{Name: "bench", Description: "fifty actions"}
	b.ReportAllocs()
	for b.Loop() {
		out, err := Compile(l, m)
		if err != nil || out.Diagnostics.HasErrors() {
			b.Fatal(err, out.Diagnostics)
		}
	}
}

// TestBaseURLParamReserved: a fill naming param base_url merged into the
// automatic base_url (the field was then filled with the site's address):
// browser_fill refuses the name, a log holding it does not compile, and a
// secret field named base_url gets another param name.
func TestBaseURLParamReserved(t *testing.T) {
	if err := ParamName("base_url"); err == nil {
		t.Error("ParamName(base_url) = nil")
	}
	// a reserved word names no param (the old code let "if" and "page" through: the
	// authored flow then failed its check)
	for _, name := range []string{"if", "page", "len"} {
		if err := ParamName(name); err == nil || !strings.Contains(err.Error(), "reserved") {
			t.Errorf("ParamName(%s) = %v, want reserved", name, err)
		}
	}
	l, m := loadCase(t, filepath.Join("testdata", "compile", "demo_query.json"))
	l.Entries[1].Param = "base_url"
	_, err := Compile(l, m)
	var me *MetaError
	if !errors.As(err, &me) || !strings.Contains(me.Msg, "base_url") {
		t.Errorf("a fill into base_url compiled: %v", err)
	}
	if got := (&Session{}).SecretParamName("base_url"); got == "base_url" {
		t.Errorf("SecretParamName(base_url) = %q", got)
	}
}
