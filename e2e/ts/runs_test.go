package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// The TypeScript SDK client reads a run resource and the report of a
// failed call.
func TestTypeScriptReadsRuns(t *testing.T) {
	f := setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "runs.mjs")
	cmd.Env = f.env()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var r struct {
		Fatal             string   `json:"fatal"`
		IsError           bool     `json:"isError"`
		RunID             string   `json:"runId"`
		FailureLine       float64  `json:"failureLine"`
		FailureKind       string   `json:"failureKind"`
		ContentTypes      []string `json:"contentTypes"`
		RunStatus         string   `json:"runStatus"`
		RunClient         string   `json:"runClient"`
		RunSteps          int      `json:"runSteps"`
		ReportMime        string   `json:"reportMime"`
		ReportHasTimeline bool     `json:"reportHasTimeline"`
		Listed            bool     `json:"listed"`
		Templates         []string `json:"templates"`
	}
	if jerr := json.Unmarshal(out, &r); jerr != nil || r.Fatal != "" || err != nil {
		t.Fatalf("client: %q %v %v %s\n%s", out, err, jerr, r.Fatal, stderr.String())
	}
	if !r.IsError || r.RunID == "" || r.FailureLine != 8 || r.FailureKind != "fail" || !slices.Equal(r.ContentTypes, []string{"text", "image"}) {
		t.Errorf("call: %+v", r)
	}
	if r.RunStatus != "failed" || r.RunClient != "rpa-e2e-runs" || r.RunSteps != 1 {
		t.Errorf("run resource: %+v", r)
	}
	// The four run templates (a flow's heal template may stand beside them).
	runTemplates := 0
	for _, tpl := range r.Templates {
		if strings.HasPrefix(tpl, "rpa://runs/") {
			runTemplates++
		}
	}
	if r.ReportMime != "text/html" || !r.ReportHasTimeline || !r.Listed || runTemplates != 4 {
		t.Errorf("report/list: %+v", r)
	}
}
