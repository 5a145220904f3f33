package mcpserver

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/runs"
)

// TestRunRecordHidesSessionID: over Streamable HTTP the Mcp-Session-Id is
// what a client presents to act as its session (profile ownership trusts
// it), so neither the run resource nor the store's files may hold it: the
// record names the session by its digest.
func TestRunRecordHidesSessionID(t *testing.T) {
	site := newSite(t)
	home := t.TempDir()
	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "hit.flow"), NoWatch: true, Pool: newPool(t), Runs: st})
	hs := httptest.NewServer(s.HTTPHandler(""))
	t.Cleanup(hs.Close)
	cs, _ := connectHTTPAt(t, hs.URL, "", "2025-11-25")
	sid := cs.ID()
	if sid == "" {
		t.Fatal("no Mcp-Session-Id over HTTP")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_hit", Arguments: map[string]any{"base_url": site.URL, "p": "p1", "n": 1}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %v", err, res)
	}
	id, _ := structured(t, res)["runId"].(string)
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "rpa://runs/" + id})
	if err != nil {
		t.Fatal(err)
	}
	text := rr.Contents[0].Text
	if strings.Contains(text, sid) || !strings.Contains(text, `"session":"`+runs.SessionDigest(sid)+`"`) {
		t.Fatalf("rpa://runs/%s: %s", id, text)
	}
	st.Close()
	_ = filepath.WalkDir(filepath.Join(home, "runs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte(sid)) {
				t.Errorf("%s holds the raw session ID", path)
			}
		}
		return nil
	})
}
