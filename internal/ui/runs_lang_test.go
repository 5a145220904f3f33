package ui

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/runs"
)

// TestMyPagesInChinese renders the runs, questions, status and record pages
// in Chinese: every string comes from the registry (no ‹key›) and the page
// titles are the Chinese ones.
func TestMyPagesInChinese(t *testing.T) {
	c := newConsole(t, map[string]string{"greet.flow": runsFlow})
	id := recordRun(t, c.home, runs.StatusFailed, map[string]any{"who": "Ada", "token": "***"})
	for path, want := range map[string]string{
		"/runs":             "运行记录",
		"/runs/" + id:       "打开报告",
		"/heal/greet.flow":  "greet 的自愈建议",
		"/questions":        "没有等待回答的问题。",
		"/status":           "浏览器配置",
		"/record":           "开始录制",
		"/runs?status=ok":   "没有符合条件的运行记录。",
		"/runs/" + id + "x": "不是运行记录编号",
	} {
		req, _ := http.NewRequest("GET", c.ts.URL+path, nil)
		req.Header.Set(TokenHeader, c.ui.Token())
		req.Header.Set("Accept-Language", "zh-CN,zh;q=0.9,en;q=0.5")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		html := string(b)
		if !strings.Contains(html, want) {
			t.Errorf("%s: no %q in\n%.600s", path, want, html)
		}
		if i := strings.Index(html, "‹"); i >= 0 {
			t.Errorf("%s: an unregistered text: %.80s", path, html[i:])
		}
	}
}

// BenchmarkRunsPage is the Runs page's time to answer with 1000 runs in the
// store (the page lists the newest 100).
func BenchmarkRunsPage(b *testing.B) {
	home := b.TempDir()
	s, err := New(Options{Home: home, FlowsDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	st, err := runs.OpenHome(home, 2000, 0)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		run := &runs.Run{Flow: fmt.Sprintf("flow%d", i%20), Caller: runs.Caller{Kind: runs.CallerCLI}, Evidence: runs.EvidenceDefault}
		if _, err := st.Begin(run); err != nil {
			b.Fatal(err)
		}
		if err := st.Finish(run.ID, runs.Outcome{Status: runs.StatusOK, DurationMs: 10}); err != nil {
			b.Fatal(err)
		}
	}
	st.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req, _ := http.NewRequest("GET", ts.URL+"/runs", nil)
		req.Header.Set(TokenHeader, s.Token())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatal(resp.Status)
		}
	}
}
