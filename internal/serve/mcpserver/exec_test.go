package mcpserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/host/profiles"
)

// TestDesktopExecTool checks the tool over MCP: absent and unknown unless
// enabled; allow-list refusals are -32001 naming the rule.
func TestDesktopExecTool(t *testing.T) {
	off, _ := newServer(t, Options{})
	if slices.Contains(off.ToolNames(), ToolDesktopExec) {
		t.Fatal("desktop_exec listed without --allow-exec")
	}
	raw := connectRaw(t, off)
	if code, msg := wireCode(t, raw.Call("tools/call", map[string]any{"name": ToolDesktopExec, "arguments": map[string]any{"command": "id"}})); code != CodeUnknownTool {
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
	code, msg := wireCode(t, raw.Call("tools/call", map[string]any{"name": ToolDesktopExec, "arguments": map[string]any{"command": "cat /etc/passwd"}}))
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
