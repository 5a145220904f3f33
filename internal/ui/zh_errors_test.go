package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/internal/host/localctl"
)

// zhPost posts body (JSON when it is not url.Values) to path as a person
// reading Chinese; it returns the status and the body.
func (c *console) zhPost(t *testing.T, lang, path string, body any) (int, string) {
	t.Helper()
	var rd io.Reader
	ct := "application/json"
	if f, ok := body.(url.Values); ok {
		rd, ct = strings.NewReader(f.Encode()), "application/x-www-form-urlencoded"
	} else {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest("POST", c.ts.URL+path, rd)
	req.Header.Set(TokenHeader, c.ui.Token())
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Accept-Language", map[string]string{"zh": "zh-CN,zh;q=0.9", "en": "en"}[lang])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServerErrorsInChinese: what the server says to a person is Chinese
// for a Chinese reader (the checker's diagnostics in the editor and on the
// flows page, the run form's refusals, a tool call's errors, the API's
// errors), with the JSON keys and the machine's fields (severity, summary)
// English; an English reader reads the English.
func TestServerErrorsInChinese(t *testing.T) {
	c := newConsole(t, map[string]string{"greet.flow": crawlGreet, "bad.flow": "flow bad \"坏的\"\n\nclik \"#a\"\n"})
	broken := "flow greet \"x\"\n\nparam who: string\n\nclik \"#a\"\nlog who\n"

	// The editor's check.
	for lang, want := range map[string][]string{
		"zh": {`greet.flow:5:1: 错误：未知的动作 "clik"`, `是不是想写 "click"？`},
		"en": {`greet.flow:5:1: error: unknown action "clik"`, `did you mean "click"?`},
	} {
		code, body := c.zhPost(t, lang, "/api/check", map[string]string{"file": "greet.flow", "text": broken})
		var v struct {
			Diagnostics []map[string]any `json:"diagnostics"`
		}
		if err := json.Unmarshal([]byte(body), &v); code != 200 || err != nil || len(v.Diagnostics) == 0 {
			t.Fatalf("%s check: %d %v %s", lang, code, err, body)
		}
		d := v.Diagnostics[0]
		for _, w := range want {
			if !strings.Contains(d["text"].(string), w) {
				t.Errorf("%s check: no %q in %q", lang, w, d["text"])
			}
		}
		if d["severity"] != "error" || d["summary"] != `unknown action "clik"` {
			t.Errorf("%s check: the machine's fields changed: %v", lang, d)
		}
	}
	// The flows page's problems.
	if html := c.getLang(t, "/flows", "zh-CN"); !strings.Contains(html, "错误：未知的动作 &#34;clik&#34;") {
		t.Errorf("flows page: no Chinese diagnostic in\n%s", html)
	}
	// The API's own errors.
	code, body := c.zhPost(t, "zh", "/api/save", map[string]string{"file": "greet.flow", "text": "x", "hash": "stale"})
	if code != http.StatusConflict || !strings.Contains(body, `"error":`) || strings.Contains(body, "changed since") {
		t.Errorf("save conflict: %d %s", code, body)
	}
	// The run form: a bad profile name, refused before the run.
	code, body = c.zhPost(t, "zh", "/run/greet", url.Values{"a.who": {"Ada"}, "a.token": {"x"}, "profile": {".bad"}})
	if code != http.StatusBadRequest || !strings.Contains(body, "无效的浏览器配置名 &#34;.bad&#34;") {
		t.Errorf("run form, bad profile: %d\n%s", code, body)
	}
	// A tool call the MCP server refuses (a wrong argument's type): the live page says why in Chinese.
	lr, err := c.ui.StartRun("greet", map[string]any{"who": 5, "token": "x"}, "")
	if err != nil {
		t.Fatal(err)
	}
	waitLive(t, lr)
	if o := lr.Outcome(); o == nil || o.Status != "error" || o.CallError == "" {
		t.Fatalf("outcome %+v", o)
	}
	html := c.getLang(t, lr.URL(), "zh-CN")
	if !strings.Contains(html, "参数 &#34;who&#34; 无效：应为 string，实际为 number") {
		t.Errorf("live page of a refused call (%q):\n%s", lr.Outcome().CallError, html)
	}
}

// TestServeNamesItsURL: while a console serves, the local registry names
// its address (without the token) for questions no page takes
// (hitl.Console); it is gone when Serve returns.
func TestServeNamesItsURL(t *testing.T) {
	home := t.TempDir()
	s, err := New(Options{Home: home, FlowsDir: t.TempDir(), Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	want := strings.TrimSuffix(s.URL(), "?t="+s.Token())
	waitFor(t, "the registry names the console", func() bool {
		ents, _ := localctl.List(home, localctl.KindUI)
		return len(ents) == 1 && ents[0].URL == want && !strings.Contains(ents[0].URL, s.Token())
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if ents, _ := localctl.List(home, localctl.KindUI); len(ents) != 0 {
		t.Errorf("still registered: %+v", ents)
	}
}

// TestAskerText: a question card names the flow, the run and the caller
// (its kind in words in Chinese), or the process when the asker said none.
func TestAskerText(t *testing.T) {
	a := hitl.Asker{Flow: "billing", Run: "20261202T081500000-ab12", Caller: "mcp Claude"}
	if got := askerText("en", a, "rpa serve (pid 4)"); got != "flow billing · run 20261202T081500000-ab12 · called by mcp Claude" {
		t.Errorf("en: %q", got)
	}
	if got := askerText("zh", a, "rpa serve (pid 4)"); got != "流程 billing · 运行 20261202T081500000-ab12 · 调用方 MCP Claude" {
		t.Errorf("zh: %q", got)
	}
	if got := askerText("zh", hitl.Asker{}, "rpa serve (pid 4)"); got != "rpa serve (pid 4)" {
		t.Errorf("no asker: %q", got)
	}
}

// TestPickerAndDebugErrorsInChinese: the picker's and the debugger's API errors are said in the
// reader's language, the errors they wrap (an address the picker refuses, arguments a debug run
// refuses) too (apiErrorFor, errText), as the rest of the console's are.
func TestPickerAndDebugErrorsInChinese(t *testing.T) {
	c := newConsole(t, map[string]string{"greet.flow": crawlGreet})
	for _, tc := range []struct {
		path   string
		body   any
		code   int
		zh, en string
		gone   string // English that must not be left in zh ("": no English word at all)
	}{
		{"/api/picker/start", map[string]string{"file": "greet.flow", "url": "javascript:alert(1)"}, http.StatusUnprocessableEntity,
			"拾取器无法打开该地址：\"javascript:alert(1)\"：open 不能打开 \"javascript\" 协议的地址", "The picker cannot open that address: ", "is not one open loads"},
		{"/api/picker/start", map[string]string{"file": "greet.flow", "debug": "nosuch"}, http.StatusNotFound,
			"没有这个调试运行（已结束）", "no such debug run (it ended)", ""},
		{"/api/picker/start", map[string]string{"file": "nosuch.flow"}, http.StatusNotFound, "nosuch.flow", "nosuch.flow", ""},
		{"/api/picker/nosuch/pick", map[string]float64{"x": 1, "y": 1}, http.StatusNotFound,
			"拾取器已关闭；请重新打开。", "The picker is not open any more; open it again.", ""},
		{"/api/debug", map[string]any{"file": "greet.flow", "args": map[string]string{"no_such": "1"}}, http.StatusBadRequest,
			"参数：参数 \"no_such\"：没有这个参数", "the arguments: ", ""},
		{"/api/debug/nosuch/step", map[string]any{}, http.StatusNotFound, "没有这个调试运行（已结束）", "no such debug run (it ended)", ""},
	} {
		for lang, want := range map[string]string{"zh": tc.zh, "en": tc.en} {
			code, body := c.zhPost(t, lang, tc.path, tc.body)
			var v struct {
				Error string `json:"error"`
			}
			if err := json.Unmarshal([]byte(body), &v); err != nil || code != tc.code || !strings.Contains(v.Error, want) {
				t.Errorf("%s %s: %d %s, want %d with %q", lang, tc.path, code, body, tc.code, want)
				continue
			}
			if lang == "zh" && tc.gone != "" && strings.Contains(v.Error, tc.gone) {
				t.Errorf("zh %s: %q left in %q", tc.path, tc.gone, v.Error)
			} else if w := englishIn(v.Error); lang == "zh" && tc.gone == "" && len(w) > 0 {
				t.Errorf("zh %s: English %q left in %q", tc.path, w, v.Error)
			}
		}
	}
}
