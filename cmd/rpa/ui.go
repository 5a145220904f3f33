package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"sync"

	"github.com/rpa-dev/rpa/connect"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/flowserver"
	"github.com/rpa-dev/rpa/internal/cliflag"
	"github.com/rpa-dev/rpa/mcpserver"
	"github.com/rpa-dev/rpa/mcpws"
	"github.com/rpa-dev/rpa/runs"
	"github.com/rpa-dev/rpa/ui"
)

func init() {
	register(command{
		name: "ui",
		usage: "rpa ui [--listen 127.0.0.1:PORT] [--flows DIR] [--open] [--serve-http ADDR [--http-token T]] " +
			"[--connect URL --device-id ID [--token T]] [serve's flags: --allow-exec, --show, --browser ws://...]",
		summary: "the desktop console: flows, editor, publish, run, runs, questions (a local web app on loopback)",
		run:     withSignals(runUI),
	})
}

// runUI is `rpa ui`: the console on a loopback address (its URL, with the start token, on
// stdout; --open shows it in the desktop's browser), over the flows folder served as MCP tools
// in this process; --serve-http and --connect also give those tools to agents, as `rpa serve
// --http` and `rpa connect` would, on the same browsers and run store. Exit 0 when ctx ended it,
// 1 when serving failed, 2 on usage or set-up problems.
func runUI(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("ui", stderr)
	var cfg flowserver.Config
	cfg.Register(fs)
	verbose := fs.Bool("v", false, "log debug lines")
	listen := fs.String("listen", "127.0.0.1:0", "the console's address, on loopback (port 0: a free port)")
	open := fs.Bool("open", false, "open the console in the desktop's browser")
	served := fs.String("publish-to", "", "the folder the Publish dialog publishes to (default: the --flows folder, which is served)")
	httpAddr := fs.String("serve-http", "", "also serve the tools over Streamable HTTP on ADDR, as rpa serve --http does")
	httpToken := fs.String("http-token", "", "with --serve-http, the bearer token HTTP clients must send (default $RPA_TOKEN)")
	shareProfiles := fs.Bool("share-profiles", false, "let every MCP session (the console's too) use every profile")
	var allowOrigin cliflag.List
	fs.Var(&allowOrigin, "allow-origin", "with --serve-http, let browser pages of this origin call it (repeatable)")
	linkURL := fs.String("connect", "", "also dial a backend (rpa gateway) at this ws:// or wss:// URL, as rpa connect does")
	deviceID := fs.String("device-id", "", "with --connect, this desktop's id at the backend")
	token := fs.String("token", "", "with --connect, the bearer token sent to the backend (default $RPA_TOKEN)")
	ping := fs.Duration("ping", mcpws.DefaultPingInterval, "with --connect, the ping interval")
	maxFrame := fs.Int64("max-frame", mcpws.DefaultMaxFrame, "with --connect, the largest frame accepted from the backend, in bytes")
	for _, f := range []string{"serve-http", "connect", "listen"} {
		if cliflag.MissingValue(args, f) {
			return fail(stderr, exitUsage, "ui", fmt.Errorf("--%s needs a value", f))
		}
	}
	if done, code := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		return fail(stderr, exitUsage, "ui", fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if err := ui.CheckListen(*listen); err != nil {
		return fail(stderr, exitUsage, "ui", err)
	}
	if err := mcpserver.CheckOrigins(allowOrigin); err != nil {
		return fail(stderr, exitUsage, "ui", err)
	}
	opts := mcpserver.Options{AllowOrigins: allowOrigin, ShareProfiles: *shareProfiles}
	var link connect.Options
	if *linkURL != "" {
		link = connect.Options{URL: *linkURL, DeviceID: *deviceID, Token: cmp.Or(*token, os.Getenv("RPA_TOKEN")),
			Link: mcpws.Options{PingInterval: *ping, MaxFrame: *maxFrame}}
		if err := link.Check(); err != nil {
			return fail(stderr, exitUsage, "ui", fmt.Errorf("--connect: %w", err))
		}
		// As rpa connect: the backend is not on this machine (passwords go to the desktop
		// channels), it is the one caller, and its runs are recorded with the device.
		opts.NoURLElicitation, opts.ShareProfiles, opts.RunCaller, opts.RunDevice = true, true, runs.CallerLink, *deviceID
	} else if *deviceID != "" || *token != "" {
		return fail(stderr, exitUsage, "ui", errors.New("--device-id and --token go with --connect URL"))
	}
	if *httpAddr == "" && (*httpToken != "" || len(allowOrigin) > 0) {
		return fail(stderr, exitUsage, "ui", errors.New("--http-token and --allow-origin go with --serve-http ADDR"))
	}
	s, err := flowserver.New(cfg, opts, logger(stderr, *verbose))
	if err != nil {
		return fail(stderr, exitUsage, "ui", err)
	}
	defer s.Close()

	var hosting []string
	var ln net.Listener
	if *httpAddr != "" {
		if ln, err = net.Listen("tcp", mcpserver.HTTPAddr(*httpAddr)); err != nil {
			return fail(stderr, exitUsage, "ui", fmt.Errorf("--serve-http: %w", err))
		}
		hosting = append(hosting, "MCP Streamable HTTP at http://"+ln.Addr().String()+"/")
	}
	var lc *connect.Client
	if *linkURL != "" {
		if lc, err = s.Dial(link); err != nil {
			return fail(stderr, exitUsage, "ui", fmt.Errorf("--connect: %w", err))
		}
		hosting = append(hosting, "link to "+*linkURL+" as device "+*deviceID)
	}
	con, err := ui.New(ui.Options{Home: drivers.Home(), FlowsDir: s.Dir, ServedDir: cmp.Or(*served, s.Dir), Listen: *listen,
		Log: stderr, Tools: s.MCP, Hosting: hosting, Browsers: rod.Endpoints(cfg.Remote)})
	if err != nil {
		return fail(stderr, exitUsage, "ui", err)
	}
	if err := con.Listen(); err != nil {
		return fail(stderr, exitUsage, "ui", err)
	}
	fmt.Fprintf(stdout, "rpa ui: the console is at %s\n", con.URL())
	if ln != nil {
		fmt.Fprintf(stderr, "rpa ui: serving MCP on http://%s/\n", ln.Addr())
	}
	if *open {
		if err := openBrowser(con.URL()); err != nil {
			fmt.Fprintf(stderr, "rpa ui: could not open a browser (%v); open the address above\n", err)
		}
	}

	// The console and whatever it hosts run until ctx ends; the first to fail ends them all.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	run := func(what string, f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(); err != nil {
				errs <- fmt.Errorf("%s: %w", what, err)
				cancel()
			}
		}()
	}
	run("console", func() error { return con.Serve(ctx) })
	if ln != nil {
		run("--serve-http", func() error { return s.ServeHTTP(ctx, ln, cmp.Or(*httpToken, os.Getenv("RPA_TOKEN"))) })
	}
	if lc != nil {
		run("--connect", func() error { return s.ServeLink(ctx, lc) })
	}
	wg.Wait()
	close(errs)
	code := exitOK
	for err := range errs {
		fmt.Fprintf(stderr, "rpa ui: %v\n", err)
		code = exitFailed
	}
	return code
}

// openBrowser shows url in the desktop's default browser (xdg-open, open, or start on
// Windows); it does not wait for the browser.
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "windows":
		cmd = exec.Command("cmd", "/c", "start", "", url)
	case "darwin":
		cmd = exec.Command("open", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // reap it
	return nil
}
