package ui

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
)

// TestRunFormRefusesUnknownFields: a Run form field the tool does not take is refused (as MCP
// refuses an unknown argument), naming it and what the tool takes; nothing runs.
func TestRunFormRefusesUnknownFields(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.flow"), []byte(helloFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(mcpserver.Options{FlowsDir: dir, NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	s, ts := newTestServer(t, Options{FlowsDir: dir, Tools: srv})
	form := url.Values{"a.who": {"Ada"}, "a.password": {"x"}, "a.whom": {"Bob"}, "color": {"red"}}
	req, _ := http.NewRequest("POST", ts.URL+"/run/hello", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set(TokenHeader, s.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := html.UnescapeString(string(b))
	for _, want := range []string{
		`the form has a field "whom" the tool does not take (it takes who, times, loud, tags, password); nothing was run`,
		`the form has a field "color" the tool does not take`,
	} {
		if resp.StatusCode != 400 || !strings.Contains(page, want) {
			t.Errorf("%d: the page lacks %q\n%s", resp.StatusCode, want, page)
		}
	}
	if len(s.live().runs) != 0 {
		t.Error("a run was started")
	}
}
