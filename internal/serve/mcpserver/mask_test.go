package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSecretInAddress: a secret a flow put into a page's address comes back
// from neither the flow's own url/text/html steps nor browser_read, in
// any of the spellings a browser or an encoder gives it; values computed
// from it are *** in structuredContent; 1/0 in the outputs is null.
func TestSecretInAddress(t *testing.T) {
	const pw = "Hunter 2&x=ü"
	leaks := []string{pw, "Hunter%202", "Hunter+2", "Hunter", "%C3%BC", "HUNTER", "unter 2", "x=ü"}
	st := newSite(t)
	dir := t.TempDir()
	src := `flow open_secret "Opens a page with the password in its address"

param base_url: string "Address of the test site"
param password: secret "Login password"

defaults retries: 0

open "{{ base_url }}/login?p={{ password }}"
u = url
h = html
b = text "body"
return {"u": u, "h": h, "b": b, "y": upper(password), "z": password[1:], "l": split(password, "&"), "inf": 1/0}
`
	if err := os.WriteFile(filepath.Join(dir, "open_secret.flow"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, logs := newServer(t, Options{FlowsDir: dir, Pool: newPool(t)})
	cs, _ := connect(t, s)
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_open_secret", Arguments: map[string]any{"base_url": st.URL, "password": pw}})
	if err != nil {
		t.Fatal(err)
	}
	got := textOf(t, res)
	if m := structured(t, res); res.IsError || !strings.Contains(got, "/login?p=***") || mustJSON(m["outputs"].(map[string]any)["inf"]) != "null" {
		t.Fatalf("flow: %s", got)
	}
	for _, action := range []string{"url", "html", "text"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_read", Arguments: map[string]any{"action": action}})
		if err != nil {
			t.Fatal(err)
		}
		text := textOf(t, res)
		if action == "url" && !strings.HasSuffix(text, "/login?p=***") {
			t.Errorf("browser_read url = %s", text)
		}
		got += "\n" + text
	}
	got += logs.String()
	for _, leak := range leaks {
		if strings.Contains(got, leak) {
			t.Errorf("%q leaked:\n%s", leak, got)
		}
	}
}
