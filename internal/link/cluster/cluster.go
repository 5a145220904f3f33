// Package cluster is the NATS side of `rpa gateway` replicas (docs/gateway.md, "Several gateways"):
// the replicas share state and route calls through NATS (github.com/nats-io/nats-server/v2 and
// github.com/nats-io/nats.go) rather than a clustering of our own.
//
// A Node is one replica's connection to NATS. Either it embeds a nats-server with JetStream,
// clustered with the other replicas through routes (Config.ClusterListen, Config.Peers; its data
// under Config.DataDir), and talks to it in-process; or it joins the site's own NATS
// (Config.NATSURL). On top of the connection the package offers what the gateway and other
// packages need across replicas:
//
//   - key-value buckets (Node.Bucket) with keys made safe by Key;
//   - a cluster-wide lease (Node.AcquireLease): one holder at a time, kept by renewing before its
//     TTL, with a revision that grows at every change (a fencing token);
//   - a durable work queue (Node.Queue): each job handled once across replicas, redelivered
//     when its worker dies, deduplicated by job id;
//   - payloads over NATS's limit (Node.PutBlob, Node.Blob) through JetStream's object store;
//   - the gateway's registry of replicas and linked desktops (Registry) and its call relay
//     (relay.go).
//
// Every bucket and stream is created with Node.Replicas copies (3 when there are three or more
// servers), so a cluster of three survives the loss of one.
package cluster

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ClusterName is the NATS cluster name of embedded replicas.
const ClusterName = "rpa"

// routeUser is the user name of route connections between embedded replicas.
const routeUser = "rpa-route"

// Config says how a replica reaches NATS. Either ClusterListen (embedded, with Peers and
// DataDir) or NATSURL (the site's NATS) is set; Enabled reports whether either is.
type Config struct {
	// Name is this replica's name, unique in the cluster (NATS server name and the name other
	// replicas and `rpa gateway status` show). Default: the host name and the cluster port,
	// or the host name and process id with NATSURL.
	Name string

	// ClusterListen is HOST:PORT of the embedded server's route listener (--cluster-listen).
	ClusterListen string
	// Peers are the other replicas' route addresses, HOST:PORT each (--cluster-peers). A peer
	// that cannot be reached is retried for ever; the replica serves its own desktops meanwhile.
	Peers []string
	// DataDir holds the embedded server's JetStream data (--data; default $RPA_HOME/gateway).
	DataDir string
	// Secret authenticates the routes between embedded replicas: every replica must be given
	// the same one (the gateway derives it from its agent token with RouteSecret). Empty:
	// routes are not authenticated.
	Secret string
	// TLS of the routes between embedded replicas (PEM files; CA verifies the peers). Optional.
	RouteTLS TLSFiles

	// NATSURL joins the site's NATS instead of embedding one (--nats): one URL or several,
	// comma-separated (nats://, tls://).
	NATSURL string
	// Creds is a NATS credentials file (--nats-creds).
	Creds string
	// TLS of the connection to NATSURL (--nats-tls-ca, --nats-tls-cert, --nats-tls-key);
	// TLS.Required (--nats-tls) asks for TLS with the system's roots.
	TLS TLSFiles

	// Replicas is how many copies of every bucket and stream to keep (1-5). 0: 3 when the
	// cluster has three servers or more, else as many as there are.
	Replicas int

	// Logger receives the node's log lines (and the embedded server's warnings and errors).
	Logger *slog.Logger
}

// TLSFiles names PEM files for a TLS connection.
type TLSFiles struct {
	Required bool   // use TLS even without files (the system's roots verify the server)
	CA       string // roots that verify the other side
	Cert     string // this side's certificate
	Key      string // and its private key
}

func (t TLSFiles) enabled() bool { return t.Required || t.CA != "" || t.Cert != "" }

// config builds a tls.Config from the files (nil when TLS is not asked for).
func (t TLSFiles) config(server bool) (*tls.Config, error) {
	if !t.enabled() {
		return nil, nil
	}
	if (t.Cert == "") != (t.Key == "") {
		return nil, errors.New("a TLS certificate and its key go together")
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if t.Cert != "" {
		pair, err := tls.LoadX509KeyPair(t.Cert, t.Key)
		if err != nil {
			return nil, fmt.Errorf("TLS certificate: %w", err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	if t.CA != "" {
		pem, err := os.ReadFile(t.CA)
		if err != nil {
			return nil, fmt.Errorf("TLS CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("TLS CA %s: no PEM certificate in it", t.CA)
		}
		if server {
			c.ClientCAs = pool
			c.ClientAuth = tls.RequireAndVerifyClientCert
		}
		c.RootCAs = pool
	}
	return c, nil
}

// Enabled reports whether c asks for NATS at all (`rpa gateway` alone does not).
func (c Config) Enabled() bool { return c.ClusterListen != "" || c.NATSURL != "" }

// Check reports a Config that cannot work, naming the flag.
func (c Config) Check() error {
	if c.ClusterListen != "" && c.NATSURL != "" {
		return errors.New("--cluster-listen (embedded NATS) and --nats (the site's NATS) exclude each other")
	}
	if len(c.Peers) > 0 && c.ClusterListen == "" {
		return errors.New("--cluster-peers needs --cluster-listen HOST:PORT")
	}
	if c.ClusterListen != "" {
		if _, err := splitHostPort(c.ClusterListen); err != nil {
			return fmt.Errorf("--cluster-listen %q: %v", c.ClusterListen, err)
		}
		for _, p := range c.Peers {
			if _, err := splitHostPort(p); err != nil {
				return fmt.Errorf("--cluster-peers: %q: %v", p, err)
			}
		}
	}
	if c.NATSURL != "" {
		for _, u := range strings.Split(c.NATSURL, ",") {
			p, err := url.Parse(strings.TrimSpace(u))
			if err != nil || p.Host == "" || (p.Scheme != "nats" && p.Scheme != "tls" && p.Scheme != "ws" && p.Scheme != "wss") {
				return fmt.Errorf("--nats %q: want nats://HOST:PORT (or tls://, several comma-separated)", redactURL(u))
			}
		}
	}
	if c.Replicas < 0 || c.Replicas > 5 {
		return fmt.Errorf("replicas %d: want 1-5", c.Replicas)
	}
	for _, t := range []TLSFiles{c.TLS, c.RouteTLS} {
		if (t.Cert == "") != (t.Key == "") {
			return errors.New("a TLS certificate and its key go together")
		}
	}
	if c.Name != "" {
		if err := validName(c.Name); err != nil {
			return err
		}
	}
	return nil
}

// validName checks a replica name: letters, digits, '-' and '_' (it is a subject token).
func validName(s string) error {
	if s == "" || len(s) > 64 {
		return fmt.Errorf("replica name %q: want 1-64 letters, digits, - or _", s)
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return fmt.Errorf("replica name %q: want 1-64 letters, digits, - or _", s)
		}
	}
	return nil
}

func splitHostPort(s string) (int, error) {
	_, p, err := net.SplitHostPort(s)
	if err != nil {
		return 0, err
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return 0, fmt.Errorf("port %q is not a number 0-65535", p)
	}
	return port, nil
}

// RouteSecret derives the route password of embedded replicas from the gateways' agent token
// (HMAC-SHA256, hex): replicas that share the token share the secret, and the token itself
// never travels on a route.
func RouteSecret(agentToken string) string {
	if agentToken == "" {
		return ""
	}
	m := hmac.New(sha256.New, []byte(agentToken))
	m.Write([]byte("rpa gateway cluster routes"))
	return hex.EncodeToString(m.Sum(nil))
}

// Key makes any string (a device id, a session digest) a valid key-value key and subject
// token: base64url without padding.
func Key(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// Unkey reverses Key.
func Unkey(k string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(k)
	return string(b), err
}

// Node is one replica's connection to NATS (and its embedded server, if any). Close it.
type Node struct {
	cfg      Config
	log      *slog.Logger
	name     string
	srv      *server.Server // nil with NATSURL
	nc       *nats.Conn
	js       jetstream.JetStream
	replicas int

	mu      sync.Mutex
	buckets map[string]jetstream.KeyValue
	objects jetstream.ObjectStore

	stop chan struct{}
	wg   sync.WaitGroup
}

// Start starts the embedded server (ClusterListen) or connects to NATSURL, and returns once
// the connection is up. JetStream may not be usable yet (a cluster still electing its leader,
// peers unreachable): Node.Ready says when it is, and Node.Bucket retries until ctx ends.
func Start(ctx context.Context, cfg Config) (*Node, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if !cfg.Enabled() {
		return nil, errors.New("cluster: neither --cluster-listen nor --nats given")
	}
	n := &Node{cfg: cfg, log: cfg.Logger, buckets: map[string]jetstream.KeyValue{}, stop: make(chan struct{})}
	if n.log == nil {
		n.log = slog.Default()
	}
	n.name = cfg.Name
	if n.name == "" {
		n.name = defaultName(cfg)
	}
	n.log = n.log.With("replica", n.name)
	var err error
	if cfg.ClusterListen != "" {
		err = n.startEmbedded(ctx)
	} else {
		err = n.connect(ctx)
	}
	if err != nil {
		n.Close()
		return nil, err
	}
	n.js, err = jetstream.New(n.nc)
	if err != nil {
		n.Close()
		return nil, err
	}
	n.replicas = cfg.Replicas
	if n.replicas == 0 {
		servers := len(cfg.Peers) + 1
		if cfg.NATSURL != "" {
			servers = len(n.nc.Servers())
		}
		n.replicas = min(3, max(servers, 1))
	}
	if cfg.ClusterListen != "" && len(cfg.Peers) == 1 {
		n.log.Warn(TwoReplicasWarning)
	}
	if cfg.ClusterListen != "" && len(cfg.Peers) > 0 {
		n.wg.Add(1)
		go n.watchPeers()
	}
	return n, nil
}

// TwoReplicasWarning is logged by an embedded replica started with one peer: JetStream (the
// raft groups of its buckets and streams) needs a majority of its servers up, and the
// majority of two is two, so a cluster of two stops sharing state (desktops are refused,
// tasks unreachable) when either replica is down: no more available than one replica.
const TwoReplicasWarning = "a cluster of two replicas stops serving its shared state when either one is down (JetStream needs a majority of its servers): run three replicas to survive the loss of one"

func defaultName(cfg Config) string {
	host, _ := os.Hostname()
	host = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, host)
	if host == "" {
		host = "gateway"
	}
	if len(host) > 40 {
		host = host[:40]
	}
	if cfg.ClusterListen != "" {
		if p, err := splitHostPort(cfg.ClusterListen); err == nil && p != 0 {
			return fmt.Sprintf("%s-%d", host, p)
		}
	}
	return fmt.Sprintf("%s-%d", host, os.Getpid())
}

// startEmbedded runs nats-server in this process: JetStream under DataDir, routes to Peers;
// the replica talks to it in-process.
func (n *Node) startEmbedded(ctx context.Context) error {
	host, portStr, _ := net.SplitHostPort(n.cfg.ClusterListen)
	port, _ := strconv.Atoi(portStr)
	if port == 0 {
		port = -1 // a random port (tests)
	}
	dir := n.cfg.DataDir
	if dir == "" {
		return errors.New("cluster: a data folder is needed (--data)")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("--data %s: %w", dir, err)
	}
	// The client port is on loopback with a password of this process only: the replica talks
	// to its server in-process, but nats-server starts its routes only once a client listener
	// is up (DontListen would leave them waiting).
	clientPass := rand.Text()
	opts := &server.Options{
		ServerName: n.name,
		Host:       "127.0.0.1",
		Port:       -1,
		Username:   "rpa-local",
		Password:   clientPass,
		JetStream:  true,
		StoreDir:   filepath.Join(dir, "jetstream"),
		NoSigs:     true,
		Cluster: server.ClusterOpts{
			Name: ClusterName, Host: host, Port: port,
			ConnectRetries: -1,
		},
		// JetStream needs a system account for its cluster traffic; the default is fine.
	}
	if n.cfg.Secret != "" {
		opts.Cluster.Username, opts.Cluster.Password = routeUser, n.cfg.Secret
	}
	tc, err := n.cfg.RouteTLS.config(true)
	if err != nil {
		return fmt.Errorf("cluster routes: %w", err)
	}
	if tc != nil {
		opts.Cluster.TLSConfig = tc
		opts.Cluster.TLSTimeout = 5
	}
	for _, p := range n.cfg.Peers {
		u := &url.URL{Scheme: "nats-route", Host: p}
		if n.cfg.Secret != "" {
			u.User = url.UserPassword(routeUser, n.cfg.Secret)
		}
		opts.Routes = append(opts.Routes, u)
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	ns.SetLoggerV2(&natsLog{log: n.log}, false, false, false)
	n.srv = ns
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		return fmt.Errorf("cluster: the embedded NATS server did not start (is %s free?)", n.cfg.ClusterListen)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	n.nc, err = nats.Connect("", nats.InProcessServer(ns), nats.UserInfo("rpa-local", clientPass), nats.Name("rpa gateway "+n.name),
		nats.MaxReconnects(-1), nats.ErrorHandler(n.asyncErr))
	if err != nil {
		return fmt.Errorf("cluster: in-process connection: %w", err)
	}
	n.log.Info("embedded NATS started", "cluster_listen", ClusterAddr(ns, n.cfg.ClusterListen), "peers", strings.Join(n.cfg.Peers, ","), "data", dir)
	return nil
}

// ClusterAddr is the route listener's address of an embedded server (the real port when
// configured with port 0).
func ClusterAddr(ns *server.Server, configured string) string {
	if a := ns.ClusterAddr(); a != nil {
		return a.String()
	}
	return configured
}

// ClusterAddr returns the embedded server's route address ("" with NATSURL).
func (n *Node) ClusterAddr() string {
	if n.srv == nil {
		return ""
	}
	return ClusterAddr(n.srv, n.cfg.ClusterListen)
}

// connect joins the site's NATS.
func (n *Node) connect(ctx context.Context) error {
	opts := []nats.Option{nats.Name("rpa gateway " + n.name), nats.MaxReconnects(-1), nats.ReconnectWait(time.Second),
		nats.RetryOnFailedConnect(false),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				n.log.Warn("NATS connection lost; reconnecting", "err", err)
			}
		}),
		nats.ReconnectHandler(func(c *nats.Conn) { n.log.Info("NATS connection back", "server", redactURL(c.ConnectedUrl())) }),
		nats.ErrorHandler(n.asyncErr),
	}
	if n.cfg.Creds != "" {
		if _, err := os.Stat(n.cfg.Creds); err != nil {
			return fmt.Errorf("--nats-creds: %w", err)
		}
		opts = append(opts, nats.UserCredentials(n.cfg.Creds))
	}
	tc, err := n.cfg.TLS.config(false)
	if err != nil {
		return fmt.Errorf("--nats-tls: %w", err)
	}
	if tc != nil {
		opts = append(opts, nats.Secure(tc))
	}
	type res struct {
		nc  *nats.Conn
		err error
	}
	ch := make(chan res, 1)
	go func() {
		nc, err := nats.Connect(n.cfg.NATSURL, opts...)
		ch <- res{nc, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return fmt.Errorf("--nats %s: %w", redactURL(n.cfg.NATSURL), r.err)
		}
		n.nc = r.nc
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.nc != nil {
				r.nc.Close()
			}
		}()
		return ctx.Err()
	}
	n.log.Info("joined NATS", "server", redactURL(n.nc.ConnectedUrl()), "cluster", n.nc.ConnectedClusterName())
	return nil
}

// redactURL hides user info in NATS URLs (it may carry a password or token).
func redactURL(s string) string { return userInfo.ReplaceAllString(s, "://***@") }

var userInfo = regexp.MustCompile(`://[^@/,]*@`)

// watchPeers logs, once a minute while it lasts, which configured peers are not routed to.
func (n *Node) watchPeers() {
	defer n.wg.Done()
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	var lastWarn time.Time
	wasMissing := false
	for {
		select {
		case <-n.stop:
			return
		case <-t.C:
		}
		missing := n.missingPeers()
		switch {
		case len(missing) > 0 && time.Since(lastWarn) >= time.Minute:
			lastWarn = time.Now()
			wasMissing = true
			n.log.Warn("cluster peers unreachable; retrying (this replica serves its own desktops meanwhile)", "peers", strings.Join(missing, ","))
		case len(missing) == 0 && wasMissing:
			wasMissing = false
			n.log.Info("every cluster peer is routed")
		}
	}
}

// missingPeers lists the configured peers no route is connected to.
func (n *Node) missingPeers() []string {
	if n.srv == nil {
		return nil
	}
	rz, err := n.srv.Routez(&server.RoutezOptions{})
	if err != nil {
		return nil
	}
	names := map[string]bool{}
	for _, r := range rz.Routes {
		names[r.RemoteName] = true
	}
	if len(names) >= len(n.cfg.Peers) {
		return nil
	}
	var up = map[string]bool{}
	for _, r := range rz.Routes {
		up[net.JoinHostPort(r.IP, strconv.Itoa(r.Port))] = true
	}
	var out []string
	for _, p := range n.cfg.Peers {
		if !up[p] {
			out = append(out, p)
		}
	}
	if len(out) == 0 { // addresses differ from the configured ones (names, NAT): say how many
		out = []string{fmt.Sprintf("%d of %d", len(n.cfg.Peers)-len(names), len(n.cfg.Peers))}
	}
	return out
}

// Peers returns the names of the servers this node's server has routes to (embedded), or the
// servers the connection knows of (NATSURL).
func (n *Node) Peers() []string {
	if n.srv == nil {
		return n.nc.Servers()
	}
	rz, err := n.srv.Routez(&server.RoutezOptions{})
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, r := range rz.Routes {
		if !seen[r.RemoteName] {
			seen[r.RemoteName] = true
			out = append(out, r.RemoteName)
		}
	}
	return out
}

// Desc says how the node reaches NATS, for a start line: "NATS embedded, routes on HOST:PORT"
// or "on the site's NATS".
func (n *Node) Desc() string {
	if n.Embedded() {
		return "NATS embedded, routes on " + n.ClusterAddr()
	}
	return "on the site's NATS"
}

// Name is this replica's name.
func (n *Node) Name() string { return n.name }

// Conn is the NATS connection.
func (n *Node) Conn() *nats.Conn { return n.nc }

// JetStream is the JetStream context of the connection.
func (n *Node) JetStream() jetstream.JetStream { return n.js }

// Replicas is the number of copies every bucket and stream keeps.
func (n *Node) Replicas() int { return n.replicas }

// Embedded reports whether the node runs its own nats-server.
func (n *Node) Embedded() bool { return n.srv != nil }

// Ready reports nil when JetStream answers (its cluster has a leader), else why not.
func (n *Node) Ready(ctx context.Context) error {
	if !n.nc.IsConnected() {
		return errors.New("not connected to NATS")
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := n.js.AccountInfo(ctx); err != nil {
		return fmt.Errorf("JetStream: %w", err)
	}
	return nil
}

// Close drains the connection (within closeDrain: a cluster that lost its majority answers
// nothing) and then shuts the embedded server down, last, its data written (the other replicas
// keep the data: every bucket has Replicas copies).
func (n *Node) Close() {
	select {
	case <-n.stop:
		return
	default:
		close(n.stop)
	}
	n.wg.Wait()
	if n.nc != nil {
		done := make(chan struct{})
		n.nc.SetClosedHandler(func(*nats.Conn) { close(done) })
		if err := n.nc.Drain(); err == nil {
			select {
			case <-done:
			case <-time.After(closeDrain):
				n.nc.Close()
			}
		} else {
			n.nc.Close()
		}
	}
	if n.srv != nil {
		n.srv.Shutdown()
		n.srv.WaitForShutdown()
	}
}

// closeDrain bounds Close's drain of the connection.
const closeDrain = 2 * time.Second

// Kill stops the node at once, as a crash would: no drain, the embedded server shut down
// without saying goodbye to its desktops' callers (tests use it to kill a replica).
func (n *Node) Kill() {
	select {
	case <-n.stop:
	default:
		close(n.stop)
	}
	if n.nc != nil {
		n.nc.Close()
	}
	if n.srv != nil {
		n.srv.Shutdown()
	}
	n.wg.Wait()
}

// asyncErr logs NATS's asynchronous errors (a watcher whose consumer could not be recreated
// while the cluster elected a leader: the watcher is started again by its owner).
func (n *Node) asyncErr(_ *nats.Conn, sub *nats.Subscription, err error) {
	subj := ""
	if sub != nil {
		subj = sub.Subject
	}
	n.log.Debug("nats: asynchronous error", "subject", subj, "err", err)
}

// natsLog sends the embedded server's warnings and errors to slog; its notices go to debug
// (they are many at start), and its complaints about unreachable routes too (watchPeers says
// that once a minute instead of every second).
type natsLog struct{ log *slog.Logger }

func (l *natsLog) Noticef(f string, v ...any) { l.log.Debug("nats: " + fmt.Sprintf(f, v...)) }
func (l *natsLog) Warnf(f string, v ...any) {
	msg := fmt.Sprintf(f, v...)
	for _, benign := range natsBenign {
		if strings.Contains(msg, benign) {
			l.log.Debug("nats: " + msg)
			return
		}
	}
	l.log.Warn("nats: " + msg)
}

// natsBenign are warnings of the embedded server that are normal for replicas (their start,
// the route password it checks in memory, snapshots): logged at debug level.
var natsBenign = []string{"Plaintext passwords detected", "Waiting for routing", "has not established contact with a meta leader",
	"Metalayer", "snapshot", "Healthcheck failed", "JetStream cluster"}

func (l *natsLog) Fatalf(f string, v ...any) { l.log.Error("nats: " + fmt.Sprintf(f, v...)) }
func (l *natsLog) Errorf(f string, v ...any) {
	msg := fmt.Sprintf(f, v...)
	if strings.Contains(msg, "route") || strings.Contains(msg, "Route") {
		l.log.Debug("nats: " + msg)
		return
	}
	l.log.Error("nats: " + msg)
}
func (l *natsLog) Debugf(string, ...any) {}
func (l *natsLog) Tracef(string, ...any) {}
