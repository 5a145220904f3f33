package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/rpa-dev/rpa/connect"
	"github.com/rpa-dev/rpa/flowserver"
	"github.com/rpa-dev/rpa/mcpserver"
	"github.com/rpa-dev/rpa/mcpws"
	"github.com/rpa-dev/rpa/runs"
)

func init() {
	register(command{
		name:    "connect",
		usage:   "rpa connect URL --device-id ID [--token T] [--flows DIR] [--once] [--allow-exec [--exec-allow GLOB]...] [--allow-files] [--idle 10m] [--show] [--browser ws://...]",
		summary: "dial out to a backend (rpa gateway) over WebSocket and serve the flows as MCP tools there",
		run:     withSignals(runConnect),
	})
}

// runConnect is `rpa connect`: it serves the flows folder as `rpa serve`
// does, over a WebSocket link it dials to URL (re-dialling until ctx ends,
// or once with --once). Exit 0 when ctx ended it, 1 when the link failed
// for good, 2 on usage or set-up problems.
func runConnect(ctx context.Context, args []string, _, stderr io.Writer) int {
	fs := newFlags("connect", stderr)
	var cfg flowserver.Config
	cfg.Register(fs)
	verbose := fs.Bool("v", false, "log debug lines")
	deviceID := fs.String("device-id", "", "this desktop's id at the backend (required)")
	token := fs.String("token", "", "bearer token sent to the backend (default $RPA_TOKEN)")
	once := fs.Bool("once", false, "exit at the first disconnect instead of re-dialling (exit code 1)")
	ping := fs.Duration("ping", mcpws.DefaultPingInterval, "ping interval; the backend is declared dead after two silent intervals")
	maxFrame := fs.Int64("max-frame", mcpws.DefaultMaxFrame, "largest frame accepted from the backend, in bytes")
	pos, done, code := parseArgs(fs, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "rpa connect: want exactly one URL (ws://HOST/PATH or wss://HOST/PATH)")
		return exitUsage
	}
	o := connect.Options{URL: pos[0], DeviceID: *deviceID, Token: cmp.Or(*token, os.Getenv("RPA_TOKEN")), Once: *once,
		Link: mcpws.Options{PingInterval: *ping, MaxFrame: *maxFrame}}
	if err := o.Check(); err != nil {
		return fail(stderr, exitUsage, "connect", err)
	}
	// The backend is not on this machine: passwords go to the desktop
	// channels. One caller, the backend (each link is a new session); its
	// runs are recorded with the device.
	s, err := flowserver.New(cfg, mcpserver.Options{NoURLElicitation: true, ShareProfiles: true,
		RunCaller: runs.CallerLink, RunDevice: *deviceID}, logger(stderr, *verbose))
	if err != nil {
		return fail(stderr, exitUsage, "connect", err)
	}
	defer s.Close()
	c, err := s.Dial(o)
	if err != nil {
		return fail(stderr, exitUsage, "connect", err)
	}
	s.Log.Info("connecting", "device", *deviceID, "flows", s.Dir, "tools", len(s.MCP.ToolNames()))
	if err := s.ServeLink(ctx, c); err != nil {
		return fail(stderr, exitFailed, "connect", err)
	}
	return exitOK
}
