package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/runs"
)

// A served flow that renders a value derived from its secret into the
// page (URL, title, text) and fails: the tool result (failure packet:
// url, tabs, snapshot) and the run's folder hold no trace of it.
func TestServedDerivedSecretMasked(t *testing.T) {
	dir := t.TempDir()
	src := `flow derived "A secret transformed in an interpolation"

param password: secret "password"

open "data:text/html,<title>{{ lower(password) }}</title><p id=b>{{ urlquery(lower(password)) }}</p>"
click "#missing" wait: 2s retries: 0
`
	if err := os.WriteFile(filepath.Join(dir, "derived.flow"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, _ := newServer(t, Options{FlowsDir: dir, NoWatch: true, Pool: newPool(t), Runs: st})
	cs, _ := connect(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_derived", Arguments: map[string]any{"password": "Zq7-SECRETVAL-k9"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Fatalf("the click on #missing succeeded: %s", textOf(t, res))
	}
	b, _ := json.Marshal(res)
	if !strings.Contains(string(b), `"failure"`) {
		t.Fatalf("no failure packet in the result: %s", b)
	}
	if i := strings.Index(strings.ToLower(string(b)), "secretval"); i >= 0 {
		t.Errorf("the tool result holds the derived value: …%s…", b[max(0, i-80):min(len(b), i+40)])
	}
	n := 0
	err = filepath.WalkDir(filepath.Join(home, "runs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		if i := bytes.Index(bytes.ToLower(f), []byte("secretval")); i >= 0 {
			t.Errorf("%s holds the derived value: …%s…", filepath.Base(p), f[max(0, i-80):min(len(f), i+40)])
		}
		return nil
	})
	if err != nil || n < 3 {
		t.Fatalf("walked %d files: %v", n, err)
	}
}
