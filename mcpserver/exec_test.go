package mcpserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/profiles"
)

func TestExecPolicyCheck(t *testing.T) {
	for _, tc := range []struct {
		name    string
		policy  *ExecPolicy
		command string
		ok      bool
		rule    string // substring of the refusal's rule
	}{
		{"disabled", &ExecPolicy{}, "echo hi", false, "--allow-exec"},
		{"nil", nil, "echo hi", false, "--allow-exec"},
		{"enabled, no list", &ExecPolicy{Enabled: true}, "anything goes", true, ""},
		{"glob match", &ExecPolicy{Enabled: true, Allow: []string{"echo *"}}, "echo hello world", true, ""},
		{"glob match with path", &ExecPolicy{Enabled: true, Allow: []string{"ls *"}}, "ls -la /tmp/x", true, ""},
		{"exact", &ExecPolicy{Enabled: true, Allow: []string{"git status"}}, "  git status ", true, ""},
		{"no match", &ExecPolicy{Enabled: true, Allow: []string{"echo *", "git status"}}, "rm -rf /", false, `"echo *", "git status"`},
		{"chained", &ExecPolicy{Enabled: true, Allow: []string{"echo *"}}, "echo hi; rm -rf ~", false, "--exec-allow"},
		{"piped", &ExecPolicy{Enabled: true, Allow: []string{"echo *"}}, "echo hi | sh", false, "--exec-allow"},
		{"subshell", &ExecPolicy{Enabled: true, Allow: []string{"echo *"}}, "echo $(id)", false, "--exec-allow"},
		{"backquote", &ExecPolicy{Enabled: true, Allow: []string{"echo *"}}, "echo `id`", false, "--exec-allow"},
		{"newline", &ExecPolicy{Enabled: true, Allow: []string{"echo *"}}, "echo a\nid", false, "--exec-allow"},
		{"literal operator in rule", &ExecPolicy{Enabled: true, Allow: []string{"date | cat"}}, "date | cat", true, ""},
		{"question mark", &ExecPolicy{Enabled: true, Allow: []string{"echo ?"}}, "echo ab", false, "--exec-allow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.policy.Check(tc.command)
			if tc.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var re *RefusedError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want *RefusedError", err)
			}
			if !strings.Contains(re.Error(), tc.rule) {
				t.Errorf("refusal %q does not name the rule %q", re.Error(), tc.rule)
			}
		})
	}
}

func TestExecRun(t *testing.T) {
	p := &ExecPolicy{Enabled: true, MaxOutput: 100}
	ctx := context.Background()
	out, err := p.Run(ctx, "echo out; echo err >&2; exit 3", 0)
	if err != nil {
		t.Fatal(err)
	}
	if out.Stdout != "out\n" || out.Stderr != "err\n" || out.Code != 3 || out.Truncated {
		t.Errorf("got %+v", out)
	}
	out, err = p.Run(ctx, "yes | head -c 5000", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Stdout) != 100 || !out.Truncated {
		t.Errorf("cap: len %d truncated %v", len(out.Stdout), out.Truncated)
	}
	// The time limit kills the whole process group, background children too.
	start := time.Now()
	out, err = p.Run(ctx, "sleep 30 & sleep 30", 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if !out.TimedOut || out.Code != -1 {
		t.Errorf("timeout: %+v", out)
	}
	if d := time.Since(start); d > 20*time.Second { // only when it waited for the sleeps (30s)
		t.Errorf("timeout took %v", d)
	}
	// Cancellation returns promptly with ctx's error.
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := p.Run(cctx, "sleep 30", 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancel: %v", err)
	}
}

// TestDesktopExecTool checks the tool over MCP: absent and unknown unless
// enabled; allow-list refusals are -32001 naming the rule.
func TestDesktopExecTool(t *testing.T) {
	off, _ := newServer(t, Options{})
	if slices.Contains(off.ToolNames(), ToolDesktopExec) {
		t.Fatal("desktop_exec listed without --allow-exec")
	}
	raw := connectRaw(t, off)
	if code, msg := wireCode(t, raw.call("tools/call", map[string]any{"name": ToolDesktopExec, "arguments": map[string]any{"command": "id"}})); code != CodeUnknownTool {
		t.Fatalf("disabled desktop_exec: code %d %s, want %d", code, msg, CodeUnknownTool)
	}

	on, logs := newServer(t, Options{AllowExec: true, ExecAllow: []string{"echo *"}})
	if !slices.Contains(on.ToolNames(), ToolDesktopExec) {
		t.Fatal("desktop_exec not listed with --allow-exec")
	}
	cs, _ := connect(t, on)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolDesktopExec, Arguments: map[string]any{"command": "echo hello"}})
	if err != nil {
		t.Fatal(err)
	}
	if m := structured(t, res); m["stdout"] != "hello\n" || m["code"] != 0.0 || res.IsError {
		t.Errorf("result %v", m)
	}
	raw = connectRaw(t, on)
	code, msg := wireCode(t, raw.call("tools/call", map[string]any{"name": ToolDesktopExec, "arguments": map[string]any{"command": "cat /etc/passwd"}}))
	if code != CodeBuiltinFailed || !strings.Contains(msg, `"echo *"`) {
		t.Fatalf("refused: code %d %q", code, msg)
	}
	if !strings.Contains(logs.String(), "desktop_exec refused") {
		t.Error("refusal not logged")
	}
}

// nopDriver launches a browser with no pages, for flows that never touch
// the page (the pool still serialises them per profile).
type nopDriver struct{}

func (nopDriver) Launch(context.Context, drivers.LaunchOptions) (drivers.Browser, error) {
	return nopBrowser{}, nil
}

type nopBrowser struct{}

func (nopBrowser) NewPage(context.Context, string) (drivers.Page, error) {
	return nil, errors.New("no pages here")
}
func (nopBrowser) Pages(context.Context) ([]drivers.Page, error) { return nil, nil }
func (nopBrowser) Alive() bool                                   { return true }
func (nopBrowser) Close() error                                  { return nil }

const execFlow = `flow run_cmd "Runs a command"

param word: string "What to echo"

r = exec ["echo", word]
return r.stdout
`

// TestExecActionInFlow: the exec action of a served flow follows the same
// policy as desktop_exec.
func TestExecActionInFlow(t *testing.T) {
	pool, err := profiles.New(profiles.Options{Driver: nopDriver{}, Launch: func(string) (drivers.LaunchOptions, error) {
		return drivers.LaunchOptions{}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for _, tc := range []struct {
		name  string
		opts  Options
		out   string
		kind  string
		isErr bool
	}{
		{"disabled", Options{}, "", "exec_refused", true},
		{"allowed", Options{AllowExec: true, ExecAllow: []string{"echo *"}}, "it's ok\n", "", false},
		{"not on the list", Options{AllowExec: true, ExecAllow: []string{"ls *"}}, "", "exec_refused", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "run_cmd.flow"), []byte(execFlow), 0o644)
			tc.opts.FlowsDir, tc.opts.Pool, tc.opts.NoWatch = dir, pool, true
			s, _ := newServer(t, tc.opts)
			cs, _ := connect(t, s)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "workflow_run_cmd", Arguments: map[string]any{"word": "it's ok"}})
			if err != nil {
				t.Fatal(err)
			}
			m := structured(t, res)
			if res.IsError != tc.isErr {
				t.Fatalf("isError %v: %s", res.IsError, textOf(t, res))
			}
			if tc.kind != "" {
				if e, _ := m["error"].(map[string]any); e["kind"] != tc.kind {
					t.Errorf("error = %v", m["error"])
				}
			} else if m["outputs"] != tc.out {
				t.Errorf("outputs = %q", m["outputs"])
			}
		})
	}
}

func TestExecPolicyCheckArgs(t *testing.T) {
	p := &ExecPolicy{Enabled: true, Allow: []string{"echo *"}}
	// No shell reads an argument list, so operators are plain characters.
	if err := p.CheckArgs([]string{"echo", "a; b", `it's`}); err != nil {
		t.Errorf("argv refused: %v", err)
	}
	if err := p.CheckArgs([]string{"rm", "-rf", "/"}); err == nil {
		t.Error("argv outside the list allowed")
	}
	out, err := p.RunArgs(context.Background(), []string{"echo", "$(id)"}, 0)
	if err != nil || out.Stdout != "$(id)\n" {
		t.Errorf("RunArgs: %+v %v", out, err)
	}
}
