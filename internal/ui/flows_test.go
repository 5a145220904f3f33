package ui

import (
	"encoding/json"
	"github.com/rpa-dev/rpa/internal/msg"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
)

// api posts body as JSON to path with the token header and decodes the answer.
func api(t *testing.T, ts string, tok, path string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", ts+path, strings.NewReader(string(b)))
	req.Header.Set(TokenHeader, tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %d %s", path, resp.StatusCode, raw)
	}
	return resp.StatusCode, v
}

const helloFlow = `# greeting, kept by publishing
flow hello "Say hello"

param who: string = "world" "Whom to greet"
param times: int = 1 # how often
param loud: bool = false
param tags: list = ["a"]
param password: secret "Not used"

log "hello " + who # trailing
`

func TestEditorCheckAndSave(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "hello.flow")
	if err := os.WriteFile(p, []byte(helloFlow), 0o640); err != nil {
		t.Fatal(err)
	}
	s, ts := newTestServer(t, Options{FlowsDir: dir, ServedDir: dir})
	fi, src, ok := s.FlowFile("hello.flow")
	if !ok || !fi.Loads || !fi.Published || len(fi.Params) != 5 {
		t.Fatalf("FlowFile: %+v %v", fi, ok)
	}
	// Check as you type: a typo gives an error at its line, with the caret text.
	code, v := api(t, ts.URL, s.Token(), "/api/check", checkRequest{File: "hello.flow", Text: strings.Replace(helloFlow, "log ", "lgo ", 1)})
	ds, _ := v["diagnostics"].([]any)
	if code != 200 || len(ds) == 0 {
		t.Fatalf("check: %d %v", code, v)
	}
	d := ds[0].(map[string]any)
	if d["line"].(float64) != 10 || !strings.Contains(d["text"].(string), "hello.flow:10:1") || !strings.Contains(d["text"].(string), "^") {
		t.Errorf("diagnostic: %v", d)
	}
	// Path tricks are not flow files of the folder.
	for _, f := range []string{"../hello.flow", "/etc/passwd", ".hidden.flow", "hello.txt", ""} {
		if code, _ := api(t, ts.URL, s.Token(), "/api/check", checkRequest{File: f, Text: "x"}); code != 404 {
			t.Errorf("check %q: %d", f, code)
		}
	}
	// Save with the hash of what was loaded: the served folder keeps the published file, the
	// text goes to the flow's draft (drafts.go).
	fixed := strings.Replace(helloFlow, `"Say hello"`, `"Say hello nicely"`, 1)
	code, v = api(t, ts.URL, s.Token(), "/api/save", checkRequest{File: "hello.flow", Text: fixed, Hash: hashOf(src)})
	if code != 200 || v["hash"] != hashOf([]byte(fixed)) || v["draft"] != true {
		t.Fatalf("save: %d %v", code, v)
	}
	draft := filepath.Join(dir, ".drafts", "hello.flow")
	if b, _ := os.ReadFile(p); string(b) != helloFlow {
		t.Fatalf("the published file changed: %s", b)
	}
	if b, _ := os.ReadFile(draft); string(b) != fixed {
		t.Fatalf("draft: %s", b)
	}
	if st, _ := os.Stat(draft); st.Mode().Perm() != 0o600 {
		t.Errorf("draft mode %v", st.Mode().Perm())
	}
	// The draft changed on disk since: refused, the disk kept.
	if err := os.WriteFile(draft, []byte(fixed+"# edited elsewhere\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, v = api(t, ts.URL, s.Token(), "/api/save", checkRequest{File: "hello.flow", Text: "flow hello\n", Hash: hashOf([]byte(fixed))})
	if code != http.StatusConflict || !strings.Contains(v["error"].(string), "changed on disk") {
		t.Fatalf("stale save: %d %v", code, v)
	}
	if b, _ := os.ReadFile(draft); !strings.Contains(string(b), "edited elsewhere") {
		t.Fatal("a stale save overwrote the draft")
	}
	// The editor page shows the draft's text (escaped) with its hash, and says it is a draft.
	page := getPath(t, ts.URL, s.Token(), "/flows/hello.flow/edit")
	if !strings.Contains(page, "# edited elsewhere") || !strings.Contains(page, `data-hash="`) || !strings.Contains(page, `id="draft-note"`) {
		t.Errorf("editor page:\n%s", page)
	}
	// Saving the published text again leaves no draft.
	code, v = api(t, ts.URL, s.Token(), "/api/save", checkRequest{File: "hello.flow", Text: helloFlow, Hash: hashOf([]byte(fixed + "# edited elsewhere\n"))})
	if code != 200 || v["draft"] != false {
		t.Fatalf("save back: %d %v", code, v)
	}
	if _, err := os.Stat(draft); !os.IsNotExist(err) {
		t.Fatalf("draft left: %v", err)
	}
	// With --publish-to (another served folder) Save writes the file, mode kept.
	other := t.TempDir()
	s2, ts2 := newTestServer(t, Options{FlowsDir: dir, ServedDir: other})
	_ = s2
	code, v = api(t, ts2.URL, s2.Token(), "/api/save", checkRequest{File: "hello.flow", Text: fixed, Hash: hashOf([]byte(helloFlow))})
	if code != 200 || v["draft"] != false {
		t.Fatalf("save to the file: %d %v", code, v)
	}
	if b, _ := os.ReadFile(p); string(b) != fixed {
		t.Fatalf("file: %s", b)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
}

// getPath fetches path with the token header.
func getPath(t *testing.T, ts, tok, path string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", ts+path, nil)
	req.Header.Set(TokenHeader, tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func TestPublishAPI(t *testing.T) {
	work, served := t.TempDir(), t.TempDir()
	p := filepath.Join(work, "hello.flow")
	if err := os.WriteFile(p, []byte(helloFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	yml := "flow: tally\ndescription: Count\nparams:\n  - {name: n, type: int, default: 2, description: How many}\nsteps:\n  - log: \"{{ n }}\"\n"
	if err := os.WriteFile(filepath.Join(work, "tally.yaml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	s, ts := newTestServer(t, Options{FlowsDir: work, ServedDir: served})
	if fl := s.FlowList(); len(fl) != 2 || fl[0].Published || fl[1].Published {
		t.Fatalf("before: %+v", fl)
	}
	hash := hashOf([]byte(helloFlow))
	bad := []struct {
		name  string
		req   PublishRequest
		code  int
		field string
	}{
		{"bad name", PublishRequest{Name: "Hello World"}, 400, "name"},
		{"unknown param", PublishRequest{Name: "hello", Params: []ParamEdit{{Name: "nope"}}}, 400, "param.nope"},
		{"int default", PublishRequest{Name: "hello", Params: []ParamEdit{{Name: "times", Default: "two"}}}, 400, "default.times"},
		{"empty int default", PublishRequest{Name: "hello", Params: []ParamEdit{{Name: "times", Default: ""}}}, 400, "default.times"},
		{"secret default", PublishRequest{Name: "hello", Params: []ParamEdit{{Name: "password", Default: "x"}}}, 400, "default.password"},
		{"list default", PublishRequest{Name: "hello", Params: []ParamEdit{{Name: "tags", Default: "[1,"}}}, 400, "default.tags"},
		{"braces", PublishRequest{Name: "hello", Params: []ParamEdit{{Name: "who", Default: "{{ x }}"}}}, 400, "default.who"},
	}
	for _, tc := range bad {
		tc.req.File, tc.req.Hash = "hello.flow", hash
		code, v := api(t, ts.URL, s.Token(), "/api/publish", tc.req)
		if code != tc.code || v["field"] != tc.field {
			t.Errorf("%s: %d %v", tc.name, code, v)
		}
	}
	if code, _ := api(t, ts.URL, s.Token(), "/api/publish", PublishRequest{File: "hello.flow", Hash: "stale", Name: "hello"}); code != 409 {
		t.Errorf("stale hash: %d", code)
	}
	if ents, _ := os.ReadDir(served); len(ents) != 0 {
		t.Fatalf("a refused publish wrote %v", ents)
	}
	// Publish with new texts and defaults: the served folder gets NAME.flow, comments kept, the
	// working copy the same text.
	code, v := api(t, ts.URL, s.Token(), "/api/publish", PublishRequest{File: "hello.flow", Hash: hash, Name: "greet", Description: "Greet someone",
		Params: []ParamEdit{{Name: "who", Description: "Name", Default: `Ada "the first"`}, {Name: "times", Default: "3"},
			{Name: "loud", Required: true}, {Name: "tags", Default: `["x", "y"]`}, {Name: "password", Description: "Still secret"}}})
	if code != 200 || v["tool"] != "workflow_greet" {
		t.Fatalf("publish: %d %v", code, v)
	}
	out, err := os.ReadFile(filepath.Join(served, "greet.flow"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# greeting, kept by publishing", `flow greet "Greet someone"`, `param who: string = "Ada \"the first\"" "Name"`,
		"param times: int = 3 # how often", "param loud: bool\n", `param tags: list = ["x", "y"]`, `param password: secret "Still secret"`, "# trailing"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("published text lacks %q:\n%s", want, out)
		}
	}
	if w, _ := os.ReadFile(p); string(w) != string(out) {
		t.Errorf("the working copy differs from what was published:\n%s", w)
	}
	if fl := s.FlowList(); !fl[0].Published {
		t.Errorf("after: %+v", fl[0])
	}
	// A YAML flow publishes as canonical YAML.
	code, v = api(t, ts.URL, s.Token(), "/api/publish", PublishRequest{File: "tally.yaml", Hash: hashOf([]byte(yml)), Name: "tally", Description: "Count things",
		Params: []ParamEdit{{Name: "n", Description: "How many", Default: "5"}}})
	if code != 200 {
		t.Fatalf("publish yaml: %d %v", code, v)
	}
	if y, _ := os.ReadFile(filepath.Join(served, "tally.yaml")); !strings.Contains(string(y), "Count things") || !strings.Contains(string(y), "5") {
		t.Errorf("yaml: %s", y)
	}
	// Taken NAME: refused with the reason.
	if err := os.WriteFile(filepath.Join(work, "other.flow"), []byte("flow other\n\nlog \"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(served, "taken.flow"), []byte("flow other\n\nlog \"y\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, v = api(t, ts.URL, s.Token(), "/api/publish", PublishRequest{File: "other.flow", Hash: hashOf([]byte("flow other\n\nlog \"x\"\n")), Name: "other"})
	if code != 422 || !strings.Contains(v["error"].(string), "already declares") {
		t.Errorf("taken: %d %v", code, v)
	}
}

// TestTextsComplete checks that every text key the templates and the Go files of the package use
// is registered (RegisterText panics at init on a missing language), and that each page renders
// in Chinese without a missing key.
func TestTextsComplete(t *testing.T) {
	known := map[string]bool{}
	for _, k := range TextKeys() {
		known[k] = true
	}
	reTpl := regexp.MustCompile(`\.T "([a-z0-9_.]+)"`)
	reGo := regexp.MustCompile(`(?:\.T\(r, |Translate\((?:lg|lang|v\.Lang), |RenderError\(w, r, [^,]+, |Title: )"([a-z0-9_.]+)"`)
	check := func(name string, re *regexp.Regexp, b []byte) {
		for _, m := range re.FindAllSubmatch(b, -1) {
			if k := string(m[1]); !known[k] && !strings.HasSuffix(k, ".") { // a prefix completed at run time
				t.Errorf("%s uses text %q, which is not registered", name, m[1])
			}
		}
	}
	err := fs.WalkDir(templateFS, "templates", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := templateFS.ReadFile(p)
		check(p, reTpl, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	gos, _ := filepath.Glob("*.go")
	for _, g := range gos {
		if strings.HasSuffix(g, "_test.go") {
			continue
		}
		b, _ := os.ReadFile(g)
		check(g, reGo, b)
	}
	// Every page of the nav, rendered in Chinese, has no missing text.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.flow"), []byte(helloFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	s, ts := newTestServer(t, Options{FlowsDir: dir})
	paths := []string{"/flows/hello.flow/edit", "/run/hello", "/live/nope", "/flows"}
	for _, p := range Pages() {
		paths = append(paths, p.Path)
	}
	for _, p := range paths {
		req, _ := http.NewRequest("GET", ts.URL+p, nil)
		req.Header.Set(TokenHeader, s.Token())
		req.Header.Set("Accept-Language", "zh-CN,zh;q=0.9")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), "‹") {
			t.Errorf("%s in Chinese has a missing text: %s", p, regexp.MustCompile(`‹[^›]*›`).FindString(string(b)))
		}
		if !strings.Contains(string(b), `lang="zh-CN"`) && resp.StatusCode == 200 {
			t.Errorf("%s is not in Chinese", p)
		}
	}
}

// TestPublishInPlace publishes in the served folder itself: in place, and under a new NAME the
// file follows the name (the old file goes, so the old tool does not stay).
func TestPublishInPlace(t *testing.T) {
	dir := t.TempDir()
	src := "flow hello \"Say hello\"\n\nlog \"hi\" # keep me\n"
	if err := os.WriteFile(filepath.Join(dir, "hello.flow"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, ts := newTestServer(t, Options{FlowsDir: dir, ServedDir: dir})
	code, v := api(t, ts.URL, s.Token(), "/api/publish", PublishRequest{File: "hello.flow", Hash: hashOf([]byte(src)), Name: "hello", Description: "Greet"})
	if code != 200 || v["file"] != "hello.flow" {
		t.Fatalf("in place: %d %v", code, v)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "hello.flow"))
	if !strings.Contains(string(b), `flow hello "Greet"`) || !strings.Contains(string(b), "# keep me") {
		t.Fatalf("in place: %s", b)
	}
	code, v = api(t, ts.URL, s.Token(), "/api/publish", PublishRequest{File: "hello.flow", Hash: hashOf(b), Name: "greet", Description: "Greet"})
	if code != 200 || v["file"] != "greet.flow" {
		t.Fatalf("renamed: %d %v", code, v)
	}
	if _, err := os.Stat(filepath.Join(dir, "hello.flow")); !os.IsNotExist(err) {
		t.Errorf("the old file stays: %v", err)
	}
	if fl := s.FlowList(); len(fl) != 1 || fl[0].Name != "greet" || !fl[0].Published {
		t.Errorf("after the rename: %+v", fl)
	}
}

func FuzzDecodeOrdered(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,null,"x"]}`, `[]`, `"s"`, `{"a":{"b":{}}}`, `{"a":1,"a":2}`, `[1,`, `{"a" 1}`, `1 2`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := decodeOrdered([]byte(s))
		if valid := json.Valid([]byte(s)); valid != (err == nil) {
			t.Fatalf("%q: valid %v, err %v", s, valid, err)
		}
		if err == nil {
			// Back to plain JSON: the same value as encoding/json reads.
			var want, got any
			if json.Unmarshal([]byte(s), &want) != nil {
				return // a number beyond float64
			}
			a, err := json.Marshal(plain(v))
			if err != nil || json.Unmarshal(a, &got) != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: %s (%v), want %v", s, a, err, want)
			}
		}
	})
}

func FuzzAcceptLang(f *testing.F) {
	for _, s := range []string{"zh-CN,zh;q=0.9", "en;q=0.1, zh;q=0.2", ";;q=", "*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if l := acceptLang(s); l != "zh" && l != "en" {
			t.Fatalf("%q: %q", s, l)
		}
	})
}

// TestRunFormErrorKeepsNoSecret posts the Run form with a mistake: the form comes back with the
// error and the values typed, except the secret, which shows nowhere (page, log).
func TestRunFormErrorKeepsNoSecret(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.flow"), []byte(helloFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(mcpserver.Options{FlowsDir: dir, NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	var lg lockedLog
	s, ts := newTestServer(t, Options{FlowsDir: dir, Tools: srv, Log: &lg})
	const secret = "S3cret-typed-in-form"
	form := url.Values{"a.who": {"Ada"}, "a.times": {"many"}, "a.password": {secret}, "a.tags": {`["t"]`}}
	req, _ := http.NewRequest("POST", ts.URL+"/run/hello", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set(TokenHeader, s.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(b)
	if resp.StatusCode != 400 || !strings.Contains(page, "times: not a whole number") || !strings.Contains(page, `value="Ada"`) {
		t.Fatalf("%d\n%s", resp.StatusCode, page)
	}
	if strings.Contains(page, secret) || strings.Contains(lg.String(), secret) {
		t.Error("the secret came back in the page or the log")
	}
	// The form of the schema: types, a password input, no resume or profile argument.
	page = getPath(t, ts.URL, s.Token(), "/run/hello")
	for _, want := range []string{`type="password"`, `type="number"`, `type="checkbox"`, `name="a.tags"`, `id="profile"`} {
		if !strings.Contains(page, want) {
			t.Errorf("run form lacks %s", want)
		}
	}
	for _, not := range []string{"a.resumeRunId", "a.profileId"} {
		if strings.Contains(page, not) {
			t.Errorf("run form has %s", not)
		}
	}
}

// TestCatalog: every message of rpa's catalog (the console's, the report's, the failure
// packet's, the command line's: this package links them all) has both languages with the same
// format verbs (msg.Check).
func TestCatalog(t *testing.T) {
	for _, p := range msg.Check() {
		t.Error(p)
	}
}
