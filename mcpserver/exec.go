package mcpserver

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
)

// Default limits of desktop_exec (and of the `exec` action when served).
const (
	DefaultExecTimeout = 30 * time.Second
	MaxExecTimeout     = 10 * time.Minute
	DefaultExecOutput  = 64 << 10 // bytes kept per stream
)

// shellMeta are the characters a `*` or `?` of an allow rule never
// matches, so "ls *" does not allow "ls; rm -rf ~" or "ls $(rm x)".
const shellMeta = ";&|<>$`\n\r\\(){}"

// ExecPolicy decides which commands desktop_exec (and the `exec` action)
// may run.
type ExecPolicy struct {
	// Enabled is --allow-exec; without it every command is refused.
	Enabled bool
	// Allow are --exec-allow globs matched against the whole command
	// (trimmed): `*` any run of characters and `?` one character, except
	// shell operators (`;&|<>$` backquote, newline, backslash, parentheses
	// and braces), which only match themselves written literally. Empty
	// means every command is allowed once Enabled.
	Allow []string
	// Timeout bounds a command without its own timeout (DefaultExecTimeout
	// when 0); MaxOutput caps each of stdout and stderr in bytes
	// (DefaultExecOutput when 0).
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
func (p *ExecPolicy) Check(command string) error {
	return p.check(command, true)
}

// CheckArgs is Check for an argument list run without a shell: the rules
// see the arguments joined by spaces, and since no shell reads them `*`
// and `?` match any character there.
func (p *ExecPolicy) CheckArgs(args []string) error {
	return p.check(strings.Join(args, " "), false)
}

func (p *ExecPolicy) check(command string, shell bool) error {
	if p == nil || !p.Enabled {
		return &RefusedError{Command: command, Rule: "the server: command execution is disabled (start `rpa serve` with --allow-exec)"}
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

// ExecOutput is the outcome of one command.
type ExecOutput struct {
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
// on Windows) under timeout (the policy's when 0, at most MaxExecTimeout),
// killing its whole process group when time runs out or ctx ends. A
// refused command returns a *RefusedError; a command that ran returns its
// output whatever its exit code.
func (p *ExecPolicy) Run(ctx context.Context, command string, timeout time.Duration) (*ExecOutput, error) {
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
func (p *ExecPolicy) RunArgs(ctx context.Context, args []string, timeout time.Duration) (*ExecOutput, error) {
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
func (p *ExecPolicy) run(ctx context.Context, timeout time.Duration, mk func(context.Context) *exec.Cmd) (*ExecOutput, error) {
	if timeout <= 0 {
		timeout = p.Timeout
	}
	if timeout <= 0 {
		timeout = DefaultExecTimeout
	}
	timeout = min(timeout, MaxExecTimeout)
	max := p.MaxOutput
	if max <= 0 {
		max = DefaultExecOutput
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
	out := &ExecOutput{
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
