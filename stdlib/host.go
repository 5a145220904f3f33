package stdlib

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/core"
)

// Actions that reach beyond the browser: ask, llm, exec, call.

// AskTimeout is how long `ask` waits for an answer unless it says
// `timeout:` (never taken from `defaults`).
const AskTimeout = 120 * time.Second

func ask(ctx context.Context, c *Call) (any, error) {
	h := c.Env.Host()
	if h.Ask == nil {
		return nil, core.Errorf(core.KindHITLDeclined, "ask: no person can be asked here (this host has no human-in-the-loop channel)")
	}
	q := core.Question{Input: "text", Timeout: AskTimeout}
	if err := c.Unpack("title", &q.Title, "message", &q.Message, "input", &q.Input, "timeout", &q.Timeout); err != nil {
		return nil, err
	}
	actx, cancel := context.WithTimeout(ctx, q.Timeout)
	defer cancel()
	ans, err := h.Ask(actx, q)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, core.Errorf(core.KindHITLTimeout, "ask: no answer within %s", q.Timeout)
		}
		if core.KindOf(err) == core.KindBrowser {
			return nil, &core.Error{Kind: core.KindHITLDeclined, Msg: "ask: " + err.Error(), Err: err}
		}
		return nil, err
	}
	switch ans.Status {
	case core.AnswerAnswered:
	case core.AnswerTimeout:
		return nil, core.Errorf(core.KindHITLTimeout, "ask: no answer within %s", q.Timeout)
	default:
		return nil, core.Errorf(core.KindHITLDeclined, "ask: %q was %s", q.Title, ans.Status)
	}
	switch q.Input {
	case "password":
		c.Env.AddSecret(ans.Text)
	case "number":
		s := strings.TrimSpace(ans.Text)
		if n, err := strconv.Atoi(s); err == nil {
			return n, nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, core.Errorf(core.KindHITLDeclined, "ask: the answer %q is not a number", ans.Text)
		}
		return f, nil
	}
	return ans.Text, nil
}

func llm(ctx context.Context, c *Call) (any, error) {
	h := c.Env.Host()
	if h.LLM == nil {
		return nil, core.Errorf(core.KindBrowser, "llm: not enabled here (it needs an MCP client that offers sampling)")
	}
	var prompt string
	if err := c.Unpack("prompt", &prompt); err != nil {
		return nil, err
	}
	input, _ := c.Opt("input")
	// Secrets never reach a model.
	prompt, _ = c.Env.Mask(prompt).(string)
	if input != nil {
		input = c.Env.Mask(input)
	}
	return h.LLM(ctx, prompt, input)
}

func execCmd(ctx context.Context, c *Call) (any, error) {
	h := c.Env.Host()
	if h.Exec == nil {
		return nil, core.Errorf(core.KindExecRefused, "exec: not enabled here (the host must enable exec)")
	}
	var cmd core.ExecCommand
	switch x := c.Args[0].(type) {
	case string:
		cmd.Shell = x
	case []any:
		for _, e := range x {
			s, err := toStr(c, "command", e)
			if err != nil {
				return nil, err
			}
			cmd.Args = append(cmd.Args, s)
		}
	case []string:
		cmd.Args = x
	default:
		return nil, c.argErr("command", c.Args[0], "a list of arguments or one string")
	}
	if cmd.Shell == "" && len(cmd.Args) == 0 {
		return nil, core.Errorf(core.KindExpression, "exec: empty command")
	}
	if c.TimeoutSet {
		cmd.Timeout = c.Timeout
	}
	res, err := h.Exec(ctx, cmd)
	if err != nil {
		return nil, err
	}
	return map[string]any{"stdout": res.Stdout, "stderr": res.Stderr, "code": res.Code, "truncated": res.Truncated}, nil
}

func call(ctx context.Context, c *Call) (any, error) {
	var name string
	if err := c.Unpack("flow", &name); err != nil {
		return nil, err
	}
	var with map[string]any
	if w, ok := c.Opt("with"); ok {
		m, isM := w.(map[string]any)
		if !isM {
			return nil, c.argErr("with:", w, "a map")
		}
		with = m
	}
	return c.Env.CallFlow(ctx, name, with)
}
