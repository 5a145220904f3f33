package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/rpa-dev/rpa/internal/cliflag"
	"github.com/rpa-dev/rpa/internal/host/home"

	"github.com/rpa-dev/rpa/internal/link/cluster"
	"github.com/rpa-dev/rpa/internal/link/gateway"
	"github.com/rpa-dev/rpa/internal/link/mcpws"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
	"github.com/rpa-dev/rpa/internal/serve/schedule/clustered"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
)

func init() {
	register(command{
		name:    "gateway",
		usage:   "rpa gateway --listen ADDR --token T --devices FILE [--tls-cert FILE --tls-key FILE] [--cluster-listen HOST:PORT --cluster-peers HOST:PORT,... [--data DIR] | --nats URL [--nats-creds FILE] [--nats-tls]] | rpa gateway --devices FILE --add-device ID | rpa gateway status [--url URL] | rpa gateway schedule add|list|show|pause|resume|rm ...",
		summary: "accept desktops (rpa connect) at /ws and serve all their tools to agents at /mcp",
		run:     withSignals(runGateway),
	})
}

// runGateway is `rpa gateway`: desktops dial in at /ws, agents call their
// tools at /mcp, until ctx ends. Exit 0 when ctx ended it, 1 when serving
// failed, 2 on usage or when the address cannot be listened on.
func runGateway(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "status" {
		return runGatewayStatus(ctx, args[1:], stdout, stderr)
	} else if len(args) > 0 && args[0] == "schedule" {
		return clustered.Cmd(ctx, args[1:], stdout, stderr)
	}
	fs := newFlags("gateway", stderr)
	listen := fs.String("listen", "127.0.0.1:8790", "address to listen on (HOST:PORT)")
	token := fs.String("token", "", "bearer token agents send on /mcp and /devices (default $RPA_GATEWAY_TOKEN)")
	devices := fs.String("devices", "", "file of device tokens: each desktop's own credential (see --add-device)")
	addDevice := fs.String("add-device", "", "create a token for this device id in --devices, print it once, and exit")
	shared := fs.Bool("shared-device-token", false, "also let desktops connect with --token under any device id not connected now (weaker)")
	var allowOrigin cliflag.List
	fs.Var(&allowOrigin, "allow-origin", "let browser pages of this origin call /mcp (repeatable; loopback origins of the port always may)")
	drain := fs.Duration("drain", 30*time.Second, "on SIGTERM, how long to wait for calls in flight before closing the links")
	certFile := fs.String("tls-cert", "", "serve HTTPS/WSS with this certificate (PEM)")
	keyFile := fs.String("tls-key", "", "private key of --tls-cert (PEM)")
	ping := fs.Duration("ping", mcpws.DefaultPingInterval, "ping interval; a desktop is declared dead after two silent intervals")
	maxFrame := fs.Int64("max-frame", mcpws.DefaultMaxFrame, "largest frame accepted from a desktop, in bytes")
	maxTasks := fs.Int("max-tasks", tasks.DefaultMax, "most agents' tasks running at once; one more is refused (busy)")
	taskTTL := fs.Duration("task-ttl", tasks.DefaultTTL, "how long a finished task and its result are kept when its agent asks for no ttl")
	taskMaxTTL := fs.Duration("task-max-ttl", tasks.DefaultMaxTTL, "the longest ttl an agent may ask for a task (a longer one is cut to it)")
	relinkWait := fs.Duration("relink-wait", gateway.DefaultRelinkWait, "how long calls wait for a desktop whose link dropped to link again (0: not at all)")
	verbose := fs.Bool("v", false, "log debug lines")
	var cc cluster.Config
	cc.Register(fs)
	if done, code := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		return fail(stderr, exitUsage, "gateway", fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if *addDevice != "" {
		if err := gateway.AddDeviceCmd(*devices, *addDevice, stdout, stderr); err != nil {
			return fail(stderr, exitUsage, "gateway", err)
		}
		return exitOK
	}
	if err := mcpserver.CheckOrigins(allowOrigin); err != nil {
		return fail(stderr, exitUsage, "gateway", err)
	}
	opts := gateway.Options{Token: cmp.Or(*token, os.Getenv("RPA_GATEWAY_TOKEN")), SharedDeviceToken: *shared, AllowOrigins: allowOrigin,
		Link: mcpws.Options{PingInterval: *ping, MaxFrame: *maxFrame}, Logger: logger(stderr, *verbose),
		MaxTasks: *maxTasks, TaskTTL: *taskTTL, TaskMaxTTL: *taskMaxTTL, RelinkWait: cmp.Or(*relinkWait, -1)}
	if *devices != "" {
		var err error
		if opts.Devices, err = gateway.LoadDeviceTokens(*devices); err != nil {
			return fail(stderr, exitUsage, "gateway", err)
		}
	}
	so := gateway.ServeOptions{CertFile: *certFile, KeyFile: *keyFile, Drain: *drain}
	if err := opts.Check(so); err != nil {
		return fail(stderr, exitUsage, "gateway", err)
	}
	cc.Finish(home.Dir(), opts.Token)
	opts.DataDir = cmp.Or(cc.DataDir, filepath.Join(home.Dir(), "gateway")) // the key of call ids
	cc.Logger = opts.Logger
	if err := cc.Check(); err != nil {
		return fail(stderr, exitUsage, "gateway", err)
	}
	// Agents' tasks outlive the gateway process: they are kept in the run store's database of
	// this machine's $RPA_HOME (the desktops keep the runs themselves).
	st, err := runs.Open(home.Dir(), runs.Options{})
	if err != nil {
		return fail(stderr, exitFailed, "gateway", fmt.Errorf("task store: %w", err))
	}
	defer st.Close()
	opts.Tasks = tasks.RunStore(st)
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fail(stderr, exitUsage, "gateway", err)
	}
	if cc.Enabled() {
		node, err := cluster.Start(ctx, cc)
		if err != nil {
			ln.Close()
			return fail(stderr, exitUsage, "gateway", err)
		}
		defer node.Close()
		opts.Cluster = node
		fmt.Fprintf(stderr, "rpa gateway: replica %s (%s)\n", node.Name(), node.Desc())
	}
	scheme := "http"
	if so.CertFile != "" {
		scheme = "https"
	}
	fmt.Fprintf(stderr, "rpa gateway: listening on %s://%s/ (desktops: /ws, agents: /mcp, GET /devices)\n", scheme, ln.Addr())
	g := gateway.New(opts)
	if opts.Cluster != nil { // the cluster's schedules: fired once across replicas, at /schedules
		clustered.Start(ctx, g, opts.Cluster, opts.Logger)
	}
	if err := g.Serve(ctx, ln, so); err != nil {
		return fail(stderr, exitFailed, "gateway", err)
	}
	return exitOK
}
