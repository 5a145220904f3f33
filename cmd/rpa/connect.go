package main

import (
	"context"
	"fmt"
	"io"

	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/serve/flowserver"
)

func init() {
	register(command{
		name:    "connect",
		usage:   "rpa connect URL [URL...] --device-id ID [--token T] [--flows DIR] [--once] [--allow-exec [--exec-allow GLOB]...] [--allow-files] [--idle 10m] [--show] [--browser ws://...]",
		summary: "dial out to a backend (rpa gateway) over WebSocket and serve the flows as MCP tools there",
		run:     withSignals(runConnect),
	})
}

// runConnect is `rpa connect`: it serves the flows folder as `rpa serve`
// does, over a WebSocket link it dials to URL (re-dialling until ctx ends,
// or once with --once); given several URLs (the replicas of a gateway
// cluster) it links to the first that answers and moves to the next when
// its link ends. Exit 0 when ctx ended it, 1 when the link failed
// for good, 2 on usage or set-up problems.
func runConnect(ctx context.Context, args []string, _, stderr io.Writer) int {
	fs := newFlags("connect", stderr)
	var cfg flowserver.Config
	cfg.Register(fs)
	var o connect.Options
	o.Register(fs)
	verbose := fs.Bool("v", false, "log debug lines")
	fs.BoolVar(&o.Once, "once", false, "exit at the first disconnect instead of re-dialling (exit code 1)")
	pos, done, code := parseArgs(fs, args)
	if done {
		return code
	}
	o.URL, o.More = connect.SplitURLs(pos)
	if o.URL == "" {
		fmt.Fprintln(stderr, "rpa connect: want the backend's URL (ws://HOST/PATH or wss://HOST/PATH; several for the replicas of a gateway cluster)")
		return exitUsage
	}
	o.TokenFromEnv()
	if err := o.Check(); err != nil {
		return fail(stderr, exitUsage, "connect", err)
	}
	s, err := flowserver.New(cfg, flowserver.LinkOptions(o.DeviceID), logger(stderr, *verbose))
	if err != nil {
		return fail(stderr, exitUsage, "connect", err)
	}
	defer s.Close()
	s.StartSchedules(ctx) // fires the schedules unless another process does, or --schedules=false
	c, err := s.Dial(o)
	if err != nil {
		return fail(stderr, exitUsage, "connect", err)
	}
	s.Log.Info("connecting", "device", o.DeviceID, "flows", s.Dir, "tools", len(s.MCP.ToolNames()))
	if err := s.ServeLink(ctx, c); err != nil {
		return fail(stderr, exitFailed, "connect", err)
	}
	return exitOK
}
