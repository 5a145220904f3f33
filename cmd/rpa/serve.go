package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/rpa-dev/rpa/mcpserver"
)

func init() {
	register(command{
		name:    "serve",
		usage:   "rpa serve [--flows DIR] [--stdio | --http ADDR] [--token T] [--allow-exec [--exec-allow GLOB]...] [--allow-files] [--idle 10m] [--show] [--browser ws://...]",
		summary: "serve the flows of a folder as MCP tools (stdio or Streamable HTTP)",
		run: func(args []string, stdout, stderr io.Writer) int {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			context.AfterFunc(ctx, stop) // a second signal kills at once
			return runServe(ctx, args, stderr)
		},
	})
}

// runServe is `rpa serve`: the flows folder as MCP tools over stdio (the
// protocol on the process's stdin/stdout) or Streamable HTTP, until ctx
// ends. Exit 0 when ctx or the client ended it, 1 when serving failed, 2
// on usage or set-up problems.
func runServe(ctx context.Context, args []string, stderr io.Writer) int {
	fs := newFlags("serve", stderr)
	var sf serverFlags
	sf.register(fs)
	stdio := fs.Bool("stdio", false, "serve over stdin/stdout (the default)")
	httpAddr := fs.String("http", "", "serve Streamable HTTP on ADDR (\"8765\" or \":8765\" bind 127.0.0.1)")
	token := fs.String("token", "", "bearer token HTTP clients must send (default $RPA_TOKEN)")
	shareProfiles := fs.Bool("share-profiles", false, "let every client session use every profile (by default a profile belongs to the session using it)")
	var allowOrigin multiFlag
	fs.Var(&allowOrigin, "allow-origin", "let browser pages of this origin (https://host[:port]) call --http (repeatable; loopback origins of the port always may)")
	if err := missingHTTPAddr(args); err != nil {
		fmt.Fprintf(stderr, "rpa serve: %v\nusage: %s\n", err, commands["serve"].usage)
		return exitUsage
	}
	if done, code := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rpa serve: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *stdio && *httpAddr != "" {
		fmt.Fprintln(stderr, "rpa serve: choose one of --stdio and --http")
		return exitUsage
	}
	for _, o := range allowOrigin {
		if !mcpserver.ValidOrigin(o) {
			fmt.Fprintf(stderr, "rpa serve: --allow-origin %q: want scheme://host[:port]\n", o)
			return exitUsage
		}
	}
	if *token == "" {
		*token = os.Getenv("RPA_TOKEN")
	}
	s, code := sf.build("serve", stderr, mcpserver.Options{AllowOrigins: allowOrigin, ShareProfiles: *shareProfiles})
	if s == nil {
		return code
	}
	defer s.Close()
	srv, log, dir := s.srv, s.log, s.dir
	if *httpAddr == "" {
		log.Info("serving MCP over stdio", "flows", dir, "tools", len(srv.ToolNames()))
		// A signal cancels the calls in flight and ends the input: the
		// transport then waits for their answers before the session ends.
		in := newStopReader(os.Stdin)
		defer onSignal(ctx, srv, log, in.stop)()
		err := srv.MCP().Run(context.Background(), &mcpserver.StdioTransport{In: in, Logger: log})
		if err != nil && !errors.Is(err, context.Canceled) && !isEOF(err) {
			log.Error("stdio session ended", "error", err.Error())
		}
		return exitOK
	}
	addr := mcpserver.HTTPAddr(*httpAddr)
	if !mcpserver.IsLoopback(addr) && *token == "" {
		log.Warn("listening beyond loopback without --token: anyone who reaches this port can run your flows", "addr", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "rpa serve: %v\n", err)
		return exitUsage
	}
	hs := &http.Server{Handler: srv.HTTPHandler(*token), ReadHeaderTimeout: 10 * time.Second}
	// The real address on stderr first (for --http 127.0.0.1:0).
	fmt.Fprintf(stderr, "rpa serve: listening on http://%s/\n", ln.Addr())
	log.Info("serving MCP over Streamable HTTP", "addr", ln.Addr().String(), "flows", dir, "tools", len(srv.ToolNames()), "token", *token != "")
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		srv.Close() // cancels calls in flight so their streams end
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "rpa serve: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// missingHTTPAddr reports `--http` given last or followed by another flag
// (the flag package would take "--token" as the address, or print its
// default usage dump).
func missingHTTPAddr(args []string) error {
	for i, a := range args {
		if a == "--" {
			return nil
		}
		if a != "--http" && a != "-http" {
			continue
		}
		if i+1 == len(args) || strings.HasPrefix(args[i+1], "-") {
			return errors.New(`--http needs an address: --http 8765, --http 127.0.0.1:8765 or --http 0.0.0.0:8765 (or use --stdio)`)
		}
	}
	return nil
}

func isEOF(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "closed"))
}
