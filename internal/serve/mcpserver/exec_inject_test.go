package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/host/profiles"
)

// execShellFlow interpolates a param into a shell command string.
const execShellFlow = `flow shell_echo "Echo a word through sh -c"

param word: string "What to echo"

r = exec "printf '%s|' {{ word }} && echo done"
return r
`

// TestExecInjection: values from params interpolated into an exec string
// stay one argument whatever they hold (no command runs from them), and a
// refused command names the rule that refused it.
func TestExecInjection(t *testing.T) {
	pool, err := profiles.New(profiles.Options{Driver: nopDriver{}, Launch: func(string) (drivers.LaunchOptions, error) {
		return drivers.LaunchOptions{}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "shell_echo.flow"), []byte(execShellFlow), 0o644)
	work := t.TempDir()
	pwned := filepath.Join(work, "PWNED")
	s, _ := newServer(t, Options{FlowsDir: dir, Pool: pool, NoWatch: true, AllowExec: true})
	cs, _ := connect(t, s)
	for _, word := range []string{
		"x; touch " + pwned,
		"$(touch " + pwned + ")",
		"`touch " + pwned + "`",
		"a' ; touch " + pwned + " ; echo '",
		"x && touch " + pwned,
		"x\ntouch " + pwned,
		"x | tee " + pwned,
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "workflow_shell_echo", Arguments: map[string]any{"word": word}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("%q: %s", word, textOf(t, res))
		}
		out, _ := structured(t, res)["outputs"].(map[string]any)
		if got, want := out["stdout"], word+"|done\n"; got != want {
			t.Errorf("%q: stdout %q, want %q", word, got, want)
		}
		if _, err := os.Stat(pwned); err == nil {
			t.Fatalf("%q ran a command", word)
		}
	}
	// Refused by the allow-list: the error names the rule.
	s2, _ := newServer(t, Options{FlowsDir: dir, Pool: pool, NoWatch: true, AllowExec: true, ExecAllow: []string{"ls *"}})
	cs2, _ := connect(t, s2)
	res, err := cs2.CallTool(context.Background(), &mcp.CallToolParams{Name: "workflow_shell_echo", Arguments: map[string]any{"word": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if txt := textOf(t, res); !res.IsError || !strings.Contains(txt, `exec_refused`) || !strings.Contains(txt, `--exec-allow list`) || !strings.Contains(txt, `\"ls *\"`) {
		t.Errorf("refused: %s", txt)
	}
}
