// Package execpolicy decides which commands the `exec` action (and the MCP
// tool desktop_exec) may run, and runs them under limits: a time bound that
// kills the whole process group, and a cap on the output kept. `rpa run`
// and `rpa serve` / `rpa connect` apply the same policy (--allow-exec,
// --exec-allow).
package execpolicy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/core"
)

// Default limits of a command.
const (
	DefaultTimeout = 30 * time.Second
	MaxTimeout     = 10 * time.Minute
	DefaultOutput  = 64 << 10 // bytes kept per stream
)

// shellMeta are the characters a `*` or `?` of an allow rule never
// matches, so "ls *" does not allow "ls; rm -rf ~" or "ls $(rm x)".
const shellMeta = ";&|<>$`\n\r\\(){}"

// Policy decides which commands desktop_exec (and the `exec` action)
// may run. The zero Policy (and a nil one) refuses every command.
type Policy struct {
	// Enabled is --allow-exec; without it every command is refused.
	Enabled bool
	// Disabled is the rule a refusal names while not Enabled (default:
	// "the server: command execution is disabled (start `rpa serve` with
	// --allow-exec)").
	Disabled string
	// Allow are --exec-allow globs matched against the whole command
	// (trimmed): `*` any run of characters and `?` one character, except
	// shell operators (`;&|<>$` backquote, newline, backslash, parentheses
	// and braces), which only match themselves written literally. Empty
	// means every command is allowed once Enabled.
	Allow []string
	// Timeout bounds a command without its own timeout (DefaultTimeout
	// when 0); MaxOutput caps each of stdout and stderr in bytes
	// (DefaultOutput when 0).
	Timeout   time.Duration
	MaxOutput int

	once      sync.Once
	rules     []*regexp.Regexp // for shell strings
	argvRules []*regexp.Regexp // for argument lists (no shell: * matches anything)
}

// RefusedError is a command the policy refuses; Rule says which rule
// decided (the missing --allow-exec, or the allow-list).
type RefusedError struct {
	Command string
	Rule    string
}

// Error says which rule refused the command (never the command itself,
// which may hold secrets).
func (e *RefusedError) Error() string {
	return fmt.Sprintf("command refused by %s", e.Rule)
}

func globRE(glob string, shell bool) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`^`)
	cls := `[^` + regexp.QuoteMeta(shellMeta) + `]`
	if !shell {
		cls = `(?s:.)`
	}
	for _, r := range glob {
		switch r {
		case '*':
			b.WriteString(cls + `*`)
		case '?':
			b.WriteString(cls)
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString(`$`)
	return regexp.MustCompile(b.String())
}

// Check returns nil when the shell command may run, else a *RefusedError
// naming the rule.
func (p *Policy) Check(command string) error {
	return p.check(command, true)
}

// CheckArgs is Check for an argument list run without a shell: the rules
// see the arguments joined by spaces, and since no shell reads them `*`
// and `?` match any character there.
func (p *Policy) CheckArgs(args []string) error {
	return p.check(strings.Join(args, " "), false)
}

func (p *Policy) check(command string, shell bool) error {
	if p == nil || !p.Enabled {
		rule := "the server: command execution is disabled (start `rpa serve` with --allow-exec)"
		if p != nil && p.Disabled != "" {
			rule = p.Disabled
		}
		return &RefusedError{Command: command, Rule: rule}
	}
	if len(p.Allow) == 0 {
		return nil
	}
	p.once.Do(func() {
		for _, g := range p.Allow {
			p.rules = append(p.rules, globRE(strings.TrimSpace(g), true))
			p.argvRules = append(p.argvRules, globRE(strings.TrimSpace(g), false))
		}
	})
	c := strings.TrimSpace(command)
	rules := p.rules
	if !shell {
		rules = p.argvRules
	}
	for _, re := range rules {
		if re.MatchString(c) {
			return nil
		}
	}
	quoted := make([]string, len(p.Allow))
	for i, g := range p.Allow {
		quoted[i] = fmt.Sprintf("%q", g)
	}
	return &RefusedError{Command: command, Rule: "the --exec-allow list: no rule matches (rules: " + strings.Join(quoted, ", ") + ")"}
}

// Output is the outcome of one command.
type Output struct {
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	Code       int    `json:"code"`               // exit code; -1 when killed
	Truncated  bool   `json:"truncated"`          // an output passed MaxOutput
	TimedOut   bool   `json:"timedOut,omitempty"` // killed by the time limit
	DurationMs int64  `json:"durationMs"`
}

// capBuffer keeps the first max bytes written and counts the rest.
type capBuffer struct {
	buf     bytes.Buffer
	max     int
	dropped bool
}

// Write keeps what fits under max and never fails, so the command is
// not killed by a full pipe.
func (c *capBuffer) Write(p []byte) (int, error) {
	room := c.max - c.buf.Len()
	if room <= 0 {
		c.dropped = c.dropped || len(p) > 0
		return len(p), nil
	}
	if len(p) > room {
		c.buf.Write(p[:room])
		c.dropped = true
		return len(p), nil
	}
	c.buf.Write(p)
	return len(p), nil
}

// Run checks command against the policy and runs it with `sh -c` (`cmd /C`
// on Windows) under timeout (the policy's when 0, at most MaxTimeout),
// killing its whole process group when time runs out or ctx ends. A
// refused command returns a *RefusedError; a command that ran returns its
// output whatever its exit code.
func (p *Policy) Run(ctx context.Context, command string, timeout time.Duration) (*Output, error) {
	if err := p.Check(command); err != nil {
		return nil, err
	}
	if strings.TrimSpace(command) == "" {
		return nil, errors.New("empty command")
	}
	return p.run(ctx, timeout, func(ctx context.Context) *exec.Cmd { return shellCommand(ctx, command) })
}

// RunArgs is Run for an argument list, executed directly (no shell) after
// CheckArgs.
func (p *Policy) RunArgs(ctx context.Context, args []string, timeout time.Duration) (*Output, error) {
	if err := p.CheckArgs(args); err != nil {
		return nil, err
	}
	if len(args) == 0 || args[0] == "" {
		return nil, errors.New("empty command")
	}
	return p.run(ctx, timeout, func(ctx context.Context) *exec.Cmd {
		return exec.CommandContext(ctx, args[0], args[1:]...)
	})
}

// run applies the limits to the command made by mk.
func (p *Policy) run(ctx context.Context, timeout time.Duration, mk func(context.Context) *exec.Cmd) (*Output, error) {
	if timeout <= 0 {
		timeout = p.Timeout
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	timeout = min(timeout, MaxTimeout)
	max := p.MaxOutput
	if max <= 0 {
		max = DefaultOutput
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := mk(tctx)
	if runtime.GOOS != "windows" {
		setProcessGroup(cmd)
	}
	stdout, stderr := &capBuffer{max: max}, &capBuffer{max: max}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = time.Second
	start := time.Now()
	err := cmd.Run()
	out := &Output{
		Stdout:     stdout.buf.String(),
		Stderr:     stderr.buf.String(),
		Truncated:  stdout.dropped || stderr.dropped,
		DurationMs: time.Since(start).Milliseconds(),
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return out, ctx.Err()
	case tctx.Err() != nil:
		out.TimedOut, out.Code = true, -1
	case errors.As(err, &ee):
		out.Code = ee.ExitCode()
	case errors.Is(err, exec.ErrWaitDelay):
		// The shell ended but a child kept the pipes open: keep its code.
		out.Code = cmd.ProcessState.ExitCode()
	default:
		return nil, err
	}
	return out, nil
}

// Exec runs an `exec` action's command under the policy, as core.Host's
// Exec: a string command through the shell (Run), an argument list
// directly (RunArgs, the rules seeing the arguments joined by spaces). A
// refusal is a *core.Error of kind exec_refused naming the rule.
func (p *Policy) Exec(ctx context.Context, c core.ExecCommand) (*core.ExecResult, error) {
	var out *Output
	var err error
	if len(c.Args) > 0 {
		out, err = p.RunArgs(ctx, c.Args, c.Timeout)
	} else {
		out, err = p.Run(ctx, c.Shell, c.Timeout)
	}
	if err != nil {
		var re *RefusedError
		if errors.As(err, &re) {
			return nil, &core.Error{Kind: core.KindExecRefused, Msg: "exec: " + re.Error()}
		}
		return nil, err
	}
	return &core.ExecResult{Stdout: out.Stdout, Stderr: out.Stderr, Code: out.Code, Truncated: out.Truncated}, nil
}
