package connect

import (
	"flag"
	"io"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/link/mcpws"
)

// TestRegisterFlags: the link's flags fill Options; the token comes from
// $RPA_TOKEN only when no --token was given, and never shows in the help.
func TestRegisterFlags(t *testing.T) {
	t.Setenv("RPA_TOKEN", "env-token-123")
	parse := func(args ...string) Options {
		var o Options
		fs := flag.NewFlagSet("connect", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		o.Register(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		o.TokenFromEnv()
		return o
	}
	o := parse("--device-id", "desk-1", "--ping", "5s", "--max-frame", "4096")
	if o.DeviceID != "desk-1" || o.Token != "env-token-123" || o.Link.PingInterval != 5*time.Second || o.Link.MaxFrame != 4096 {
		t.Errorf("options = %+v", o)
	}
	if o := parse("--token", "flag-token"); o.Token != "flag-token" || o.Link.PingInterval != mcpws.DefaultPingInterval || o.Link.MaxFrame != mcpws.DefaultMaxFrame {
		t.Errorf("options = %+v", o)
	}
	var o2 Options
	fs := flag.NewFlagSet("connect", flag.ContinueOnError)
	o2.Register(fs)
	fs.VisitAll(func(f *flag.Flag) {
		if f.DefValue == "env-token-123" {
			t.Errorf("--%s shows the environment's token as its default", f.Name)
		}
	})
}
