package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/rpa-dev/rpa/internal/cliflag"
	"github.com/rpa-dev/rpa/internal/serve/flowserver"
	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
)

func init() {
	register(command{
		name:    "serve",
		usage:   "rpa serve [--flows DIR] [--stdio | --http ADDR] [--token T] [--allow-exec [--exec-allow GLOB]...] [--allow-files] [--idle 10m] [--show] [--browser ws://...]",
		summary: "serve the flows of a folder as MCP tools (stdio or Streamable HTTP)",
		run:     withSignals(runServe),
	})
}

// serveGCPercent is rpa serve's GC target (unless GOGC is set): the heap
// may grow to 1.5 times what is live after a collection instead of twice.
// A server waits most of its life with a small heap (about 3 MB live
// serving one profile), so collecting more often costs it next to nothing,
// while the slack is resident memory: with 50 rpa serve's resident set after
// 20 calls on one profile is about 2 MB smaller (issue 24,
// BenchmarkServeRSS).
const serveGCPercent = 50

// runServe is `rpa serve`: the flows folder as MCP tools over stdio (the
// protocol on the process's stdin/stdout) or Streamable HTTP, until ctx
// ends. Exit 0 when ctx or the client ended it, 1 when serving failed, 2
// on usage or set-up problems.
func runServe(ctx context.Context, args []string, _, stderr io.Writer) int {
	fs := newFlags("serve", stderr)
	var cfg flowserver.Config
	cfg.Register(fs)
	verbose := fs.Bool("v", false, "log debug lines")
	stdio := fs.Bool("stdio", false, "serve over stdin/stdout (the default)")
	var h flowserver.HTTP
	h.Register(fs, "http", "serve Streamable HTTP on ADDR (\"8765\" or \":8765\" bind 127.0.0.1)", "token")
	shareProfiles := fs.Bool("share-profiles", false, "let every client session use every profile (by default a profile belongs to the session using it)")
	if cliflag.MissingValue(args, "http") {
		fmt.Fprintf(stderr, "rpa serve: --http needs an address: --http 8765, --http 127.0.0.1:8765 or --http 0.0.0.0:8765 (or use --stdio)\nusage: %s\n", commands.Commands["serve"].Usage)
		return exitUsage
	}
	if done, code := parseFlags(fs, args); done {
		return code
	}
	var err error
	switch {
	case fs.NArg() > 0:
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case *stdio && h.Addr != "":
		err = errors.New("choose one of --stdio and --http")
	default:
		err = h.Check()
	}
	if err != nil {
		return fail(stderr, exitUsage, "serve", err)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serveGCPercent)
	}
	s, err := flowserver.New(cfg, mcpserver.Options{AllowOrigins: h.AllowOrigins, ShareProfiles: *shareProfiles, SessionIdle: h.SessionIdle}, logger(stderr, *verbose))
	if err != nil {
		return fail(stderr, exitUsage, "serve", err)
	}
	defer s.Close()
	s.StartSchedules(ctx) // fires the schedules unless another process does, or --schedules=false
	if h.Addr == "" {
		if err := s.ServeStdio(ctx, os.Stdin, os.Stdout); err != nil {
			s.Log.Error("stdio session ended", "error", err.Error())
		}
		return exitOK
	}
	ln, err := h.Listen()
	if err != nil {
		return fail(stderr, exitUsage, "serve", err)
	}
	// The real address on stderr first (for --http 127.0.0.1:0).
	fmt.Fprintf(stderr, "rpa serve: listening on http://%s/\n", ln.Addr())
	if err := s.ServeHTTP(ctx, ln, h.Tokens...); err != nil {
		return fail(stderr, exitFailed, "serve", err)
	}
	return exitOK
}
