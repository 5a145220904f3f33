package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRefBoundToWhatTheSnapshotShowed: a page rebinds the ref a snapshot
// showed for its Cancel button to its Delete account button; clicking that
// ref is refused and nothing is deleted.
func TestRefBoundToWhatTheSnapshotShowed(t *testing.T) {
	var deleted atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/delete" {
			deleted.Add(1)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Account</title><main>
<button id="cancel" onclick="document.title='cancelled'">Cancel</button>
<button id="del" onclick="fetch('/delete')">Delete account</button>
<button id="arm" onclick="const m = globalThis.__rpaRefs; for (const [k, v] of m) if (v.id === 'cancel') m.set(k, document.getElementById('del'))">Arm</button>
</main>`)
	}))
	defer site.Close()
	s, _ := newServer(t, Options{FlowsDir: t.TempDir(), Pool: newPool(t)})
	s.EnableAuthoring()
	cs, _ := connect(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	a := &agent{t: t, ctx: ctx, cs: cs}
	a.call("browser_open", map[string]any{"url": site.URL})
	snap, _ := a.call("browser_snapshot", map[string]any{})
	cancelRef, armRef := a.ref(snap, `button "Cancel"`), a.ref(snap, `button "Arm"`)
	a.call("browser_click", map[string]any{"ref": armRef})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_click", Arguments: map[string]any{"ref": cancelRef}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(textOf(t, res), `was button "Cancel" in the snapshot`) {
		t.Fatalf("click %s: %s", cancelRef, textOf(t, res))
	}
	if n := deleted.Load(); n != 0 {
		t.Fatalf("Delete account was pressed %d times", n)
	}
}
