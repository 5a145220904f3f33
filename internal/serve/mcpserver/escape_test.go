package mcpserver

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEscapingHelpersInChromium: params holding &, #, quotes and brackets reach the page intact
// through urlquery, and cssescape / xpathstring select the right elements in real Chromium.
func TestEscapingHelpersInChromium(t *testing.T) {
	const id, label = `a.b#c[1] "x"`, `say "it's"`
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><div id="q">%s</div><div id="after">%s</div>
<button id="%s" onclick="out.textContent += 'css;'">one</button>
<button id="decoy" onclick="out.textContent += 'decoy;'">say</button>
<button onclick="out.textContent += 'xpath;'">%s</button>
<div id="out"></div>`, html.EscapeString(r.URL.Query().Get("q")), html.EscapeString(r.URL.Query().Get("after")),
			html.EscapeString(id), html.EscapeString(label))
	}))
	t.Cleanup(page.Close)
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "escaping.flow"), Pool: newPool(t)})
	cs, _ := connect(t, s)
	const q = "a&after=2#frag ü"
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "workflow_escaping",
		Arguments: map[string]any{"base_url": page.URL, "q": q, "id": id, "label": label}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	out, _ := structured(t, res)["outputs"].(map[string]any)
	if out["q"] != q || out["after"] != "1" || out["out"] != "css;xpath;" {
		t.Errorf("outputs = %v", out)
	}
}
