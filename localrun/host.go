package localrun

import (
	"fmt"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/execpolicy"
	"github.com/rpa-dev/rpa/hitl"
	"github.com/rpa-dev/rpa/llm"
)

// Host is the core.Host of a run in this process: `ask` through the
// channels of the --hitl order (hitl.NewConfig; no MCP client here: the
// desktop dialog, then term when not nil), `llm` through the
// OpenAI-compatible endpoint of RPA_LLM_BASE_URL (llm.FromEnv), `exec`
// under exec's policy. A bad order or LLM setting is an error, reported
// before any browser starts.
func Host(order string, term hitl.Channel, exec *execpolicy.Policy) (core.Host, error) {
	cfg, err := hitl.NewConfig(order, term)
	if err != nil {
		return core.Host{}, err
	}
	env, err := llm.FromEnv()
	if err != nil {
		return core.Host{}, fmt.Errorf("llm: %v", err)
	}
	return core.Host{Ask: cfg.Chain(nil).Ask, LLM: llm.Host(nil, env), Exec: exec.Exec}, nil
}
