package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestRunLLMEndpoint: `rpa run` sends `llm` to the OpenAI-compatible
// endpoint of RPA_LLM_BASE_URL (a local stub here) with secrets masked,
// and fails with a message naming the variables when none is set.
func TestRunLLMEndpoint(t *testing.T) {
	var mu sync.Mutex
	var prompts []string
	stub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct{ Role, Content string }
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "stub-model" {
			http.Error(w, "bad request", 400)
			return
		}
		mu.Lock()
		prompts = append(prompts, req.Messages[len(req.Messages)-1].Content)
		mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": "Hello, Ada!"}}}})
	}))
	defer stub.Close()

	t.Setenv("RPA_LLM_BASE_URL", stub.URL+"/v1")
	t.Setenv("RPA_LLM_MODEL", "stub-model")
	r := rpaRun(t, "run", "../../internal/host/llm/testdata/greet.flow", "--arg", "who=Ada", "--arg", "token=tok-98765", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	res := decode(t, r)
	if b, _ := json.Marshal(res.Outputs); string(b) != `{"greeting":"Hello, Ada!"}` {
		t.Errorf("outputs %s", b)
	}
	mu.Lock()
	if len(prompts) != 1 || strings.Contains(prompts[0], "tok-98765") || !strings.Contains(prompts[0], `"token": "***"`) || !strings.Contains(prompts[0], "greeting for Ada") {
		t.Errorf("prompts %q", prompts)
	}
	mu.Unlock()

	t.Setenv("RPA_LLM_BASE_URL", "")
	r = rpaRun(t, "run", "../../internal/host/llm/testdata/greet.flow", "--arg", "who=Ada", "--arg", "token=tok-98765", "--json")
	if r.code != 1 {
		t.Fatalf("exit %d without an endpoint\nstderr:\n%s", r.code, r.stderr)
	}
	if res := decode(t, r); res.Error == nil || !strings.Contains(res.Error.Message, "RPA_LLM_BASE_URL") {
		t.Errorf("error %+v", res.Error)
	}
}
