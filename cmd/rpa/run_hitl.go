package main

import (
	"fmt"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/hitl"
	"github.com/rpa-dev/rpa/llm"
)

// hitlUsage is the help of --hitl (rpa run, serve, connect).
const hitlUsage = "who answers `ask` and hitl_prompt, in order: channels among client (the MCP caller's elicitation), desktop (a native dialog), terminal; \"none\" for none (default client,desktop,terminal)"

// hitlConfig parses --hitl ("" = the default order) into the host's
// channels: the desktop dialog and, when term is not nil, the terminal.
func hitlConfig(order string, term hitl.Channel) (*hitl.Config, error) {
	cfg := &hitl.Config{Desktop: &hitl.Desktop{}, Terminal: term}
	if order != "" {
		o, err := hitl.ParseOrder(order)
		if err != nil {
			return nil, err
		}
		cfg.Order = o
	}
	return cfg, nil
}

// runHost is the core.Host of `rpa run`: ask through --hitl's channels
// (no MCP client here: the desktop dialog, then the terminal on stdin),
// llm through the OpenAI-compatible endpoint of RPA_LLM_BASE_URL, exec
// under --allow-exec.
func (rf *runFlags) runHost(rio runIO) (core.Host, error) {
	var term hitl.Channel
	if rio.stdin != nil {
		term = &hitl.Terminal{In: rio.stdin, Out: rio.stderr}
	}
	cfg, err := hitlConfig(rf.hitl, term)
	if err != nil {
		return core.Host{}, err
	}
	env, err := llm.FromEnv()
	if err != nil {
		return core.Host{}, fmt.Errorf("llm: %v", err)
	}
	return core.Host{Ask: cfg.Chain(nil).Ask, LLM: llm.Host(nil, env), Exec: rf.exec.Exec}, nil
}

// serverHITL is the human-in-the-loop set-up of `rpa serve` and `rpa
// connect`: --hitl's order with the desktop dialog and the controlling
// terminal (/dev/tty, never stdin, which may carry the protocol).
func serverHITL(order string) (*hitl.Config, error) {
	var term hitl.Channel
	if t, err := hitl.OpenTerminal(); err == nil {
		term = t
	}
	return hitlConfig(order, term)
}
