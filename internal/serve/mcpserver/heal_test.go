//lint:file-ignore SA1019 the ask-model test answers over sampling, deprecated by SEP-2577 but still part of the protocol during its deprecation window.

package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/runs"
)

// TestHealAskModel: with heal ask-model, a failed locate asks the calling
// client's model (sampling) to choose among the candidates; its choice is
// acted on and the step is healed; an answer naming something outside the
// candidates is refused and the step fails with the packet saying so. The
// flow's heal resource proposes the healed selectors.
func TestHealAskModel(t *testing.T) {
	pages := httptest.NewServer(http.FileServer(http.Dir("../../../testdata/heal")))
	defer pages.Close()
	dir := t.TempDir()
	src, err := os.ReadFile("../../../testdata/heal/form.flow")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "form.flow"), src, 0o644)
	st, err := runs.Open(t.TempDir(), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, _ := newServer(t, Options{FlowsDir: dir, NoWatch: true, Pool: newPool(t), Runs: st, Heal: "ask-model", ShareProfiles: true})
	call := func(t *testing.T, page, answer string, prompts *[]string) *mcp.CallToolResult {
		cs := connectVersion(t, s, "2025-11-25", &mcp.ClientOptions{
			CreateMessageHandler: func(ctx context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				*prompts = append(*prompts, r.Params.Messages[0].Content.(*mcp.TextContent).Text)
				return &mcp.CreateMessageResult{Role: "assistant", Model: "stub", Content: &mcp.TextContent{Text: answer}}, nil
			}})
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "workflow_heal_form", Arguments: map[string]any{"url": pages.URL + "/" + page}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	var prompts []string
	if res := call(t, "form.html", "c1", &prompts); res.IsError || len(prompts) != 0 {
		t.Fatalf("first run: %s (prompts %q)", textOf(t, res), prompts)
	}
	// the model names an element outside the candidates: refused
	res := call(t, "m03-text-reworded.html", "#save-draft", &prompts)
	if !res.IsError || len(prompts) != 1 {
		t.Fatalf("outside answer: error %v prompts %d: %s", res.IsError, len(prompts), textOf(t, res))
	}
	if !strings.Contains(prompts[0], `c1: button "Submit order"`) || !strings.Contains(prompts[0], `button "Place order"`) {
		t.Errorf("prompt:\n%s", prompts[0])
	}
	failure, _ := structured(t, res)["failure"].(map[string]any)
	hp, _ := failure["heal"].(map[string]any)
	if hp["status"] != "refused" || !strings.Contains(hp["reason"].(string), "not one of the candidates") {
		t.Errorf("packet heal: %v", hp)
	}
	// the model picks c1: healed
	prompts = nil
	res = call(t, "m03-text-reworded.html", "c1", &prompts)
	if res.IsError || len(prompts) != 1 {
		t.Fatalf("c1: %s", textOf(t, res))
	}
	var healed map[string]any
	for _, r := range structured(t, res)["results"].([]any) {
		if h, ok := r.(map[string]any)["heal"].(map[string]any); ok {
			healed = h
		}
	}
	if healed["status"] != "healed" || healed["mode"] != "ask-model" {
		t.Errorf("healed step: %v", healed)
	}
	// the flow's heal resource proposes the healed selectors first
	cs := connectVersion(t, s, "2025-11-25", nil)
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "rpa://flows/heal_form/heal"})
	if err != nil {
		t.Fatal(err)
	}
	var hps HealProposals
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &hps); err != nil {
		t.Fatal(err)
	}
	if len(hps.Proposals) != 1 || hps.Proposals[0].Kind != "healed" || !strings.Contains(hps.Diff, `+click ["aria/Submit order[role=\"button\"]"`) {
		t.Errorf("heal resource: %+v", hps)
	}
}
