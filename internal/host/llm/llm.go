// Package llm answers the `llm` action: a prompt (and its `input:` value,
// serialised as JSON) goes to a language model and the text of its reply
// comes back.
//
// Two backends:
//   - Sampling: the calling MCP client's model through sampling/createMessage,
//     when the client declared the sampling capability (served flows; over
//     the WebSocket link the gateway relays it to the agent that made the
//     call).
//   - OpenAI: an OpenAI-compatible chat completions endpoint named by
//     environment variables (FromEnv), for `rpa run`.
//
// Secrets never reach a model: interp masks the prompt and the input
// before the host's LLM hook sees them (secret values read as ***).
package llm

//lint:file-ignore SA1019 the llm action is MCP sampling by definition (LANGUAGE.md); the SDK keeps sampling through its deprecation window, and FromEnv (a provider's API) is the way off it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/core"
)

// SystemPrompt is sent with every request: the model answers the
// automation's question with text only.
const SystemPrompt = "You are called from a browser automation flow. Answer the request with the text the flow needs, without preamble."

// DefaultMaxTokens bounds a reply unless the backend says otherwise.
const DefaultMaxTokens = 1024

// Prompt is the text sent to a model: the prompt, then, when input is not
// nil, a blank line, "Input (JSON):" and the input as indented JSON.
func Prompt(prompt string, input any) (string, error) {
	if input == nil {
		return prompt, nil
	}
	raw, err := json.MarshalIndent(input, "", "  ")
	if err != nil {
		return "", fmt.Errorf("llm: the input: cannot be serialised as JSON: %v", err)
	}
	return prompt + "\n\nInput (JSON):\n" + string(raw), nil
}

// Func is the shape of core.Host.LLM.
type Func = func(ctx context.Context, prompt string, input any) (string, error)

// fail is the result error of an llm action that could not get a reply.
func fail(format string, args ...any) error {
	return &core.Error{Kind: core.KindFail, Msg: fmt.Sprintf(format, args...), Final: true}
}

// ErrNoSampling is wrapped by the error of a call whose MCP client did
// not declare sampling (and no other backend is configured).
var ErrNoSampling = errors.New("the MCP client did not declare sampling")

// Sampling asks the calling MCP client's model.
type Sampling struct {
	// Session is the call's session; nil: no client.
	Session *mcp.ServerSession
	// MaxTokens per reply (DefaultMaxTokens when 0).
	MaxTokens int64
	// Defer carries the request on sessions at protocol 2026-07-28 or
	// later (the call returns it as an input request and Defer waits for
	// the next call's response). Nil: those sessions get an error.
	Defer func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
}

// Available reports whether the session declared sampling.
func (s *Sampling) Available() bool {
	if s == nil || s.Session == nil {
		return false
	}
	ip := s.Session.InitializeParams()
	return ip != nil && ip.Capabilities != nil && ip.Capabilities.Sampling != nil
}

// Complete sends the prompt and returns the reply's text. Without the
// capability it fails with a clear error wrapping ErrNoSampling.
func (s *Sampling) Complete(ctx context.Context, prompt string, input any) (string, error) {
	if !s.Available() {
		return "", &core.Error{Kind: core.KindFail, Final: true, Err: ErrNoSampling,
			Msg: "llm: the MCP client did not declare sampling, so no model can be asked (use a client that offers sampling, or rpa run with RPA_LLM_BASE_URL)"}
	}
	text, err := Prompt(prompt, input)
	if err != nil {
		return "", fail("%v", err)
	}
	max := s.MaxTokens
	if max <= 0 {
		max = DefaultMaxTokens
	}
	p := &mcp.CreateMessageParams{
		MaxTokens:    max,
		SystemPrompt: SystemPrompt,
		Messages:     []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}
	send := s.Session.CreateMessage
	if ip := s.Session.InitializeParams(); ip.ProtocolVersion >= "2026-07-28" {
		if s.Defer == nil {
			return "", fail("llm: the MCP client is on protocol %s (multi-round-trip) and this call cannot pause for sampling", ip.ProtocolVersion)
		}
		send = s.Defer
	}
	res, err := send(ctx, p)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		var je *jsonrpc.Error
		if errors.As(err, &je) && je.Code == jsonrpc.CodeMethodNotFound {
			return "", &core.Error{Kind: core.KindFail, Final: true, Err: ErrNoSampling, Msg: "llm: " + je.Message}
		}
		return "", fail("llm: sampling failed: %v", err)
	}
	return replyText(res.Content)
}

func replyText(c mcp.Content) (string, error) {
	switch x := c.(type) {
	case *mcp.TextContent:
		return strings.TrimSpace(x.Text), nil
	case nil:
		return "", fail("llm: the model's reply was empty")
	}
	return "", fail("llm: the model replied with %T, want text", c)
}
