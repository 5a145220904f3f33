package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTypeScriptClientElicitation: the captcha-then-SMS flow of
// hitl/testdata finishes with the TypeScript SDK client (protocol
// 2025-11-25) answering both questions through elicitation; a declined
// question comes back declined.
func TestTypeScriptClientElicitation(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the TypeScript client tests need Node.js (apt-get install nodejs npm)")
	}
	if _, err := os.Stat("node_modules/@modelcontextprotocol/sdk"); err != nil {
		t.Skip("e2e/ts/node_modules is absent: run `npm ci` in e2e/ts to install the TypeScript MCP client")
	}
	bin := filepath.Join(t.TempDir(), "rpa")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/rpa").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	flows := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "internal", "host", "hitl", "testdata", "verify.flow"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(flows, "verify.flow"), src, 0o644)
	site := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("..", "..", "internal", "host", "hitl", "testdata"))))
	defer site.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "hitl.mjs")
	cmd.Env = append(os.Environ(), "RPA_HOME="+t.TempDir(), "RPA_BIN="+bin, "FLOWS="+flows, "SITE="+site.URL)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node hitl.mjs: %v\n%s", err, stderr.String())
	}
	var r struct {
		Fatal    string           `json:"fatal"`
		Asked    []string         `json:"asked"`
		Schemas  []map[string]any `json:"schemas"`
		IsError  bool             `json:"isError"`
		Result   map[string]any   `json:"result"`
		Declined string           `json:"declined"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("report %q: %v", out, err)
	}
	if r.Fatal != "" {
		t.Fatalf("client: %s", r.Fatal)
	}
	if r.IsError {
		t.Fatalf("flow failed: %v", r.Result)
	}
	got, _ := json.Marshal(r.Result["outputs"])
	if string(got) != `{"captcha":"X7K2P","sms":"482913","status":"Verified"}` {
		t.Errorf("outputs %s", got)
	}
	if len(r.Asked) != 3 || !strings.HasPrefix(r.Asked[0], "Captcha") || !strings.HasPrefix(r.Asked[1], "SMS code") {
		t.Errorf("asked %q", r.Asked)
	}
	if r.Declined != `{"status":"declined"}` {
		t.Errorf("declined: %s", r.Declined)
	}
}
