package localrun

import (
	"context"
	"errors"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/host/execpolicy"
	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/internal/runs"
)

// TestHost: the order is checked; with no channel to ask on `ask` says so;
// exec follows the policy (refused when disabled).
func TestHost(t *testing.T) {
	t.Setenv("RPA_LLM_BASE_URL", "")
	if _, err := Host("pigeon", nil, nil, &execpolicy.Policy{}); err == nil {
		t.Error("bad --hitl accepted")
	}
	h, err := Host("terminal", nil, nil, &execpolicy.Policy{Disabled: "exec is off"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Ask(context.Background(), core.Question{Message: "name?"}); !errors.As(err, new(*hitl.NoChannelError)) {
		t.Errorf("ask without a terminal: %v", err)
	}
	if _, err := h.Exec(context.Background(), core.ExecCommand{Args: []string{"true"}}); err == nil {
		t.Error("exec ran under a disabled policy")
	}
}

// TestOptionsCheck: each bad setting names its flag.
func TestOptionsCheck(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{}, ""},
		{Options{Heal: "sometimes"}, "--heal"},
		{Options{Runs: runs.Settings{Evidence: "all"}}, "--evidence"},
		{Options{Timeout: -1}, "--timeout"},
		{Options{AccountWait: -time.Second}, "--account-wait must not be negative"},
		{Options{ProfileWait: -time.Second}, "--profile-wait must not be negative"},
	} {
		err := c.o.Check()
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}

// TestRegister: the run flags fill the options.
func TestRegister(t *testing.T) {
	var o Options
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	o.Register(fs)
	err := fs.Parse([]string{"--profile", "p", "--show", "--timeout", "2m", "--browser", "ws://a", "--browser", "ws://b", "--browser-bin", "/c", "--heal", "auto", "--evidence", "full", "--runs-keep", "3"})
	if err != nil || o.Profile != "p" || !o.Show || o.Timeout != 2*time.Minute || o.Remote != "ws://a,ws://b" || o.Bin != "/c" || o.Heal != "auto" || o.Runs.Evidence != "full" || o.Runs.Keep != 3 {
		t.Errorf("%+v %v", o, err)
	}
}
