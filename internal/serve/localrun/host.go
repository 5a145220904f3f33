package localrun

import (
	"fmt"
	"io"
	"os"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/host/execpolicy"
	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/internal/host/llm"
)

// Host is the core.Host of a run in this process: `ask` through the
// channels of the --hitl order (hitl.NewConfig; no MCP client here: the
// desktop dialog, then the terminal on in, prompting on out, when in is
// not nil), `llm` through the
// OpenAI-compatible endpoint of RPA_LLM_BASE_URL (llm.FromEnv), `exec`
// under exec's policy. A bad order or LLM setting is an error, reported
// before any browser starts.
func Host(order string, in *os.File, out io.Writer, exec *execpolicy.Policy) (core.Host, error) {
	var term hitl.Channel
	if in != nil {
		term = &hitl.Terminal{In: in, Out: out}
	}
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
