package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/mcpserver"
	"github.com/rpa-dev/rpa/profiles"
)

func init() {
	register(command{
		name:    "serve",
		usage:   "rpa serve [--flows DIR] [--stdio | --http ADDR] [--token T] [--allow-exec [--exec-allow GLOB]...] [--allow-files] [--idle 10m] [--show] [--browser ws://...]",
		summary: "serve the flows of a folder as MCP tools (stdio or Streamable HTTP)",
		run:     runServe,
	})
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// defaultFlowsDir is $RPA_HOME/flows, the folder `rpa serve` and
// `rpa publish` use unless told otherwise.
func defaultFlowsDir() string { return filepath.Join(drivers.Home(), "flows") }

func runServe(args []string) int {
	fs := newFlags("serve", os.Stderr)
	flows := fs.String("flows", "", "folder of flows to serve (default $RPA_HOME/flows)")
	stdio := fs.Bool("stdio", false, "serve over stdin/stdout (the default)")
	httpAddr := fs.String("http", "", "serve Streamable HTTP on ADDR (\"8765\" or \":8765\" bind 127.0.0.1)")
	token := fs.String("token", "", "bearer token HTTP clients must send (default $RPA_TOKEN)")
	allowExec := fs.Bool("allow-exec", false, "enable desktop_exec and the exec action")
	allowFiles := fs.Bool("allow-files", false, "let served flows open file: URLs and upload, download or screenshot outside the temp dir")
	var execAllow multiFlag
	fs.Var(&execAllow, "exec-allow", "allow only commands matching this glob (repeatable; needs --allow-exec)")
	idle := fs.Duration("idle", profiles.DefaultIdle, "close a profile's browser after this idle time")
	show := fs.Bool("show", false, "show browser windows instead of running headless")
	remote := fs.String("browser", "", "attach to a running DevTools endpoint (ws://HOST:PORT/...) instead of launching")
	verbose := fs.Bool("v", false, "log debug lines")
	hitlOrder := fs.String("hitl", "", hitlUsage)
	if err := missingHTTPAddr(args); err != nil {
		fmt.Fprintf(os.Stderr, "rpa serve: %v\nusage: %s\n", err, commands["serve"].usage)
		return exitUsage
	}
	if done, code := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "rpa serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *stdio && *httpAddr != "" {
		fmt.Fprintln(os.Stderr, "rpa serve: choose one of --stdio and --http")
		return 2
	}
	if len(execAllow) > 0 && !*allowExec {
		fmt.Fprintln(os.Stderr, "rpa serve: --exec-allow needs --allow-exec")
		return 2
	}
	if *token == "" {
		*token = os.Getenv("RPA_TOKEN")
	}
	dir := *flows
	if dir == "" {
		dir = defaultFlowsDir()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintf(os.Stderr, "rpa serve: %v\n", err)
			return 2
		}
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	// Logs go to stderr: stdout carries the protocol in stdio mode.
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	pool, err := newProfilePool(*show, *remote, *idle, log)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rpa serve: %v\n", err)
		return 2
	}
	defer pool.Close()
	hcfg, err := serverHITL(*hitlOrder)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rpa serve: %v\n", err)
		return 2
	}
	hcfg.Log = log
	srv, err := mcpserver.New(mcpserver.Options{
		FlowsDir:   dir,
		Pool:       pool,
		AllowExec:  *allowExec,
		AllowFiles: *allowFiles,
		ExecAllow:  execAllow,
		Logger:     log,
		HITL:       hcfg,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "rpa serve: %v\n", err)
		return 2
	}
	defer srv.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *httpAddr == "" {
		log.Info("serving MCP over stdio", "flows", dir, "tools", len(srv.ToolNames()))
		err = srv.MCP().Run(ctx, &mcpserver.StdioTransport{Logger: log})
		if err != nil && !errors.Is(err, context.Canceled) && !isEOF(err) {
			log.Error("stdio session ended", "error", err.Error())
		}
		return 0
	}
	addr := mcpserver.HTTPAddr(*httpAddr)
	if !mcpserver.IsLoopback(addr) && *token == "" {
		log.Warn("listening beyond loopback without --token: anyone who reaches this port can run your flows", "addr", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rpa serve: %v\n", err)
		return 2
	}
	hs := &http.Server{Handler: srv.HTTPHandler(*token), ReadHeaderTimeout: 10 * time.Second}
	// The real address on stderr first (for --http 127.0.0.1:0).
	fmt.Fprintf(os.Stderr, "rpa serve: listening on http://%s/\n", ln.Addr())
	log.Info("serving MCP over Streamable HTTP", "addr", ln.Addr().String(), "flows", dir, "tools", len(srv.ToolNames()), "token", *token != "")
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		srv.Close() // cancels calls in flight so their streams end
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(os.Stderr, "rpa serve: %v\n", err)
		return 1
	}
	return 0
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

// newProfilePool is the browser pool of `rpa serve` and `rpa connect`: one
// Chromium per profile under drivers.ProfileDir (made on first use), or
// every profile attached to remote (ws://...) when set; idle browsers close
// after idle.
func newProfilePool(show bool, remote string, idle time.Duration, log *slog.Logger) (*profiles.Pool, error) {
	return profiles.New(profiles.Options{
		Driver: rod.New(),
		Idle:   idle,
		Logger: log,
		Launch: func(id string) (drivers.LaunchOptions, error) {
			o := drivers.LaunchOptions{Show: show, Remote: remote}
			if remote == "" {
				d, err := drivers.ProfileDir(id)
				if err != nil {
					return o, err
				}
				if err := os.MkdirAll(d, 0o700); err != nil {
					return o, err
				}
				o.UserDataDir = d
			}
			return o, nil
		},
	})
}
