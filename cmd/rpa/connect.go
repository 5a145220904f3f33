package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"syscall"

	"github.com/rpa-dev/rpa/connect"
	"github.com/rpa-dev/rpa/mcpserver"
	"github.com/rpa-dev/rpa/mcpws"
	"github.com/rpa-dev/rpa/profiles"
)

func init() {
	register(command{
		name:    "connect",
		usage:   "rpa connect URL --device-id ID [--token T] [--flows DIR] [--once] [--allow-exec [--exec-allow GLOB]...] [--allow-files] [--idle 10m] [--show] [--browser ws://...]",
		summary: "dial out to a backend (rpa gateway) over WebSocket and serve the flows as MCP tools there",
		run:     runConnect,
	})
}

// connectArgs parses fs allowing positional arguments between flags
// (`rpa connect URL --device-id ID`), and returns the positional ones.
func connectArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func runConnect(args []string) int {
	fs := flag.NewFlagSet("connect", flag.ContinueOnError)
	deviceID := fs.String("device-id", "", "this desktop's id at the backend (required)")
	token := fs.String("token", "", "bearer token sent to the backend (default $RPA_TOKEN)")
	flows := fs.String("flows", "", "folder of flows to serve (default $RPA_HOME/flows)")
	once := fs.Bool("once", false, "exit at the first disconnect instead of re-dialling (exit code 1)")
	allowExec := fs.Bool("allow-exec", false, "enable desktop_exec and the exec action")
	allowFiles := fs.Bool("allow-files", false, "let served flows open file: URLs and upload, download or screenshot outside the temp dir")
	var execAllow multiFlag
	fs.Var(&execAllow, "exec-allow", "allow only commands matching this glob (repeatable; needs --allow-exec)")
	idle := fs.Duration("idle", profiles.DefaultIdle, "close a profile's browser after this idle time")
	show := fs.Bool("show", false, "show browser windows instead of running headless")
	remote := fs.String("browser", "", "attach to a running DevTools endpoint (ws://HOST:PORT/...) instead of launching")
	ping := fs.Duration("ping", mcpws.DefaultPingInterval, "ping interval; the backend is declared dead after two silent intervals")
	maxFrame := fs.Int64("max-frame", mcpws.DefaultMaxFrame, "largest frame accepted from the backend, in bytes")
	verbose := fs.Bool("v", false, "log debug lines")
	hitlOrder := fs.String("hitl", "", hitlUsage)
	pos, err := connectArgs(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		fmt.Fprintln(os.Stderr, "rpa connect: want exactly one URL (ws://HOST/PATH or wss://HOST/PATH)")
		return exitUsage
	}
	if u, err := url.Parse(pos[0]); err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		fmt.Fprintf(os.Stderr, "rpa connect: URL %q must be ws://HOST/PATH or wss://HOST/PATH\n", pos[0])
		return exitUsage
	}
	if *deviceID == "" {
		fmt.Fprintln(os.Stderr, "rpa connect: --device-id is required")
		return exitUsage
	}
	if len(execAllow) > 0 && !*allowExec {
		fmt.Fprintln(os.Stderr, "rpa connect: --exec-allow needs --allow-exec")
		return exitUsage
	}
	if *token == "" {
		*token = os.Getenv("RPA_TOKEN")
	}
	dir := *flows
	if dir == "" {
		dir = defaultFlowsDir()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintf(os.Stderr, "rpa connect: %v\n", err)
			return exitUsage
		}
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	pool, err := newProfilePool(*show, *remote, *idle, log)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rpa connect: %v\n", err)
		return exitUsage
	}
	defer pool.Close()
	hcfg, err := serverHITL(*hitlOrder)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rpa connect: %v\n", err)
		return 2
	}
	hcfg.Log = log
	srv, err := mcpserver.New(mcpserver.Options{
		FlowsDir:         dir,
		Pool:             pool,
		AllowExec:        *allowExec,
		AllowFiles:       *allowFiles,
		ExecAllow:        execAllow,
		Logger:           log,
		HITL:             hcfg,
		NoURLElicitation: true, // the backend is not on this machine: passwords go to the desktop channels
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "rpa connect: %v\n", err)
		return exitUsage
	}
	defer srv.Close()

	caps := []string{mcpws.CapBrowserControl, mcpws.CapWorkflowExecution}
	if *allowExec {
		caps = append([]string{mcpws.CapDesktopExec}, caps...)
	}
	c, err := connect.New(connect.Options{
		URL:          pos[0],
		DeviceID:     *deviceID,
		Token:        *token,
		Server:       srv.MCP(),
		ToolNames:    srv.ToolNames,
		Capabilities: caps,
		Once:         *once,
		Link:         mcpws.Options{PingInterval: *ping, MaxFrame: *maxFrame},
		Logger:       log,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "rpa connect: %v\n", err)
		return exitUsage
	}
	srv.OnToolsChanged(c.ToolsChanged)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log.Info("connecting", "device", *deviceID, "flows", dir, "tools", len(srv.ToolNames()))
	if err := c.Run(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "rpa connect: %v\n", err)
		return exitFailed
	}
	return exitOK
}
