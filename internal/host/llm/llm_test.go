package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/core"
)

func TestPrompt(t *testing.T) {
	got, err := Prompt("Summarise", map[string]any{"rows": []any{1, "a"}})
	want := "Summarise\n\nInput (JSON):\n{\n  \"rows\": [\n    1,\n    \"a\"\n  ]\n}"
	if err != nil || got != want {
		t.Errorf("got %q %v\nwant %q", got, err, want)
	}
	if got, _ := Prompt("Just this", nil); got != "Just this" {
		t.Errorf("no input: %q", got)
	}
	if _, err := Prompt("x", map[string]any{"f": func() {}}); err == nil {
		t.Error("a function serialised")
	}
}

// stub is a small OpenAI-compatible chat endpoint.
func stub(t *testing.T, status int, reply string) (*httptest.Server, *[]map[string]any) {
	var seen []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		body["authorization"] = r.Header.Get("Authorization")
		seen = append(seen, body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status != 200 {
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": reply}})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": " " + reply + "\n"}}}})
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

func TestOpenAIFromEnv(t *testing.T) {
	srv, seen := stub(t, 200, "Three rows, total 42 kWh.")
	t.Setenv(EnvBaseURL, srv.URL+"/v1/")
	t.Setenv(EnvModel, "tiny")
	t.Setenv(EnvAPIKey, "sk-test-123")
	o, err := FromEnv()
	if err != nil || o == nil {
		t.Fatal(o, err)
	}
	got, err := Host(nil, o)(context.Background(), "Summarise", []any{map[string]any{"kWh": 42}})
	if err != nil || got != "Three rows, total 42 kWh." {
		t.Fatalf("%q %v", got, err)
	}
	req := (*seen)[0]
	msgs := req["messages"].([]any)
	user := msgs[1].(map[string]any)
	if req["model"] != "tiny" || user["role"] != "user" || !strings.Contains(user["content"].(string), `"kWh": 42`) || req["authorization"] != "Bearer sk-test-123" {
		t.Errorf("request %v", req)
	}
}

func TestOpenAIErrors(t *testing.T) {
	srv, _ := stub(t, 401, "invalid key sk-test-123")
	o := &OpenAI{BaseURL: srv.URL + "/v1", Model: "m", APIKey: "sk-test-123"}
	_, err := o.Complete(context.Background(), "x", nil)
	if err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "sk-test-123") || core.KindOf(err) != "fail" {
		t.Errorf("401: %v", err)
	}
	for _, tc := range []struct{ base, model, want string }{
		{"", "", ""},
		{"ftp://x", "m", "want an http"},
		{"http://127.0.0.1:1/v1", "", EnvModel + " is not"},
	} {
		t.Setenv(EnvBaseURL, tc.base)
		t.Setenv(EnvModel, tc.model)
		o, err := FromEnv()
		if tc.want == "" {
			if o != nil || err != nil {
				t.Errorf("unset: %v %v", o, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v", tc, err)
		}
	}
	// Unreachable endpoint, and no backend at all.
	o = &OpenAI{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}
	if _, err := o.Complete(context.Background(), "x", nil); err == nil || !strings.Contains(err.Error(), "cannot be reached") {
		t.Errorf("unreachable: %v", err)
	}
	if _, err := Host(nil, nil)(context.Background(), "x", nil); err == nil || !strings.Contains(err.Error(), EnvBaseURL) {
		t.Errorf("none: %v", err)
	}
	if _, err := Host(&Sampling{}, nil)(context.Background(), "x", nil); err == nil || !strings.Contains(err.Error(), "did not declare sampling") {
		t.Errorf("no capability: %v", err)
	}
}
