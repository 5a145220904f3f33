package connect

import (
	"flag"
	"os"

	"github.com/rpa-dev/rpa/internal/link/mcpws"
)

// Register adds the link's flags to fs, writing into o: --device-id,
// --token, --ping and --max-frame (rpa connect; rpa ui --connect). The
// backend's URL is the caller's to take (an argument, or a flag). Call
// TokenFromEnv after parsing.
func (o *Options) Register(fs *flag.FlagSet) {
	if o.Link.PingInterval == 0 {
		o.Link.PingInterval = mcpws.DefaultPingInterval
	}
	if o.Link.MaxFrame == 0 {
		o.Link.MaxFrame = mcpws.DefaultMaxFrame
	}
	fs.StringVar(&o.DeviceID, "device-id", "", "this desktop's id at the backend (required)")
	fs.StringVar(&o.Token, "token", "", "bearer token sent to the backend (default $RPA_TOKEN)")
	fs.DurationVar(&o.Link.PingInterval, "ping", o.Link.PingInterval, "ping interval; the backend is declared dead after two silent intervals")
	fs.Int64Var(&o.Link.MaxFrame, "max-frame", o.Link.MaxFrame, "largest frame accepted from the backend, in bytes")
}

// TokenFromEnv sets Token from $RPA_TOKEN when no --token was given (the
// environment's value never shows in a flag's help text).
func (o *Options) TokenFromEnv() {
	if o.Token == "" {
		o.Token = os.Getenv("RPA_TOKEN")
	}
}
