package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/internal/host/llm"
	"github.com/rpa-dev/rpa/internal/serve/mrtr"
)

// hitlState is the server's human-in-the-loop set-up, built on first use.
type hitlState struct {
	once  sync.Once
	cfg   *hitl.Config
	pages *hitl.URLPages // nil: no URL-mode elicitation (Options.NoURLElicitation)
}

// hitlConfig returns the channels' set-up: Options.HITL; else, when
// Options.Ask is set, the client channel then Ask (as the desktop); else
// hitl.DefaultOrder with the native dialog and the controlling terminal.
func (s *Server) hitlConfig() *hitl.Config {
	s.hitl.once.Do(func() {
		if !s.opts.NoURLElicitation {
			s.hitl.pages = &hitl.URLPages{}
		}
		switch {
		case s.opts.HITL != nil:
			c := *s.opts.HITL
			s.hitl.cfg = &c
		case s.opts.Ask != nil:
			s.hitl.cfg = &hitl.Config{Order: []string{hitl.ChannelClient, hitl.ChannelDesktop},
				Desktop: hitl.Func{N: hitl.ChannelDesktop, F: s.opts.Ask}}
		default:
			c := &hitl.Config{Desktop: &hitl.Desktop{}}
			if t, err := hitl.OpenTerminal(); err == nil {
				c.Terminal = t
			}
			s.hitl.cfg = c
		}
		if s.hitl.cfg.Log == nil {
			s.hitl.cfg.Log = s.log
		}
	})
	return s.hitl.cfg
}

// closeHITL stops the URL-mode answer pages.
func (s *Server) closeHITL() {
	if s.hitl.pages != nil {
		_ = s.hitl.pages.Close()
	}
}

// askFor returns the person channel chain of one call: the calling client
// first (its session), then the host's channels. A password answered on a
// profile is remembered so browser_read masks it.
//
// A task's questions go to its caller through the task (its input) and,
// at the same time, to an open `rpa ui` console: whoever answers first.
func (s *Server) askFor(req *mcp.CallToolRequest, profile string, mode callMode) AskFunc {
	cfg := s.hitlConfig()
	el := &hitl.Elicit{Pages: s.hitl.pages}
	if req != nil {
		el.Session = req.Session
	}
	var client hitl.Channel = el
	switch {
	case mode.pause != nil:
		el.Defer = mrtr.Elicit(mode.pause.Ask)
	case mode.task != nil:
		el.Defer = mrtr.Elicit(mode.task.Ask)
		// The console is awaited: one opened later still gets the question
		// (the way to answer a task whose caller's process is gone, or whose
		// caller reached it from another rpa process).
		client = hitl.Race(el, &hitl.Console{Await: time.Second})
	}
	chain := cfg.Chain(client)
	return hitl.Secret(chain.Ask, func(v string) {
		if profile != "" {
			s.rememberSecrets(profile, []string{v})
		}
	})
}

// hostFor is the core.Host of one served flow call: ask through the
// chain, llm through the client's sampling, exec under the policy.
func (s *Server) hostFor(req *mcp.CallToolRequest, profile string, mode callMode) core.Host {
	smp := &llm.Sampling{}
	if req != nil {
		smp.Session = req.Session
	}
	switch {
	case mode.pause != nil:
		smp.Defer = mrtr.Sample(mode.pause.Ask)
	case mode.task != nil:
		smp.Defer = mrtr.Sample(mode.task.Ask)
	}
	return core.Host{
		Ask:  s.askFor(req, profile, mode),
		LLM:  llm.Host(smp, nil),
		Exec: s.flowExec,
		// A calling agent may choose a flow's URL or path params: no
		// local files unless the person who started the server said so.
		NoFiles: !s.opts.AllowFiles,
	}
}

// hitlStatus maps the outcome of a chain's Ask for hitl_prompt: a
// question no channel could ask is a timeout, with the reason.
func hitlStatus(ctx, actx context.Context, ans core.Answer, err error) (core.Answer, string, error) {
	var nc *hitl.NoChannelError
	switch {
	case ctx.Err() != nil:
		return core.Answer{Status: core.AnswerCancelled}, "", nil
	case errors.As(err, &nc):
		return core.Answer{Status: core.AnswerTimeout}, nc.Error(), nil
	case err != nil && errors.Is(err, context.DeadlineExceeded), err == nil && actx.Err() != nil && ans.Status == "":
		return core.Answer{Status: core.AnswerTimeout}, "", nil
	case err != nil:
		return core.Answer{}, "", err
	}
	return ans, "", nil
}

// hitlPrompt is the hitl_prompt tool. A multi-round-trip client gets the
// question as the call's input request and answers it in the next call.
func (s *Server) hitlPrompt(ctx context.Context, req *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, error) {
	if multiRoundTrip(req) {
		if req.Params.RequestState != "" {
			return s.paused.Resume(ctx, s.ownerOf(req).Key(), req)
		}
		return s.paused.Start(ctx, s.ownerOf(req).Key(), func(rctx context.Context, p *mrtr.Call) (*mcp.CallToolResult, error) {
			return s.hitlAsk(rctx, req, args, callMode{pause: p})
		})
	}
	return s.hitlAsk(ctx, req, args, callMode{})
}

func (s *Server) hitlAsk(ctx context.Context, req *mcp.CallToolRequest, args map[string]any, mode callMode) (*mcp.CallToolResult, error) {
	q := core.Question{Title: str(args, "title"), Message: str(args, "message"), Input: str(args, "inputType"), Timeout: 120 * time.Second}
	if q.Input == "" {
		q.Input = "text"
	}
	if n, ok := args["timeout"].(float64); ok {
		q.Timeout = time.Duration(n * float64(time.Second))
	}
	actx, cancel := context.WithTimeout(ctx, q.Timeout)
	defer cancel()
	ans, err := s.askFor(req, "", mode)(actx, q)
	ans, reason, err := hitlStatus(ctx, actx, ans, err)
	if err != nil {
		return nil, rpcError(CodeBuiltinFailed, "hitl_prompt: "+err.Error(), nil)
	}
	out := map[string]any{"status": ans.Status}
	if ans.Status == core.AnswerAnswered {
		out["answer"] = ans.Text
	}
	if reason != "" {
		out["reason"] = reason
	}
	raw, _ := json.Marshal(out)
	s.log.Info("hitl_prompt", "status", ans.Status, "input", q.Input) // never the answer
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}, StructuredContent: out}, nil
}
