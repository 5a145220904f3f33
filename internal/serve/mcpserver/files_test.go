package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readURLFlow opens a URL the caller chooses and returns the page's text:
// with a file: URL, a local file read unless the server allows files.
const readURLFlow = `flow read_url "Read a page"

param url: string "The page"

open "{{ url }}"
t = text "body"
return t
`

// TestFilesPolicy: a served flow cannot open a file: URL unless the server
// was started with AllowFiles (--allow-files); then it reads the file.
func TestFilesPolicy(t *testing.T) {
	pool := newPool(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "read_url.flow"), []byte(readURLFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("local-secret-4242"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"url": "file://" + secret}
	for _, tc := range []struct {
		name  string
		allow bool
	}{{"off by default", false}, {"allow files", true}} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newServer(t, Options{FlowsDir: dir, Pool: pool, NoWatch: true, AllowFiles: tc.allow})
			cs, _ := connect(t, s)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "workflow_read_url", Arguments: args})
			if err != nil {
				t.Fatal(err)
			}
			txt := textOf(t, res)
			if !tc.allow {
				if !res.IsError || !strings.Contains(txt, "open: file: URLs are off for served flows (rpa serve --allow-files enables them)") ||
					!strings.Contains(txt, "navigation") || strings.Contains(txt, "local-secret-4242") {
					t.Errorf("refused: %s", txt)
				}
				return
			}
			if res.IsError {
				t.Fatalf("allowed: %s", txt)
			}
			out, _ := structured(t, res)["outputs"]
			if got, _ := out.(string); !strings.Contains(got, "local-secret-4242") {
				t.Errorf("allowed: outputs %#v, want the file's text", out)
			}
		})
	}
}

// clickFlow opens a page and clicks its link, then reads the body.
const clickFlow = `flow click_link "Open a page and follow its link"

param url: string "The page"

open "{{ url }}"
click "#go"
sleep 500ms
t = text "body"
return t
`

// TestFilesByLinkOrRedirect: a page cannot lead a served flow to a local
// file either: Chromium refuses a link or redirect from an http(s) or
// data: page to file: (the flow stays where it was).
func TestFilesByLinkOrRedirect(t *testing.T) {
	pool := newPool(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "click_link.flow"), []byte(clickFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "read_url.flow"), []byte(readURLFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("local-secret-4242"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := `<a id="go" href="file://` + secret + `">go</a> start-page`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "file://"+secret, http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, link)
	}))
	defer srv.Close()
	s, _ := newServer(t, Options{FlowsDir: dir, Pool: pool, NoWatch: true})
	cs, _ := connect(t, s)
	for _, tc := range []struct{ name, tool, url, want string }{
		// The click is done; the tab stays on the page.
		{"http link", "workflow_click_link", srv.URL + "/", `"outputs":"go start-page"`},
		{"data link", "workflow_click_link", "data:text/html," + url.PathEscape(link), `"outputs":"go start-page"`},
		// The open fails.
		{"redirect", "workflow_read_url", srv.URL + "/redirect", "ERR_UNSAFE_REDIRECT"},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: map[string]any{"url": tc.url}})
		if err != nil {
			t.Fatal(err)
		}
		if txt := textOf(t, res); strings.Contains(txt, "local-secret-4242") || !strings.Contains(txt, tc.want) {
			t.Errorf("%s: want %s and not the local file: %s", tc.name, tc.want, txt)
		}
	}
}
