package ui

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/schedule"
)

// crawlHello is a flow that needs no page: its run ends at once with an output table. The
// crawl's flows are a Chinese author's: their descriptions are Chinese.
const crawlHello = `flow hello "用表格问好"

param who: string = "world" "问候谁"

log "hello " + who
return {"rows": [{"name": who, "greeting": "hello"}]}
`

// crawlGreet is runsFlow (the runs recordRun writes are its) with Chinese descriptions.
var crawlGreet = strings.NewReplacer(`"Greets someone on the demo page"`, `"在演示页面上问候某人"`,
	`"Whom to greet"`, `"问候谁"`, `"An API token"`, `"接口令牌"`).Replace(runsFlow)

// crawlAuthored are the flows' own words: an English page shows them as the author wrote them.
var crawlAuthored = strings.NewReplacer("在演示页面上问候某人", "", "问候谁", "", "接口令牌", "", "用表格问好", "")

// crawlPage is one address the crawl visits.
type crawlPage struct{ name, path string }

// crawlVisible collects what a person sees on the page (text nodes of rendered
// elements, the placeholders, titles, accessible labels and alt texts of
// rendered elements, the options of rendered selects, the document's title),
// leaving out code (code, pre, kbd, samp, textarea) and what is marked
// translate="no".
const crawlVisible = `() => {
  const out = [document.title];
  const code = "code, pre, kbd, samp, textarea, script, style, [translate=no]";
  const shown = (el) => el.checkVisibility ? el.checkVisibility({visibilityProperty: true}) : el.getClientRects().length > 0;
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    const t = n.textContent.trim();
    if (!t || !el || el.closest(code)) continue;
    if (el.closest("option") ? shown(el.closest("select")) : shown(el)) out.push(t);
  }
  for (const el of document.body.querySelectorAll("[placeholder], [title], [aria-label], [alt], input[type=submit], input[type=button]")) {
    if (el.closest(code) && el.tagName !== "TEXTAREA" || !shown(el)) continue;
    for (const a of ["placeholder", "title", "aria-label", "alt"]) if (el.getAttribute(a)) out.push(el.getAttribute(a));
    if (el.tagName === "INPUT" && (el.type === "submit" || el.type === "button")) out.push(el.value);
  }
  return out;
}`

// crawlNames are the words a Chinese page may show in Latin letters: proper
// names, units and formats, the test's flow, param and tool names.
var crawlNames = map[string]bool{
	"rpa": true, "MCP": true, "Chromium": true, "Chrome": true, "JSON": true, "CSV": true, "XLSX": true,
	"YAML": true, "HTTP": true, "URL": true, "ID": true, "TOTP": true, "Excel": true, "English": true,
	"DevTools": true, "Cookie": true, "ms": true, "pid": true, "csv": true, "xlsx": true, "otpauth": true,
	// the language's words (types, statements) and the default profile's name
	"string": true, "secret": true, "credential": true, "int": true, "bool": true, "default": true,
	// the test's folder: flow, param, output and schedule names, values
	"greet": true, "hello": true, "who": true, "token": true, "rows": true, "name": true, "greeting": true,
	"world": true, "Ada": true, "Bob": true, "nightly": true,
}

var (
	// crawlCodeLike are spans that are code, not prose: URLs, paths, file
	// names, run IDs, identifiers with _ . - / or digits, key=value.
	crawlCodeLike = []*regexp.Regexp{
		regexp.MustCompile("`[^`]+`"),
		regexp.MustCompile(`\S+\.(flow|ya?ml|png|html|csv|xlsx|json)\b`),
		regexp.MustCompile(`\b[a-z]+\.[A-Za-z_]+\b`),
		regexp.MustCompile(`\brpa (run|runs|serve|ui|heal|vault|schedule|doctor|record|connect|gateway|publish|check|fmt|import|demo)( [a-z]+)?( (-{1,2}[\w.-]+|[A-Z][\w.]*|"[^"]*"))*`),
		regexp.MustCompile(`\b[A-Z][A-Z0-9_]+\b`),
		regexp.MustCompile(`(^|\s)--?[a-z][\w-]*`),
		regexp.MustCompile(`\b\w+(-\w+)+\b`),
		regexp.MustCompile(`\$[A-Z]+`),
		regexp.MustCompile(`(https?|rpa|otpauth)://\S*`),
		regexp.MustCompile(`[$~]?[\w.-]*/[\w./$…-]+`),
		regexp.MustCompile(`\d{8}T\d{9}-[0-9a-f]{4}`),
		regexp.MustCompile(`\b\w*[_\d]\w*\b`),
		regexp.MustCompile(`#[\w-]+`),
		regexp.MustCompile(`\S+@\S+`),
	}
	crawlWord = regexp.MustCompile(`[A-Za-z]{2,}`)
)

// englishIn returns the words of s that are English prose (what is left
// after the names and the code-like spans are taken out).
func englishIn(s string) []string {
	for _, re := range crawlCodeLike {
		s = re.ReplaceAllString(s, " ")
	}
	var out []string
	for _, w := range crawlWord.FindAllString(s, -1) {
		if !crawlNames[w] {
			out = append(out, w)
		}
	}
	return out
}

// crawlPages are the concrete addresses of every GET route of the console
// (the registry's, so a new page is visited without editing this test): a
// {param} takes its value from values, by the route's first path segment and
// the param's name; a route that answers with something other than HTML
// (events, screenshots, exports, static files, JSON) is not a page and is
// left out. A route with a param the crawl has no value for fails the test.
func crawlPages(t *testing.T, c *console, values map[string][]string, labels *strings.Replacer) []crawlPage {
	t.Helper()
	registry.mu.Lock()
	routes := append([]route(nil), registry.routes...)
	registry.mu.Unlock()
	param := regexp.MustCompile(`\{(\w+)(\.\.\.)?\}`)
	var out []crawlPage
	for _, rt := range routes {
		method, path, _ := strings.Cut(rt.pattern, " ")
		if method != "GET" {
			continue
		}
		if strings.HasSuffix(path, "/") && path != "/" { // a subtree: /static/
			continue
		}
		path = strings.TrimSuffix(path, "{$}")
		seg, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
		paths := []string{path}
		for _, m := range param.FindAllStringSubmatch(path, -1) {
			vs, ok := values[seg+"."+m[1]]
			if !ok {
				t.Errorf("route %q: the crawl has no value for {%s}: add %q to the values of TestConsoleCrawlZh", rt.pattern, m[1], seg+"."+m[1])
				paths = nil
				break
			}
			var next []string
			for _, p := range paths {
				for _, v := range vs {
					next = append(next, strings.Replace(p, m[0], v, 1))
				}
			}
			paths = next
		}
		for _, p := range paths {
			if ct := c.contentType(t, p); !strings.HasPrefix(ct, "text/html") {
				t.Logf("not a page: %s (%s): %s", rt.pattern, p, ct)
				continue
			}
			name := strings.Trim(regexp.MustCompile(`[^\w]+`).ReplaceAllString(labels.Replace(p), "_"), "_")
			if name == "" {
				name = "root"
			}
			out = append(out, crawlPage{name, p})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// TestEnglishIn: what the crawl calls English prose, and what it lets pass.
func TestEnglishIn(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"没有运行记录。", ""},
		{"No run yet.", "No run yet"},
		{"找不到元素，第 7 行：no element matches", "no element matches"},
		{"用 rpa schedule add 名称 流程 --cron 添加", ""},
		{"打开 http://127.0.0.1:8080/x?t=1 或 $HOME/flows/a.flow", ""},
		{"运行 20261202T073427639-c073 · workflow_greet · MCP · DISPLAY", ""},
		{"调用方 cli", "cli"},
		{"表格 rows：3 行", ""},
	} {
		if got := strings.Join(englishIn(c.in), " "); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}

// contentType is the Content-Type a GET of path answers with (the body is not
// read: an event stream answers its headers at once).
func (c *console) contentType(t *testing.T, path string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", c.ts.URL+path, nil)
	req.Header.Set(TokenHeader, c.ui.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		t.Errorf("GET %s: %s", path, resp.Status)
	}
	return resp.Header.Get("Content-Type")
}

// TestConsoleCrawlZh visits every page of the console (every GET route the
// console registers, in the states a person meets: flows with a draft, a
// finished live run, ok and failed stored runs, a schedule) in real Chromium,
// in Chinese and in English. In Chinese no visible text may be English prose
// (proper names, flow and param names, code, URLs and paths are allowed); in
// English no text may be Chinese; in neither may a text be missing from the
// catalog (‹key›). Each page's screenshot is written to $RPA_TEST_ARTIFACTS/crawl
// (a temporary folder without it).
func TestConsoleCrawlZh(t *testing.T) {
	c := newConsole(t, map[string]string{"greet.flow": crawlGreet, "hello.flow": crawlHello})
	// A draft of hello: its Changes page.
	if err := os.MkdirAll(filepath.Join(c.dir, ".drafts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.dir, ".drafts", "hello.flow"), []byte(strings.Replace(crawlHello, `"world"`, `"Ada"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	okID := recordRun(t, c.home, runs.StatusOK, map[string]any{"who": "Ada", "token": "***"})
	failID := recordRun(t, c.home, runs.StatusFailed, map[string]any{"who": "Bob", "token": "***"})
	st, err := runs.OpenHome(c.home, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	d := schedule.Def{Name: "nightly", Cron: "30 2 * * *", Retries: 2}
	if err := schedule.Prepare(&d, "hello", c.dir, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := schedule.Add(st, &d, time.Now()); err != nil {
		t.Fatal(err)
	}
	st.Close()
	// A live run of hello, finished.
	lr, err := c.ui.StartRun("hello", map[string]any{"who": "Ada"}, "")
	if err != nil {
		t.Fatal(err)
	}
	waitLive(t, lr)
	if o := lr.Outcome(); o == nil || o.Status != runs.StatusOK {
		t.Fatalf("the live run: %+v", o)
	}
	pages := crawlPages(t, c, map[string][]string{
		"api.id":     {"none"}, // the picker's frames: an event stream, not a page
		"api.n":      {"1"},    // a debug run's picture: an image, not a page
		"flows.file": {"greet.flow", "hello.flow"},
		"heal.file":  {"greet.flow"},
		"live.id":    {lr.ID},
		"run.name":   {"greet"},
		"runs.id":    {okID, failID},
	}, strings.NewReplacer(okID, "ok", failID, "failed", lr.ID, "hello"))
	if len(pages) < 15 {
		t.Fatalf("the crawl found %d pages: %v", len(pages), pages)
	}

	shots := filepath.Join(t.TempDir(), "crawl")
	if d := os.Getenv("RPA_TEST_ARTIFACTS"); d != "" {
		shots = filepath.Join(d, "crawl")
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/flows?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"zh", "en"} {
		click(t, pg, "button", map[string]string{"zh": "中文", "en": "English"}[lang])
		el(t, pg, "button", map[string]string{"zh": "中文", "en": "English"}[lang]) // the page after the switch
		for _, p := range pages {
			crawlOne(t, pg, c, lang, p, shots)
		}
	}
	t.Logf("%d pages in two languages; screenshots in %s", len(pages), shots)
}

// waitLive waits for lr's end.
func waitLive(t *testing.T, lr *LiveRun) {
	t.Helper()
	for {
		_, done, wake := lr.Events(0)
		if done {
			break
		}
		select {
		case <-wake:
		case <-step(t).Done():
			t.Fatal("the live run did not end")
		}
	}
}

// crawlOne visits one page in lang and checks its visible texts.
func crawlOne(t *testing.T, pg drivers.Page, c *console, lang string, p crawlPage, shots string) {
	t.Helper()
	ctx := step(t)
	if err := pg.Navigate(ctx, c.ts.URL+p.path); err != nil {
		t.Fatalf("%s: %v", p.path, err)
	}
	if h, err := pg.Eval(ctx, `() => document.documentElement.lang`); err != nil || (lang == "zh") != strings.HasPrefix(fmt.Sprint(h), "zh") {
		t.Errorf("%s [%s]: the page's lang is %v (%v)", p.path, lang, h, err)
	}
	v, err := pg.Eval(ctx, crawlVisible)
	if err != nil {
		t.Fatalf("%s: %v", p.path, err)
	}
	texts, _ := v.([]any)
	if len(texts) < 3 {
		t.Errorf("%s [%s]: only %d texts: %v", p.path, lang, len(texts), texts)
	}
	bad := map[string]bool{}
	for _, x := range texts {
		s, _ := x.(string)
		s = c.redact(s)
		if strings.Contains(s, "‹") {
			bad["a text missing from the catalog: "+s] = true
		}
		switch lang {
		case "zh":
			if w := englishIn(s); len(w) > 0 {
				bad[fmt.Sprintf("%q (%s)", s, strings.Join(w, " "))] = true
			}
		case "en":
			if strings.IndexFunc(crawlAuthored.Replace(s), func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0 && s != "中文" {
				bad[fmt.Sprintf("%q (Chinese)", s)] = true
			}
		}
	}
	var list []string
	for s := range bad {
		list = append(list, s)
	}
	sort.Strings(list)
	for _, s := range list {
		t.Errorf("%s [%s]: %s", p.path, lang, s)
	}
	shot, err := pg.Screenshot(ctx, true)
	if err != nil {
		t.Fatalf("%s: screenshot: %v", p.path, err)
	}
	if err := os.WriteFile(filepath.Join(shots, lang+"-"+p.name+".png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
}

// redact replaces the test's folders in s (paths are code, not prose).
func (c *console) redact(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, c.dir, "$FLOWS"), c.home, "$HOME")
}
