package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/demoapp"
)

// TestTypeScriptClientAuthoring: the TypeScript SDK client runs a whole
// authoring session against `rpa serve --stdio --authoring` (authoring.mjs)
// and the flow it saved, run on a fresh profile with another region,
// returns that region's rows.
func TestTypeScriptClientAuthoring(t *testing.T) {
	f := setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "authoring.mjs")
	cmd.Env = f.env()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var r struct {
		Fatal          string   `json:"fatal"`
		Tools          []string `json:"tools"`
		ToolsAfter     []string `json:"toolsAfter"`
		Steps          []string `json:"steps"`
		PasswordEchoed bool     `json:"passwordEchoed"`
		SnapshotChars  int      `json:"snapshotChars"`
		SaveIsError    bool     `json:"saveIsError"`
		FlowText       string   `json:"flowText"`
		ListChanged    bool     `json:"listChanged"`
		RunSuccess     bool     `json:"runSuccess"`
		Regions        []string `json:"regions"`
	}
	if jerr := json.Unmarshal(out, &r); jerr != nil {
		t.Fatalf("client output %q (%v): %v\n%s", out, err, jerr, stderr.String())
	}
	if r.Fatal != "" || err != nil {
		t.Fatalf("client failed: %v %s (steps done: %v)\n%s", err, r.Fatal, r.Steps, stderr.String())
	}
	for _, want := range []string{"browser_open", "browser_snapshot", "browser_fill", "flow_save", "flow_preview", "flow_reset"} {
		if !slices.Contains(r.Tools, want) {
			t.Errorf("tools %v lack %s", r.Tools, want)
		}
	}
	if r.PasswordEchoed || strings.Contains(r.FlowText, demoapp.DemoPassword) {
		t.Error("the password came back or reached the flow")
	}
	if r.SaveIsError || !strings.Contains(r.FlowText, "param password: secret") || !r.ListChanged || !slices.Contains(r.ToolsAfter, "workflow_ts_rows") {
		t.Errorf("save: isError %v, listChanged %v, tools %v\n%s", r.SaveIsError, r.ListChanged, r.ToolsAfter, r.FlowText)
	}
	if !r.RunSuccess || !slices.Equal(r.Regions, []string{"杭州市"}) {
		t.Errorf("run: success %v, regions %v\n%s", r.RunSuccess, r.Regions, r.FlowText)
	}
	noBrowserLeft(t, f)
}
