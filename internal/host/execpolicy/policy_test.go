package execpolicy

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
)

func TestPolicyCheck(t *testing.T) {
	for _, tc := range []struct {
		name    string
		policy  *Policy
		command string
		ok      bool
		rule    string // substring of the refusal's rule
	}{
		{"disabled", &Policy{}, "echo hi", false, "--allow-exec"},
		{"nil", nil, "echo hi", false, "--allow-exec"},
		{"enabled, no list", &Policy{Enabled: true}, "anything goes", true, ""},
		{"glob match", &Policy{Enabled: true, Allow: []string{"echo *"}}, "echo hello world", true, ""},
		{"glob match with path", &Policy{Enabled: true, Allow: []string{"ls *"}}, "ls -la /tmp/x", true, ""},
		{"exact", &Policy{Enabled: true, Allow: []string{"git status"}}, "  git status ", true, ""},
		{"no match", &Policy{Enabled: true, Allow: []string{"echo *", "git status"}}, "rm -rf /", false, `"echo *", "git status"`},
		{"chained", &Policy{Enabled: true, Allow: []string{"echo *"}}, "echo hi; rm -rf ~", false, "--exec-allow"},
		{"piped", &Policy{Enabled: true, Allow: []string{"echo *"}}, "echo hi | sh", false, "--exec-allow"},
		{"subshell", &Policy{Enabled: true, Allow: []string{"echo *"}}, "echo $(id)", false, "--exec-allow"},
		{"backquote", &Policy{Enabled: true, Allow: []string{"echo *"}}, "echo `id`", false, "--exec-allow"},
		{"newline", &Policy{Enabled: true, Allow: []string{"echo *"}}, "echo a\nid", false, "--exec-allow"},
		{"literal operator in rule", &Policy{Enabled: true, Allow: []string{"date | cat"}}, "date | cat", true, ""},
		{"question mark", &Policy{Enabled: true, Allow: []string{"echo ?"}}, "echo ab", false, "--exec-allow"},
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
	p := &Policy{Enabled: true, MaxOutput: 100}
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

func TestPolicyCheckArgs(t *testing.T) {
	p := &Policy{Enabled: true, Allow: []string{"echo *"}}
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

// TestExec: the core.Host adapter refuses with kind exec_refused naming the
// rule (Disabled when set), runs strings through the shell and lists
// without one.
func TestExec(t *testing.T) {
	ctx := context.Background()
	_, err := (&Policy{Disabled: "rpa run: exec is off (use --allow-exec)"}).Exec(ctx, core.ExecCommand{Shell: "echo hi"})
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Kind != core.KindExecRefused || ce.Msg != "exec: command refused by rpa run: exec is off (use --allow-exec)" {
		t.Fatalf("refusal: %v", err)
	}
	p := &Policy{Enabled: true}
	res, err := p.Exec(ctx, core.ExecCommand{Shell: "echo a; exit 4"})
	if err != nil || res.Stdout != "a\n" || res.Code != 4 {
		t.Errorf("shell: %+v %v", res, err)
	}
	res, err = p.Exec(ctx, core.ExecCommand{Args: []string{"echo", "a; b"}})
	if err != nil || res.Stdout != "a; b\n" {
		t.Errorf("args: %+v %v", res, err)
	}
}
