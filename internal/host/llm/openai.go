package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// Environment variables naming the OpenAI-compatible endpoint of `rpa run`.
const (
	// EnvBaseURL is the API base, e.g. http://127.0.0.1:11434/v1 or
	// https://api.openai.com/v1 (requests go to BASE/chat/completions).
	EnvBaseURL = "RPA_LLM_BASE_URL"
	// EnvModel is the model name (required with EnvBaseURL).
	EnvModel = "RPA_LLM_MODEL"
	// EnvAPIKey is sent as a bearer token when set; never logged.
	EnvAPIKey = "RPA_LLM_API_KEY"
)

// DefaultTimeout bounds one chat request unless ctx ends sooner.
const DefaultTimeout = 120 * time.Second

// OpenAI is an OpenAI-compatible chat completions endpoint.
type OpenAI struct {
	BaseURL string
	Model   string
	APIKey  string
	// MaxTokens per reply (DefaultMaxTokens when 0).
	MaxTokens int
	// Client is the HTTP client (one with DefaultTimeout when nil).
	Client *http.Client
}

// FromEnv returns the endpoint named by RPA_LLM_BASE_URL, RPA_LLM_MODEL and
// RPA_LLM_API_KEY; nil and no error when RPA_LLM_BASE_URL is unset.
func FromEnv() (*OpenAI, error) {
	base := strings.TrimSpace(os.Getenv(EnvBaseURL))
	if base == "" {
		return nil, nil
	}
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return nil, fmt.Errorf("%s=%q: want an http:// or https:// URL", EnvBaseURL, base)
	}
	model := strings.TrimSpace(os.Getenv(EnvModel))
	if model == "" {
		return nil, fmt.Errorf("%s is set but %s is not: name the model", EnvBaseURL, EnvModel)
	}
	return &OpenAI{BaseURL: strings.TrimRight(base, "/"), Model: model, APIKey: os.Getenv(EnvAPIKey)}, nil
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model     string        `json:"model"`
	Messages  []chatMessage `json:"messages"`
	MaxTokens int           `json:"max_tokens,omitempty"`
}

type chatResponse struct {
	Choices []struct {
		Message chatMessage `json:"message"`
	} `json:"choices"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// Complete sends the prompt (with input as JSON) and returns the first
// choice's text.
func (o *OpenAI) Complete(ctx context.Context, prompt string, input any) (string, error) {
	text, err := Prompt(prompt, input)
	if err != nil {
		return "", fail("%v", err)
	}
	max := o.MaxTokens
	if max <= 0 {
		max = DefaultMaxTokens
	}
	body, _ := json.Marshal(chatRequest{Model: o.Model, MaxTokens: max, Messages: []chatMessage{
		{Role: "system", Content: SystemPrompt}, {Role: "user", Content: text}}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.BaseURL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", fail("llm: %s: %v", EnvBaseURL, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.APIKey)
	}
	hc := o.Client
	if hc == nil {
		hc = &http.Client{Timeout: DefaultTimeout}
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fail("llm: the endpoint %s cannot be reached: %v", o.BaseURL, redactKey(err.Error(), o.APIKey))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return "", fail("llm: reading the reply of %s: %v", o.BaseURL, err)
	}
	var cr chatResponse
	jerr := json.Unmarshal(raw, &cr)
	if resp.StatusCode != http.StatusOK {
		msg := strings.TrimSpace(string(raw))
		if jerr == nil && cr.Error != nil {
			msg = cr.Error.Message
		}
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		return "", fail("llm: %s answered %s: %s", o.BaseURL, resp.Status, redactKey(msg, o.APIKey))
	}
	if jerr != nil {
		return "", fail("llm: %s answered something that is not a chat completion: %v", o.BaseURL, jerr)
	}
	if len(cr.Choices) == 0 {
		return "", fail("llm: %s answered no choices", o.BaseURL)
	}
	return strings.TrimSpace(cr.Choices[0].Message.Content), nil
}

func redactKey(s, key string) string {
	if len(key) >= 4 {
		s = strings.ReplaceAll(s, key, "***")
	}
	return s
}

// Host returns the core.Host.LLM of a run: sampling through session
// when it declared it, else the environment's endpoint (env, may be nil),
// else a clear error.
func Host(sampling *Sampling, env *OpenAI) Func {
	return func(ctx context.Context, prompt string, input any) (string, error) {
		if sampling.Available() || env == nil {
			if sampling == nil {
				return "", fail("llm: no model is available: set %s and %s (an OpenAI-compatible endpoint), or serve the flow to an MCP client that offers sampling", EnvBaseURL, EnvModel)
			}
			return sampling.Complete(ctx, prompt, input)
		}
		return env.Complete(ctx, prompt, input)
	}
}
