package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rpa-dev/rpa/gateway"
	"github.com/rpa-dev/rpa/mcpws"
)

func init() {
	register(command{
		name:    "gateway",
		usage:   "rpa gateway --listen ADDR --token T [--tls-cert FILE --tls-key FILE]",
		summary: "accept desktops (rpa connect) at /ws and serve all their tools to agents at /mcp",
		run:     runGateway,
	})
}

func runGateway(args []string) int {
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:8790", "address to listen on (HOST:PORT)")
	token := fs.String("token", "", "bearer token required on /ws, /mcp and /devices (default $RPA_GATEWAY_TOKEN)")
	certFile := fs.String("tls-cert", "", "serve HTTPS/WSS with this certificate (PEM)")
	keyFile := fs.String("tls-key", "", "private key of --tls-cert (PEM)")
	ping := fs.Duration("ping", mcpws.DefaultPingInterval, "ping interval; a desktop is declared dead after two silent intervals")
	maxFrame := fs.Int64("max-frame", mcpws.DefaultMaxFrame, "largest frame accepted from a desktop, in bytes")
	verbose := fs.Bool("v", false, "log debug lines")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "rpa gateway: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *token == "" {
		*token = os.Getenv("RPA_GATEWAY_TOKEN")
	}
	if *token == "" {
		fmt.Fprintln(os.Stderr, "rpa gateway: --token is required (or $RPA_GATEWAY_TOKEN): the gateway runs tools on every connected desktop")
		return exitUsage
	}
	if (*certFile == "") != (*keyFile == "") {
		fmt.Fprintln(os.Stderr, "rpa gateway: --tls-cert and --tls-key go together")
		return exitUsage
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	g := gateway.New(gateway.Options{Token: *token, Link: mcpws.Options{PingInterval: *ping, MaxFrame: *maxFrame}, Logger: log})

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rpa gateway: %v\n", err)
		return exitUsage
	}
	scheme := "http"
	if *certFile != "" {
		scheme = "https"
	}
	fmt.Fprintf(os.Stderr, "rpa gateway: listening on %s://%s/ (desktops: /ws, agents: /mcp, GET /devices)\n", scheme, ln.Addr())
	hs := &http.Server{Handler: g.Handler(), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_ = g.Close()
		_ = hs.Shutdown(sctx)
	}()
	if *certFile != "" {
		err = hs.ServeTLS(ln, *certFile, *keyFile)
	} else {
		err = hs.Serve(ln)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(os.Stderr, "rpa gateway: %v\n", err)
		return exitFailed
	}
	return exitOK
}
