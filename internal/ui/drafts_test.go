package ui

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// postForm posts a form as the console's page would (token, same origin) and returns the
// status and the redirect's Location.
func postForm(t *testing.T, ts, tok, path string, form url.Values) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", ts+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set(TokenHeader, tok)
	req.Header.Set("Origin", ts)
	c := &http.Client{CheckRedirect: noRedirect}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location")
}

// TestDraftsAndPublish: in the served folder a save is a draft the Flows page marks "changed
// since publish", with its changes; Publish makes the draft the file and drops it; Discard
// drops it and keeps the file.
func TestDraftsAndPublish(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "hello.flow")
	src := "flow hello \"Say hello\"\n\nlog \"hi\"\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, ts := newTestServer(t, Options{FlowsDir: dir, ServedDir: dir})
	if strings.Contains(getPath(t, ts.URL, s.Token(), "/flows"), "changed since publish") {
		t.Fatal("a flow without a draft marked changed")
	}
	draft := src + "log \"and bye\"\n"
	if code, v := api(t, ts.URL, s.Token(), "/api/save", checkRequest{File: "hello.flow", Text: draft, Hash: hashOf([]byte(src))}); code != 200 || v["draft"] != true {
		t.Fatalf("save: %d %v", code, v)
	}
	page := getPath(t, ts.URL, s.Token(), "/flows")
	if !strings.Contains(page, "changed since publish") || !strings.Contains(page, `href="/flows/hello.flow/changes" aria-label="Changes of hello.flow"`) {
		t.Fatalf("flows page:\n%s", page)
	}
	changes := getPath(t, ts.URL, s.Token(), "/flows/hello.flow/changes")
	if !strings.Contains(changes, `<span class="d-add">&#43;log &#34;and bye&#34;</span>`) || !strings.Contains(changes, "Publish the draft…") {
		t.Fatalf("changes page:\n%s", changes)
	}
	// Publish: the draft becomes the file, the draft goes.
	code, v := api(t, ts.URL, s.Token(), "/api/publish", PublishRequest{File: "hello.flow", Hash: hashOf([]byte(draft)), Name: "hello", Description: "Say hello"})
	if code != 200 {
		t.Fatalf("publish: %d %v", code, v)
	}
	if b, _ := os.ReadFile(p); !strings.Contains(string(b), `log "and bye"`) {
		t.Fatalf("published file: %s", b)
	}
	if _, err := os.Stat(filepath.Join(dir, ".drafts", "hello.flow")); !os.IsNotExist(err) {
		t.Fatalf("draft left after publishing: %v", err)
	}
	if strings.Contains(getPath(t, ts.URL, s.Token(), "/flows"), "changed since publish") {
		t.Fatal("still marked changed after publishing")
	}
	// Discard: the draft goes, the file stays.
	pub, _ := os.ReadFile(p)
	if code, _ := api(t, ts.URL, s.Token(), "/api/save", checkRequest{File: "hello.flow", Text: string(pub) + "# wip\n", Hash: hashOf(pub)}); code != 200 {
		t.Fatal("save 2")
	}
	if code, loc := postForm(t, ts.URL, s.Token(), "/flows/hello.flow/discard", nil); code != 303 || loc != "/flows" {
		t.Fatalf("discard: %d %s", code, loc)
	}
	if b, _ := os.ReadFile(p); string(b) != string(pub) {
		t.Fatal("discard changed the file")
	}
	if _, err := os.Stat(filepath.Join(dir, ".drafts", "hello.flow")); !os.IsNotExist(err) {
		t.Fatal("draft left after discarding")
	}
	if !strings.Contains(getPath(t, ts.URL, s.Token(), "/flows/hello.flow/changes"), "has no draft") {
		t.Fatal("changes of a flow without a draft")
	}
}

// TestNewFlow: New flow makes a draft from the template, listed as a draft and not a tool until
// published; bad names, taken names and bad addresses come back to the form with the reason;
// "from a recording" goes to the Record page.
func TestNewFlow(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "taken.flow"), []byte("flow taken\nlog \"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, ts := newTestServer(t, Options{FlowsDir: dir, ServedDir: dir})
	if !strings.Contains(getPath(t, ts.URL, s.Token(), "/flows"), `href="/flows/new">New flow</a>`) {
		t.Fatal("no New flow on the Flows page")
	}
	form := url.Values{"name": {"usage"}, "description": {"Read the \"usage\" table 用电"}, "template": {"open"}, "url": {"http://127.0.0.1:8080/query"}}
	code, loc := postForm(t, ts.URL, s.Token(), "/flows/new", form)
	if code != 303 || loc != "/flows/usage.flow/edit" {
		t.Fatalf("create: %d %s", code, loc)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".drafts", "usage.flow"))
	if err != nil {
		t.Fatal(err)
	}
	want := "flow usage \"Read the \\\"usage\\\" table 用电\"\n\nparam base_url: string = \"http://127.0.0.1:8080/query\" \"Address of the site\"\n\nopen \"{{ base_url }}\"\n"
	if string(b) != want {
		t.Fatalf("draft:\n%s\nwant:\n%s", b, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "usage.flow")); !os.IsNotExist(err) {
		t.Fatal("a new flow was written to the served folder before publishing")
	}
	fl := s.FlowList()
	var nf *FlowInfo
	for i := range fl {
		if fl[i].File == "usage.flow" {
			nf = &fl[i]
		}
	}
	if nf == nil || !nf.New || !nf.Loads || nf.Published || nf.Name != "usage" {
		t.Fatalf("listed as %+v", nf)
	}
	if !strings.Contains(getPath(t, ts.URL, s.Token(), "/flows"), "draft, not published") {
		t.Fatal("flows page does not mark the draft")
	}
	edit := getPath(t, ts.URL, s.Token(), "/flows/usage.flow/edit")
	if !strings.Contains(edit, "This flow is a draft") || !strings.Contains(edit, "open &#34;{{ base_url }}&#34;") {
		t.Fatalf("editor:\n%s", edit)
	}
	// The editor checks a new flow's text as it is typed (it is a draft only).
	if code, v := api(t, ts.URL, s.Token(), "/api/check", checkRequest{File: "usage.flow", Text: "flow usage\nopen 1 2\n"}); code != 200 || !strings.Contains(fmt.Sprint(v["diagnostics"]), "usage.flow:2") {
		t.Fatalf("check of a new flow: %d %v", code, v)
	}
	// A tool name past MCP's 128 characters is refused, the field named.
	long := "a" + strings.Repeat("b", 120)
	if code, v := api(t, ts.URL, s.Token(), "/api/publish", PublishRequest{File: "usage.flow", Hash: hashOf(b), Name: long}); code != 400 || v["field"] != "name" ||
		!strings.Contains(fmt.Sprint(v["error"]), "too long (121 characters; at most 119") {
		t.Fatalf("publish under a name too long: %d %v", code, v)
	}
	// Publish makes the file; no draft stays.
	code, v := api(t, ts.URL, s.Token(), "/api/publish", PublishRequest{File: "usage.flow", Hash: hashOf(b), Name: "usage", Description: "Read the usage table"})
	if code != 200 || v["file"] != "usage.flow" {
		t.Fatalf("publish: %d %v", code, v)
	}
	if _, err := os.Stat(filepath.Join(dir, "usage.flow")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".drafts", "usage.flow")); !os.IsNotExist(err) {
		t.Fatal("draft left")
	}
	for _, tc := range []struct {
		form url.Values
		want string
	}{
		{url.Values{"name": {"Bad Name"}, "template": {"open"}, "url": {"http://x"}}, "must start with a lower-case letter"},
		{url.Values{"name": {long}, "template": {"open"}, "url": {"http://x"}}, "too long (121 characters; at most 119"},
		{url.Values{"name": {"taken"}, "template": {"open"}, "url": {"http://x"}}, "taken.flow already exists"},
		{url.Values{"name": {"usage"}, "template": {"open"}, "url": {"http://x"}}, "usage.flow already exists"},
		{url.Values{"name": {"fresh"}, "template": {"open"}, "url": {"file:///etc/passwd"}}, "must start with http://"},
	} {
		code, loc := postForm(t, ts.URL, s.Token(), "/flows/new", tc.form)
		u, _ := url.Parse(loc)
		if code != 303 || u.Path != "/flows/new" || !strings.Contains(u.Query().Get("e"), tc.want) {
			t.Errorf("%v: %d %s", tc.form, code, loc)
		}
		if page := getPath(t, ts.URL, s.Token(), loc); !strings.Contains(page, `role="alert"`) {
			t.Errorf("%v: the form does not show the reason", tc.form)
		}
	}
	code, loc = postForm(t, ts.URL, s.Token(), "/flows/new", url.Values{"name": {"rec"}, "template": {"record"}, "url": {"http://x/"}})
	if code != 303 || loc != "/record?name=rec&url=http%3A%2F%2Fx%2F" {
		t.Fatalf("record: %d %s", code, loc)
	}
}

// TestDraftLinkIgnored: a link planted in the drafts' folder is no draft: the editor never shows
// the file it points to.
func TestDraftLinkIgnored(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.flow"), []byte("flow hello\nlog \"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "key.flow")
	if err := os.WriteFile(secret, []byte("flow key\nlog \"PRIVATE-KEY-TEXT\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".drafts"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"hello.flow", "new.flow"} {
		if err := os.Symlink(secret, filepath.Join(dir, ".drafts", name)); err != nil {
			t.Skip("no symlinks here:", err)
		}
	}
	s, ts := newTestServer(t, Options{FlowsDir: dir, ServedDir: dir})
	if page := getPath(t, ts.URL, s.Token(), "/flows/hello.flow/edit"); strings.Contains(page, "PRIVATE-KEY-TEXT") {
		t.Fatal("the editor shows a linked draft's target")
	}
	if page := getPath(t, ts.URL, s.Token(), "/flows/new.flow/edit"); strings.Contains(page, "PRIVATE-KEY-TEXT") {
		t.Fatal("the editor shows a linked new draft's target")
	}
	if page := getPath(t, ts.URL, s.Token(), "/flows"); strings.Contains(page, "key.flow") || strings.Contains(page, "new.flow") {
		t.Fatal("the flows page lists a linked draft")
	}
}
