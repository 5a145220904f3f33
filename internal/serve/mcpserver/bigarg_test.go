package mcpserver

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/runs"
)

// TestBigArgumentNotEchoed: a 3 MB base_url whose open fails comes back
// named by its length, not copied into the step's error, the run's error
// and the failure packet (text and structured content: six copies, an
// 18 MB answer before), over stdio and over HTTP; the run record keeps it
// cut too (runs.db grew by 12 MB a call).
func TestBigArgumentNotEchoed(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	store, err := runs.OpenHome(home, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "bigurl.flow"), NoWatch: true, Pool: newPool(t), Runs: store})
	// port 9 (discard) refuses at once: the open fails quickly with the URL in its error
	big := "http://127.0.0.1:9/" + strings.Repeat("u", 3<<20)
	call := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"workflow_bigurl","arguments":{"base_url":"` + big + `"}}}`
	}
	check := func(how string, answer []byte) {
		t.Helper()
		if len(answer) > 64<<10 || bytes.Contains(answer, []byte(strings.Repeat("u", 1000))) {
			t.Errorf("%s: the argument came back (%d bytes)", how, len(answer))
		}
		if !bytes.Contains(answer, []byte("(3145749 bytes)")) || !bytes.Contains(answer, []byte(`"isError":true`)) {
			t.Errorf("%s: the failed open does not name the URL by its length: %.600s", how, answer)
		}
	}

	lines := runStdio(t, s, stdioInit+call("2")+"\n")
	l := findID(lines, "2")
	if l == nil {
		t.Fatal("no answer over stdio")
	}
	check("stdio", l.Result)

	hs := httptest.NewServer(s.HTTPHandler(""))
	defer hs.Close()
	post := func(session, body string) (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		return resp, b
	}
	resp, _ := post("", strings.TrimSpace(stdioInit[:strings.Index(stdioInit, "\n")]))
	session := resp.Header.Get("Mcp-Session-Id")
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	_, b := post(session, call("3"))
	check("HTTP", b)

	var size int64
	_ = filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasPrefix(fi.Name(), "runs.db") {
			size += fi.Size()
		}
		return nil
	})
	if size > 2<<20 {
		t.Errorf("the run store holds %d bytes after two calls with a 3 MB argument", size)
	}
}
