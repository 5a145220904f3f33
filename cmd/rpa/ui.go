package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"golang.org/x/sync/errgroup"

	"github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/cliflag"
	"github.com/rpa-dev/rpa/internal/host/home"
	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/serve/flowserver"
	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
	"github.com/rpa-dev/rpa/internal/ui"
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
	var link connect.Options
	link.Register(fs)
	verbose := fs.Bool("v", false, "log debug lines")
	listen := fs.String("listen", "127.0.0.1:0", "the console's address, on loopback (port 0: a free port)")
	open := fs.Bool("open", false, "open the console in the desktop's browser")
	served := fs.String("publish-to", "", "the folder the Publish dialog publishes to (default: the --flows folder, which is served)")
	var h flowserver.HTTP
	h.Register(fs, "serve-http", "also serve the tools over Streamable HTTP on ADDR, as rpa serve --http does", "http-token")
	shareProfiles := fs.Bool("share-profiles", false, "let every agent's MCP session use every profile (the console's own session always may)")
	fs.StringVar(&link.URL, "connect", "", "also dial a backend (rpa gateway) at this ws:// or wss:// URL, as rpa connect does")
	for _, f := range []string{"serve-http", "connect", "listen"} {
		if cliflag.MissingValue(args, f) {
			return fail(stderr, exitUsage, "ui", fmt.Errorf("--%s needs a value", f))
		}
	}
	if done, code := parseFlags(fs, args); done {
		return code
	}
	var err error
	switch {
	case fs.NArg() > 0:
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case link.URL == "" && (link.DeviceID != "" || link.Token != ""):
		err = errors.New("--device-id and --token go with --connect URL")
	case h.Addr == "" && (len(h.Tokens) > 0 || len(h.AllowOrigins) > 0):
		err = errors.New("--http-token and --allow-origin go with --serve-http ADDR")
	default:
		err = cmp.Or(ui.CheckListen(*listen), h.Check())
	}
	opts := mcpserver.Options{ShareProfiles: *shareProfiles}
	if err == nil && link.URL != "" {
		link.TokenFromEnv()
		if err = link.Check(); err != nil {
			err = fmt.Errorf("--connect: %w", err)
		}
		opts = flowserver.LinkOptions(link.DeviceID) // as rpa connect
	}
	opts.SessionIdle = h.SessionIdle
	if err != nil {
		return fail(stderr, exitUsage, "ui", err)
	}
	opts.AllowOrigins = h.AllowOrigins
	// The addresses first: a busy port is told before the flows are loaded and logged.
	conLn, err := ui.ListenConsole(*listen)
	if err != nil {
		return fail(stderr, exitUsage, "ui", err)
	}
	defer conLn.Close()
	var hosting []string
	var ln net.Listener
	if h.Addr != "" {
		if ln, err = h.Listen(); err != nil {
			return fail(stderr, exitUsage, "ui", fmt.Errorf("--serve-http: %w", err))
		}
		defer ln.Close()
		hosting = append(hosting, "MCP Streamable HTTP at http://"+ln.Addr().String()+"/")
	}
	s, err := flowserver.New(cfg, opts, logger(stderr, *verbose))
	if err != nil {
		return fail(stderr, exitUsage, "ui", err)
	}
	defer s.Close()
	s.StartSchedules(ctx) // fires the schedules unless another process does, or --schedules=false

	var lc *connect.Client
	if link.URL != "" {
		if lc, err = s.Dial(link); err != nil {
			return fail(stderr, exitUsage, "ui", fmt.Errorf("--connect: %w", err))
		}
		hosting = append(hosting, "link to "+link.URL+" as device "+link.DeviceID)
	}
	con, err := ui.New(ui.Options{Home: home.Dir(), FlowsDir: s.Dir, ServedDir: cmp.Or(*served, s.Dir), Listen: *listen, Listener: conLn,
		Log: stderr, Tools: s.MCP, Hosting: hosting, Browsers: rod.Endpoints(cfg.Remote),
		Schedules: func() {
			if sc := s.Scheduler(); sc != nil {
				sc.Kick()
			}
		}})
	if err == nil {
		err = con.Listen()
	}
	if err != nil {
		return fail(stderr, exitUsage, "ui", err)
	}
	fmt.Fprintf(stdout, "rpa ui: the console is at %s\n", con.URL())
	if *open {
		if err := ui.OpenBrowser(con.URL()); err != nil {
			fmt.Fprintf(stderr, "rpa ui: no browser could be opened (%v); open %s in a browser\n", err, con.URL())
		}
	}
	// The console and whatever it hosts run until ctx ends; the first to fail ends them all.
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return wrap("console", con.Serve(ctx)) })
	if ln != nil {
		fmt.Fprintf(stderr, "rpa ui: serving MCP on http://%s/\n", ln.Addr())
		g.Go(func() error { return wrap("--serve-http", s.ServeHTTP(ctx, ln, h.Tokens...)) })
	}
	if lc != nil {
		g.Go(func() error { return wrap("--connect", s.ServeLink(ctx, lc)) })
	}
	if err := g.Wait(); err != nil {
		return fail(stderr, exitFailed, "ui", err)
	}
	return exitOK
}

// wrap names what failed ("--serve-http: ..."); nil stays nil.
func wrap(what string, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
