// Package gateway is the backend end of the desktop link (`rpa gateway`): desktops running
// `rpa connect` dial in at /ws, and agents reach every connected desktop's tools through one MCP
// Streamable HTTP endpoint at /mcp (PROTOCOL.md, "Transports").
//
// Each desktop link is one MCP session in which the gateway is the client: it initializes the
// desktop at protocol 2025-11-25 declaring elicitation and sampling, lists its tools, and forwards
// agents' tools/call requests as raw JSON-RPC frames with ids (and progress tokens) of its own,
// unique across gateway restarts. Elicitation and sampling requests from a desktop go to the agent
// whose call caused them. When several desktops offer one tool name, the agent-facing tool takes a
// required `deviceId` argument (listed in its schema) that picks the desktop.
//
// Desktops prove their id with a token of their own (Options.Devices); a second link for an id
// that is connected and answers a ping is refused rather than replacing the first. Shutdown
// drains the calls in flight; answers that arrive after their agent's session was lost are kept
// (see LateResult) for the agent to fetch as resources.
package gateway

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rpa-dev/rpa/internal/httpauth"
	"github.com/rpa-dev/rpa/internal/link/cluster"
	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/link/mcpws"
	"github.com/rpa-dev/rpa/internal/serve/mrtr"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
	"github.com/rpa-dev/rpa/lang"
)

// ProtocolVersion is the MCP protocol version the gateway speaks to desktops.
const ProtocolVersion = "2025-11-25"

// Version is the gateway's implementation version (clientInfo/serverInfo).
const Version = "0.1.0"

// DeviceIDArg is the argument that picks a desktop when several offer a tool.
const DeviceIDArg = "deviceId"

// JSON-RPC error codes used by the gateway (PROTOCOL.md).
const (
	CodeNoSuchTool  = -32003 // no connected desktop offers the tool
	CodeUnreachable = -32004 // the desktop could not be reached (it dropped mid-call)
)

// Options configures a Gateway.
type Options struct {
	// Token, when set, is required as `Authorization: Bearer TOKEN` on /mcp and /devices (the
	// scheme is matched without case). On /ws it is accepted only with SharedDeviceToken. It is
	// never logged.
	Token string
	// Devices gives each desktop its own token (see DeviceTokens): a desktop presenting one may
	// only register under the id it belongs to. Nil: only SharedDeviceToken can admit desktops.
	Devices *DeviceTokens
	// SharedDeviceToken also admits, on /ws, any desktop presenting Token, under any device id
	// not connected now (the old, weaker mode: whoever holds the shared token can take a
	// disconnected desktop's id). Off unless configured (--shared-device-token).
	SharedDeviceToken bool
	// AllowOrigins names browser origins allowed on /mcp besides loopback origins of the
	// gateway's own port (see httpauth.OriginGuard); any other Origin gets 403.
	AllowOrigins []string
	// ProbeTimeout bounds the ping that checks whether a connected desktop is still there when
	// a second link claims its id (default 5s): no answer and the new link takes over.
	ProbeTimeout time.Duration
	// LateResults bounds how many answers that arrived after their agent's session was lost are
	// kept (default 256); LateTTL how long (default 1h).
	LateResults int
	LateTTL     time.Duration
	// Link tunes the desktop links (ping interval, frame cap).
	Link mcpws.Options
	// InitTimeout bounds a desktop's register + initialize + tools/list (default 10s).
	InitTimeout time.Duration
	// AgentIdle closes an agent session at /mcp after this long without a request (default 30
	// min; negative: never).
	AgentIdle time.Duration
	// Logger; nil = slog.Default().
	Logger *slog.Logger
	// Cluster makes the gateway one replica of several (replica.go; docs/gateway.md, "Several
	// gateways"): desktops linked to any replica serve agents on every replica. Nil: alone. The
	// caller closes the node after Shutdown.
	Cluster *cluster.Node
	// Tasks keeps the agents' tasks (tasks.go; a tasks.RunStore survives a restart of the
	// gateway); nil: in memory. MaxTasks, TaskTTL and TaskMaxTTL bound them (0: the tasks
	// package's defaults); TaskRelinkWait is how long a task waits for its desktop to link again
	// (DefaultTaskRelinkWait when 0).
	Tasks               tasks.Store
	MaxTasks            int
	TaskTTL, TaskMaxTTL time.Duration
	TaskRelinkWait      time.Duration

	// RelinkWait is how long calls wait for a desktop whose link dropped to link again
	// (DefaultRelinkWait when 0; negative: not at all): see DefaultRelinkWait. Alone, not in a
	// cluster, whose replicas ask each other for a moved desktop's calls.
	RelinkWait time.Duration
	// DataDir keeps what the gateway must remember across restarts: the key that signs its call
	// ids (CallKeyFile; callids.go), so an answer to a call of an earlier process is still
	// kept. `rpa gateway` gives --data (default $RPA_HOME/gateway). "": a key in memory, and
	// answers to an earlier process's calls are dropped.
	DataDir string
	// TaskNode names this gateway process in its tasks (runs.ThisProcess when ""): a gateway
	// takes over the live tasks of a node that is gone (tests name in-process gateways).
	TaskNode string

	// clock is the time a replica's heartbeat shows (tests skew it); nil: time.Now.
	clock func() time.Time
	// onChange is called after the gateway's state changed: the cluster's registry changed (a
	// desktop or a replica came or went), its tool index was synced (a desktop linked or went,
	// here or on another replica), the cluster state was attached, a device token was learnt from the cluster, the cluster's
	// key of call ids was agreed, an answer was kept as a late answer, a task's state changed or
	// its desktop's statusMessage was mirrored (taskChanged). Tests wait on it instead of
	// polling; nil: nothing is called.
	onChange func()
}

// Gateway routes agents' calls to connected desktops. Serve Handler(); Close ends every link.
type Gateway struct {
	opts  Options
	log   *slog.Logger
	srv   *mcp.Server
	epoch string
	seq   atomic.Uint64
	ids   *callKeys // signs and verifies call ids (callids.go)

	mu      sync.Mutex
	devices map[string]*device
	index   map[string][]offer // tool name → desktops offering it, sorted by id (rebuilt by sync)

	claims  map[string]*device      // device id → the link holding it (initializing or connected)
	relinks map[string]relinking    // device id → its tools while calls wait for it (relink.go)
	mounts  map[string]http.Handler // Mount's handlers by pattern

	syncMu sync.Mutex
	listed map[string]bool // agent-facing tool names registered with srv
	syncs  syncQueue       // syncs asked for and not yet done (syncWith)
	builds atomic.Int64    // index rebuilds so far (syncLocked)

	leases leaseTable // account leases held for desktops (leases.go)

	drain     drainState   // Shutdown (drain.go)
	closing   atomic.Bool  // Close began: no agent's request that ends now is a cancel
	late      *lateStore   // answers whose agent was gone (late.go)
	posts     posts        // agents' POSTs, to tell when an answer cannot be delivered (late.go)
	cancelled cancelledIDs // calls cancelled by their agent: their answers are not kept (late.go)
	answered  answeredIDs  // calls whose answer came: a second one is dropped (answered.go)
	paused    mrtr.Table   // calls of 2026-07-28 agents waiting for their input (package mrtr)
	owners    runOwners    // which agent made each call (owners.go)
	agents    agents       // agent sessions still open (owners.go)

	changes   signal       // fired by stateChanged: waits for a desktop, a tool or a kept answer (relink.go)
	linkLooks atomic.Int64 // times a task waiting for its desktop looked for it (tasks.go linked; tests count them)

	rep   *replica       // the cluster side (replica.go); nil alone
	tasks *tasks.Manager // agents' tasks, run on the desktops (tasks.go)

	stop     chan struct{} // closed by Close: ends revokeLoop
	stopOnce sync.Once
}

// revokeEvery is how often the gateway looks at its device file for revoked devices (a stat;
// the file is read again only when it changed). A call is also checked before it goes down a
// link, so a revoked device serves no call even between two looks.
const revokeEvery = time.Second

// revokeLoop closes, within revokeEvery, the links of devices whose line left the device file
// (in a cluster: any replica's).
func (g *Gateway) revokeLoop() {
	t := time.NewTicker(revokeEvery)
	defer t.Stop()
	for {
		select {
		case <-g.stop:
			return
		case <-t.C:
		}
		g.mu.Lock()
		linked := make([]*device, 0, len(g.claims))
		for _, d := range g.claims {
			if d.fileToken || d.clusterToken {
				linked = append(linked, d)
			}
		}
		g.mu.Unlock()
		for _, d := range linked {
			if d.revoked() {
				d.revoke()
			}
		}
	}
}

// New returns a Gateway.
func New(opts Options) *Gateway {
	if opts.InitTimeout <= 0 {
		opts.InitTimeout = 10 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.AgentIdle == 0 {
		opts.AgentIdle = 30 * time.Minute
	}
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = 5 * time.Second
	}
	if opts.LateResults <= 0 {
		opts.LateResults = 256
	}
	if opts.LateTTL <= 0 {
		opts.LateTTL = time.Hour
	}
	var e [6]byte
	_, _ = rand.Read(e[:])
	g := &Gateway{
		opts:    opts,
		log:     opts.Logger,
		epoch:   hex.EncodeToString(e[:]),
		ids:     loadCallKeys(opts.DataDir, opts.Logger),
		devices: map[string]*device{},
		claims:  map[string]*device{},
		listed:  map[string]bool{},
		stop:    make(chan struct{}),
	}
	if opts.Devices != nil || opts.Cluster != nil {
		go g.revokeLoop() // in a cluster: also devices revoked on another replica
	}
	g.answered.epoch = g.epoch
	g.late = newLateStore(opts.LateResults, opts.LateTTL)
	g.owners.ttl = opts.LateTTL
	g.srv = mcp.NewServer(&mcp.Implementation{Name: "rpa-gateway", Version: Version}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{ListChanged: true},
		},
		Logger: opts.Logger,
		// In a cluster: a session adopted from another replica keeps its id (sessions.go).
		GetSessionID: func() string {
			if g.rep != nil {
				return g.rep.sessions.sessionID()
			}
			return rand.Text()
		},
		// resources/list lists the agent's kept answers and runs, and rpa://runs/ are one
		// agent's (owners.go): private, also when a desktop's answer says otherwise.
		SetCacheable: mrtr.CachePolicy{ListsPerCaller: true, PrivateURIs: []string{RunURIPrefix}}.SetCacheable,
	})
	if opts.Cluster != nil {
		g.ids.waitUntil = time.Now().Add(agreeWait) // (callids.go)
		g.rep = newReplica(g, opts.Cluster)
		g.agents.onOpen, g.agents.onClose = g.rep.owners.opened, g.rep.owners.closed
		g.paused.Tag = g.rep.name // a resumed request landing elsewhere is sent here
	}
	g.startTasks() // tasks.go; its middleware runs after unknownTool
	g.srv.AddReceivingMiddleware(g.unknownTool, g.listOwnRuns)
	g.addLateResources()
	if g.rep != nil {
		if err := g.rep.start(); err != nil {
			// Its tasks stay in the cluster's bucket: their requests fail until NATS is back.
			g.log.Error("cannot join the cluster; serving alone", "err", err)
			g.rep = nil
			g.ids.markAgreed() // its own key signs: nothing to wait for
		} else {
			g.srv.AddReceivingMiddleware(g.rep.sessions.record)
		}
	}
	// Outermost: -32003/-32004 as tool errors to an agent that asks (a Go SDK client would see
	// "connection closed" otherwise).
	g.srv.AddReceivingMiddleware(mrtr.ToolErrors)
	return g
}

// replicaName is this replica's name in a cluster, "" alone.
func (g *Gateway) replicaName() string {
	if g.rep == nil {
		return ""
	}
	return g.rep.name
}

// MCP returns the agent-facing go-sdk server (tools of every connected desktop).
func (g *Gateway) MCP() *mcp.Server { return g.srv }

// nextID returns a request id never used before, even by an earlier gateway process (desktops
// remember answered ids for 10 minutes and would not run a reused one), signed (callids.go).
func (g *Gateway) nextID() jsonrpc.ID {
	id, _ := jsonrpc.MakeID(g.ids.sign(fmt.Sprintf("gw-%s-%d", g.epoch, g.seq.Add(1))))
	return id
}

// Handler serves /ws (desktops), /mcp (agents, Streamable HTTP), GET /devices and /status
// (agents' token), and GET /healthz and /readyz (no token: for load balancers).
func (g *Gateway) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/ws", g.serveWS)
	// tasks.LiftHTTP: a 2025-11-25 tools/call's `task` param reaches the tasks middleware (the
	// SDK's params type has no field for it), as on rpa serve (mcpserver.HTTPHandler).
	mcpH := tasks.LiftHTTP(mrtr.StreamableHandler(func(*http.Request) *mcp.Server { return g.srv }, &mcp.StreamableHTTPOptions{
		Logger:         g.log,
		SessionTimeout: max(g.opts.AgentIdle, 0),
		// With a bearer token required, DNS rebinding cannot reach the tools, and a TLS proxy
		// in front sends its public Host header.
		DisableLocalhostProtection: g.opts.Token != "",
	}))
	if g.rep != nil {
		mcpH = g.rep.sessions.wrap(mcpH) // sessions started on other replicas continue here
	}
	// A method the server does not have: JSON-RPC -32601, not the SDK's HTTP 400 text.
	mcpH = mrtr.MethodNotFound(mcpH)
	// Params the SDK cannot decode: -32602 naming the field, where its answer quoted them.
	mcpH = mrtr.CheckHTTP(mcpH)
	mux.Handle("/mcp", httpauth.OriginGuard(g.opts.AllowOrigins, g.auth(g.posts.bind(g.endStreams(mcpH)))))
	mux.Handle("/devices", g.auth(http.HandlerFunc(g.serveDevices)))
	mux.Handle("/status", g.auth(http.HandlerFunc(g.serveStatus)))
	mux.HandleFunc("/healthz", g.serveHealth)
	mux.HandleFunc("/readyz", g.serveReady)
	g.mu.Lock()
	for p, h := range g.mounts {
		mux.Handle(p, g.auth(h))
	}
	g.mu.Unlock()
	return mux
}

// AddResource serves a resource of the gateway's own to agents on /mcp, beside the desktops'
// tools and runs: the cluster's schedules (rpa://schedules, package schedule/clustered). Its
// reads are cacheScope "private" unless h sets mrtr.CachePublic in its result (a resource the
// same for every agent; PROTOCOL.md, "Caching").
func (g *Gateway) AddResource(r *mcp.Resource, h mcp.ResourceHandler) { g.srv.AddResource(r, h) }

// Mount serves h at pattern (an http.ServeMux pattern such as "/schedules/") behind the agents'
// token, in every Handler made after the call (so before Serve): the cluster's schedules
// (package schedule/clustered) are served so.
func (g *Gateway) Mount(pattern string, h http.Handler) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.mounts == nil {
		g.mounts = map[string]http.Handler{}
	}
	g.mounts[pattern] = h
}

func (g *Gateway) authorized(r *http.Request) bool {
	if g.opts.Token == "" {
		return true
	}
	got, ok := httpauth.BearerToken(r)
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(g.opts.Token)) == 1
}

// deviceAuth checks a desktop's credential on /ws. It returns the device id the token belongs
// to ("" for the shared token, which may register any id) and whether it is accepted.
func (g *Gateway) deviceAuth(r *http.Request) (owner string, ok bool) {
	got, has := httpauth.BearerToken(r)
	if g.rep != nil && has && g.rep.devices.isRevoked(sha256.Sum256([]byte(got))) {
		return "", false // revoked on some replica (replica_devices.go)
	}
	if g.opts.Devices != nil && has {
		if id, ok := g.opts.Devices.Owner(got); ok {
			return id, true
		}
	}
	if g.rep != nil && has {
		// In a cluster: a device another replica's file admits (DevicesBucket).
		if id, ok := g.rep.devices.owner(got); ok {
			return id, true
		}
	}
	if g.opts.SharedDeviceToken && (g.opts.Token == "" || has && subtle.ConstantTimeCompare([]byte(got), []byte(g.opts.Token)) == 1) {
		return "", true
	}
	if g.opts.Devices == nil && !g.opts.SharedDeviceToken && g.opts.Token == "" {
		return "", true // no credential configured at all (tests, loopback experiments)
	}
	return "", false
}

func (g *Gateway) auth(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.authorized(r) {
			g.log.Warn("refused a request without a valid token", "path", r.URL.Path, "remote", r.RemoteAddr)
			w.Header().Set("WWW-Authenticate", `Bearer realm="rpa-gateway"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// serveWS accepts one desktop link: register, initialize, list tools, then serve until it drops.
func (g *Gateway) serveWS(w http.ResponseWriter, r *http.Request) {
	if g.drain.draining() {
		http.Error(w, "the gateway is restarting", http.StatusServiceUnavailable)
		return
	}
	owner, ok := g.deviceAuth(r)
	if !ok {
		g.log.Warn("refused a desktop link: its token is not a device token of this gateway", "remote", r.RemoteAddr)
		w.Header().Set("WWW-Authenticate", `Bearer realm="rpa-gateway"`)
		http.Error(w, "unknown device token", http.StatusUnauthorized)
		return
	}
	link, err := mcpws.Upgrade(w, r, g.opts.Link)
	if err != nil {
		g.log.Warn("websocket upgrade failed", "remote", r.RemoteAddr, "err", err)
		return
	}
	defer link.Close()
	first, err := link.ReadFrame()
	if err != nil {
		g.log.Warn("desktop link ended before register", "remote", r.RemoteAddr, "err", err)
		return
	}
	var reg mcpws.Register
	if typ, ok := mcpws.Control(first); !ok || typ != mcpws.TypeRegister || json.Unmarshal(first, &reg) != nil || strings.TrimSpace(reg.DeviceID) == "" {
		g.log.Warn("desktop link did not start with a register message carrying a deviceId", "remote", r.RemoteAddr)
		link.CloseWith(1008, "expected {\"type\":\"register\",\"deviceId\":...} first")
		return
	}
	if owner != "" && reg.DeviceID != owner {
		g.log.Warn("refused a desktop registering under another device's id", "device", reg.DeviceID, "remote", r.RemoteAddr)
		link.CloseWith(connect.CloseWrongDevice, "this token does not belong to device id "+clip(reg.DeviceID))
		return
	}
	d := &device{g: g, id: reg.DeviceID, link: link, since: time.Now(), caps: reg.Capabilities, names: reg.AvailableTools, pending: map[string]*call{}}
	if tok, has := httpauth.BearerToken(r); has && owner != "" {
		fromFile := false
		if g.opts.Devices != nil {
			id, ok := g.opts.Devices.Owner(tok)
			fromFile = ok && id == owner
		}
		if fromFile {
			d.tokenSum, d.fileToken = sha256.Sum256([]byte(tok)), true // revokeLoop watches it
		} else if g.rep != nil {
			d.tokenSum, d.clusterToken = sha256.Sum256([]byte(tok)), true // admitted by the bucket
		}
	}
	log := g.log.With("device", d.id, "remote", link.RemoteAddr())

	done := make(chan error, 1)
	go func() { done <- d.readLoop() }()

	if !g.claim(d) {
		log.Warn("refused a second link for a device id that is connected and answering")
		link.CloseWith(connect.CloseIDInUse, "device id "+clip(d.id)+" is connected from another link; is another desktop using it?")
		<-done
		d.drop()
		return
	}
	defer g.release(d)
	if g.rep != nil {
		ctx, cancel := context.WithTimeout(r.Context(), g.opts.InitTimeout)
		err := g.rep.claim(ctx, d)
		cancel()
		if err != nil {
			if errors.Is(err, errInUse) {
				log.Warn("refused a second link for a device id that is connected and answering on another replica")
				link.CloseWith(connect.CloseIDInUse, "device id "+clip(d.id)+" is connected from another link; is another desktop using it?")
			} else {
				log.Warn("cannot claim the device id in the cluster; the desktop will try again", "err", err)
				link.CloseWith(1013, "the gateway cluster is not available; try again")
			}
			<-done
			d.drop()
			g.rep.unlinked(d)
			return
		}
		defer g.rep.unlinked(d)
	}

	ctx, cancel := context.WithTimeout(r.Context(), g.opts.InitTimeout)
	err = d.initialize(ctx)
	cancel()
	if err != nil {
		log.Warn("desktop initialization failed; closing its link", "err", err)
		link.Close()
		<-done
		d.drop()
		return
	}
	// Registry changes and the tool list change together (under syncMu, in syncWith), so
	// /devices never shows a desktop whose tools agents cannot see yet, or the reverse.
	var old *device
	var n int
	g.syncWith(func() {
		g.mu.Lock()
		old = g.devices[d.id]
		g.devices[d.id] = d
		delete(g.relinks, d.id)
		n = len(g.devices)
		g.mu.Unlock()
		if old != nil {
			old.drop()
		}
	}, d.id)
	if old != nil {
		log.Info("a new link replaces the device's old one")
		old.link.CloseWith(connect.CloseReplaced, "replaced by a newer link with the same device id")
	}
	if g.rep != nil {
		g.rep.published(d)
	}
	d.mu.Lock()
	log.Info("desktop connected", "tools", len(d.tools), "devices", n)
	dirty := d.dirty
	d.dirty = false
	d.mu.Unlock()
	if dirty {
		go d.refreshAndSync()
	}

	err = <-done
	d.drop()
	g.syncWith(func() {
		g.mu.Lock()
		current := g.devices[d.id] == d
		if current {
			delete(g.devices, d.id)
		}
		n = len(g.devices)
		g.mu.Unlock()
		if current && g.rep == nil {
			g.dropped(d) // relink.go: calls for its tools wait for it a while
		}
	}, d.id)
	log.Info("desktop disconnected", "err", err, "up_for", time.Since(d.since).Round(time.Millisecond).String(), "devices", n)
}

// claim reserves d's id for d. A link already holding the id keeps it while it answers a ping
// within ProbeTimeout (or is still initializing); one that does not is closed and d takes over.
func (g *Gateway) claim(d *device) bool {
	for try := 0; try < 2; try++ {
		g.mu.Lock()
		cur := g.claims[d.id]
		if cur == nil {
			g.claims[d.id] = d
			g.mu.Unlock()
			return true
		}
		g.mu.Unlock()
		cur.mu.Lock()
		ready, gone := cur.ready, cur.gone
		cur.mu.Unlock()
		if !gone && (!ready || cur.alive(g.opts.ProbeTimeout)) {
			return false
		}
		g.log.Info("the link holding this device id does not answer; a new link takes over", "device", d.id)
		cur.link.CloseWith(connect.CloseReplaced, "replaced: this link did not answer a ping")
		cur.drop()
		g.mu.Lock()
		if g.claims[d.id] == cur {
			delete(g.claims, d.id)
		}
		g.mu.Unlock()
	}
	return false
}

// release frees d's claim on its id.
func (g *Gateway) release(d *device) {
	g.mu.Lock()
	if g.claims[d.id] == d {
		delete(g.claims, d.id)
	}
	g.mu.Unlock()
}

// clip keeps a peer-chosen string short in close reasons (a close frame holds 123 bytes).
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// endStreams ends an agent's open event stream (GET /mcp, which waits for the server's messages
// for as long as the agent stays) when the gateway closes: nothing is owed on it, and an HTTP
// server shutting down waits for every request to end. The agent opens it again on the next
// replica (its session continues there).
func (g *Gateway) endStreams(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			go func() {
				select {
				case <-g.stop:
					cancel()
				case <-ctx.Done():
				}
			}()
			r = r.WithContext(ctx)
		}
		h.ServeHTTP(w, r)
	})
}

// Close closes every desktop link (their agents' calls fail at once). Live tasks stay live in
// the task store: their desktops go on, and the next gateway process takes them over. From its
// first line the gateway is going down: it takes no new link or call, and a call whose agent's
// request ends now (its HTTP connection closed with the server) is never cancelled on the
// desktop, whose answer is kept for the next gateway (close the gateway before the HTTP server
// that serves its Handler, as Serve does: a 2026-07-28 request that ends while the gateway is
// still up is its agent's cancel).
func (g *Gateway) Close() error {
	g.closing.Store(true)
	g.drain.refuse()
	g.stopOnce.Do(func() { close(g.stop) })
	g.tasks.Close()
	g.mu.Lock()
	all := make([]*device, 0, len(g.devices))
	for _, d := range g.devices {
		all = append(all, d)
	}
	g.mu.Unlock()
	for _, d := range all {
		d.link.CloseWith(1012, "the gateway is restarting")
		d.drop()
	}
	return nil
}

// DeviceInfo is one entry of GET /devices.
type DeviceInfo struct {
	DeviceID       string    `json:"deviceId"`
	Capabilities   []string  `json:"capabilities"`
	Tools          []string  `json:"tools"`           // from tools/list
	AvailableTools []string  `json:"available_tools"` // as the last register said
	RemoteAddr     string    `json:"remoteAddr"`
	ConnectedAt    time.Time `json:"connectedAt"`
	LinkAgeSeconds float64   `json:"linkAgeSeconds"`
	InFlight       int       `json:"inFlight"`          // requests awaiting the desktop's answer (on this replica)
	Replica        string    `json:"replica,omitempty"` // in a cluster: the replica holding its link
}

// Devices lists the connected, initialized desktops sorted by id; in a cluster, those linked to
// every replica (Replica says which).
func (g *Gateway) Devices() []DeviceInfo {
	g.syncMu.Lock()
	defer g.syncMu.Unlock()
	g.mu.Lock()
	all := make([]*device, 0, len(g.devices))
	for _, d := range g.devices {
		all = append(all, d)
	}
	g.mu.Unlock()
	out := make([]DeviceInfo, 0, len(all))
	for _, d := range all {
		d.mu.Lock()
		tools := make([]string, 0, len(d.tools))
		for n := range d.tools {
			tools = append(tools, n)
		}
		sort.Strings(tools)
		info := DeviceInfo{
			DeviceID: d.id, Capabilities: append([]string{}, d.caps...), Tools: tools,
			AvailableTools: append([]string{}, d.names...), RemoteAddr: d.link.RemoteAddr(),
			ConnectedAt: d.since.UTC(), LinkAgeSeconds: time.Since(d.since).Seconds(), InFlight: len(d.pending),
			Replica: g.replicaName(),
		}
		d.mu.Unlock()
		out = append(out, info)
	}
	if g.rep != nil {
		out = append(out, g.rep.remoteDevices(out)...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].DeviceID < out[j].DeviceID })
	return out
}

func (g *Gateway) serveDevices(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "GET only", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"devices": g.Devices()})
}

// offer is one desktop offering a tool: linked here (d), or to another replica (d nil).
type offer struct {
	id      string
	d       *device
	dt      deviceTool
	replica string // the replica holding its link ("" alone)
}

// offers lists the desktops offering name, sorted by device id (from the index sync keeps; a
// desktop of this replica gone since is left out).
func (g *Gateway) offers(name string) []offer {
	g.mu.Lock()
	os := g.index[name]
	g.mu.Unlock()
	out := make([]offer, 0, len(os))
	for _, o := range os {
		if o.d == nil {
			out = append(out, o)
			continue
		}
		o.d.mu.Lock()
		if dt, ok := o.d.tools[name]; ok && !o.d.gone {
			o.dt = dt
			out = append(out, o)
		}
		o.d.mu.Unlock()
	}
	return out
}

// sync brings the agent-facing tool list in line with the desktops linked here and, in a
// cluster, to the other replicas. Tools of the devices named changed (they came, went or
// re-registered) are re-added even when unchanged, so agents get
// notifications/tools/list_changed.
func (g *Gateway) sync(changed ...string) { g.syncWith(nil, changed...) }

// syncQueue holds the syncs asked for while one runs: the next one does them all at once.
type syncQueue struct {
	mu      sync.Mutex
	pending []*syncReq
	running bool
}

// syncReq is one sync asked for: apply (when set) changes the registry first, under syncMu.
type syncReq struct {
	apply   func()
	changed []string
	done    chan struct{}
}

// syncWith runs apply and then sync(changed...) under syncMu, and returns once both are done.
// Syncs asked for while one runs are done together by the next one: its applies in the order
// asked, then one rebuild of the index for all. A sync costs in proportion to every desktop of
// the cluster, so a replica that hundreds of desktops link to at once (their replica died)
// rebuilds it a few times, not once per desktop.
func (g *Gateway) syncWith(apply func(), changed ...string) {
	r := &syncReq{apply: apply, changed: changed, done: make(chan struct{})}
	q := &g.syncs
	q.mu.Lock()
	q.pending = append(q.pending, r)
	lead := !q.running
	q.running = true
	q.mu.Unlock()
	if lead {
		g.runSyncs(true)
	}
	<-r.done
}

// take returns the syncs asked for (nil when none is: then nobody runs them any more).
func (q *syncQueue) take() []*syncReq {
	q.mu.Lock()
	defer q.mu.Unlock()
	batch := q.pending
	q.pending = nil
	if len(batch) == 0 {
		q.running = false
	}
	return batch
}

// runSyncs does the syncs asked for until none is left. The caller whose sync started them
// (caller) goes on after the first batch, its own, and leaves the rest to a goroutine.
func (g *Gateway) runSyncs(caller bool) {
	for n := 0; ; n++ {
		batch := g.syncs.take()
		if batch == nil {
			return
		}
		if caller && n > 0 {
			go func() {
				g.runBatch(batch)
				g.runSyncs(false)
			}()
			return
		}
		g.runBatch(batch)
	}
}

func (g *Gateway) runBatch(batch []*syncReq) {
	var ids []string
	g.syncMu.Lock()
	for _, r := range batch {
		if r.apply != nil {
			r.apply()
		}
		ids = append(ids, r.changed...)
	}
	g.syncLocked(ids...)
	g.syncMu.Unlock()
	for _, r := range batch {
		close(r.done)
	}
}

// collect builds the index: tool name → offers, sorted by device id. A desktop linked here
// is taken from this replica's links; the others from the cluster's registry.
func (g *Gateway) collect() map[string][]offer {
	byName := map[string][]offer{}
	local := map[string]bool{}
	g.mu.Lock()
	for _, d := range g.devices {
		local[d.id] = true
		d.mu.Lock()
		for n, dt := range d.tools {
			byName[n] = append(byName[n], offer{id: d.id, d: d, dt: dt, replica: g.replicaName()})
		}
		d.mu.Unlock()
	}
	g.mu.Unlock()
	if g.rep != nil {
		g.rep.remoteOffers(local, byName)
	}
	for _, os := range byName {
		sort.Slice(os, func(i, j int) bool { return os[i].id < os[j].id })
	}
	return byName
}

// stateChanged calls Options.onChange, if any.
func (g *Gateway) stateChanged() {
	g.changes.fire()
	if g.opts.onChange != nil {
		g.opts.onChange()
	}
}

// syncLocked is sync with syncMu held.
func (g *Gateway) syncLocked(changed ...string) {
	defer g.stateChanged()
	g.builds.Add(1)
	byName := g.collect()
	g.mu.Lock()
	old := g.index
	g.index = byName
	g.mu.Unlock()
	var gone []string
	for n := range g.listed {
		if _, ok := byName[n]; !ok {
			gone = append(gone, n)
		}
	}
	if len(gone) > 0 {
		g.srv.RemoveTools(gone...)
		for _, n := range gone {
			delete(g.listed, n)
		}
	}
	// Only the tools the changed desktops offer, or offered before, can differ; they are
	// (re-)added, which also tells agents the list changed.
	isChanged := make(map[string]bool, len(changed))
	for _, id := range changed {
		isChanged[id] = true
	}
	offeredBy := func(os []offer) bool {
		for _, o := range os {
			if isChanged[o.id] {
				return true
			}
		}
		return false
	}
	for n, os := range byName {
		if g.listed[n] && !offeredBy(os) && !offeredBy(old[n]) {
			continue
		}
		t, err := agentTool(n, os)
		if err != nil {
			g.log.Warn("cannot list a tool", "tool", n, "err", err)
			continue
		}
		g.srv.AddTool(t, g.forward(n))
		g.listed[n] = true
	}
}

// agentTool builds the agent-facing tool for name from the desktops offering it: the first
// desktop's definition, plus a required deviceId argument when there are several.
func agentTool(name string, os []offer) (*mcp.Tool, error) {
	dt := os[0].dt
	t := *dt.tool
	if len(os) == 1 || dt.hasDeviceID {
		return &t, nil
	}
	var schema map[string]any
	if err := json.Unmarshal(t.InputSchema.(json.RawMessage), &schema); err != nil {
		return nil, err
	}
	props, _ := schema["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	ids := make([]string, len(os))
	for i, o := range os {
		ids[i] = o.id
	}
	props[DeviceIDArg] = map[string]any{
		"type":        "string",
		"enum":        ids,
		"description": "Which connected desktop runs the tool (several offer it).",
	}
	schema["properties"] = props
	req, _ := schema["required"].([]any)
	schema["required"] = append(req, DeviceIDArg)
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	t.InputSchema = json.RawMessage(raw)
	return &t, nil
}

// unknownTool answers tools/call for a name no desktop offers with -32003 (the SDK alone would
// answer -32602), after waiting for a relinking desktop that offered it (relink.go).
func (g *Gateway) unknownTool(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && len(g.offers(p.Name)) == 0 && !g.awaitOffer(ctx, p.Name, "") {
				return nil, &jsonrpc.Error{Code: CodeNoSuchTool, Message: "no connected desktop offers tool " + lang.Echo(p.Name)}
			}
		}
		return next(ctx, method, req)
	}
}

// forward returns the handler of the agent-facing tool name: pick the desktop, forward the call
// as a raw frame, relay progress, return the desktop's answer (errors keep their codes). An agent
// on protocol 2026-07-28 (multi-round-trip) gets the desktop's questions as input requests of
// its call, which goes on across its requests (package mrtr).
func (g *Gateway) forward(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if tr := tasks.Requested(ctx); tr != nil {
			return g.startTask(ctx, req, name, tr) // tasks.go
		}
		if mrtr.MultiRoundTrip(req) {
			owner := g.agentOwner(req).Key() // only its agent resumes a paused call
			if st := req.Params.RequestState; st != "" {
				if holder := mrtr.TagOf(st); g.rep != nil && holder != "" && holder != g.rep.name && !g.paused.Has(st) {
					return g.rep.resumeElsewhere(ctx, holder, owner, req) // replica_paused.go
				}
				return g.paused.Resume(ctx, owner, req)
			}
			return g.paused.Start(ctx, owner, func(rctx context.Context, pc *mrtr.Call) (*mcp.CallToolResult, error) {
				return g.call(rctx, req, name, pc.First(), pc.Ask)
			})
		}
		return g.call(ctx, req, name, ctx, nil)
	}
}

// call forwards one agent call of tool name to a desktop and waits for its answer. pctx is the
// context progress notifications go out in (the agent's request); ask, when set, carries the
// desktop's elicitation and sampling requests to the agent (else they go to its session).
func (g *Gateway) call(ctx context.Context, req *mcp.CallToolRequest, name string, pctx context.Context, ask mrtr.AskFunc) (*mcp.CallToolResult, error) {
	pick, args, leave, err := g.openCall(ctx, req, name)
	if err != nil {
		return nil, err
	}
	defer leave()
	owner := g.agentOwner(req)
	c := &call{agent: req.Session, ctx: ctx, pctx: pctx, ask: ask, tool: name, owner: owner}
	params := map[string]any{"name": name, "arguments": args}
	if tok := req.Params.GetProgressToken(); tok != nil {
		c.token = tok // request sets the desktop-side token to the forwarded request's id
	}
	resp, err := g.toolsCall(ctx, pick, params, c)
	if err != nil {
		var gone errGone
		if errors.As(err, &gone) {
			if g.drain.draining() {
				return nil, &jsonrpc.Error{Code: CodeUnreachable, Message: fmt.Sprintf("%s; the call keeps running on desktop %q and its answer will be kept as resource %s", msgRestarting, pick.id, RunURI(c.id))}
			}
			return nil, disconnected(gone, c.id, g.relinkWait())
		}
		return nil, err
	}
	if resp.Error != nil {
		return nil, rpcErr(resp.Error)
	}
	g.noteRun(owner, pick.id, resp.Result)
	if g.posts.gone(req) {
		// The agent's connection went away during the call: this answer would be lost.
		g.keepAnswer(pick.id, name, c.id, resp)
	}
	return callResult(resp)
}

// openCall begins an agent's call of tool name (a plain call or a task): refused while the
// gateway drains, else counted in flight until leave is called; the desktop picked (pick) and a
// resumeRunId checked against its run's owner (owners.go). On an error nothing is left to leave.
func (g *Gateway) openCall(ctx context.Context, req *mcp.CallToolRequest, name string) (pick *offer, args map[string]json.RawMessage, leave func(), err error) {
	if !g.drain.enter() {
		return nil, nil, nil, &jsonrpc.Error{Code: CodeUnreachable, Message: msgRestarting}
	}
	pick, args, err = g.pick(ctx, req, name)
	if err == nil {
		err = g.checkResume(req, args)
	}
	if err != nil {
		g.drain.leave()
		return nil, nil, nil, err
	}
	return pick, args, g.drain.leave, nil
}

// toolsCall sends tools/call to the desktop of pick and waits for its answer: down its link
// here (asked again on its next link when this one drops, relink.go) or, in a cluster, where
// the desktop is linked (an answer may come back through any replica, replica.go).
func (g *Gateway) toolsCall(ctx context.Context, pick *offer, params map[string]any, c *call) (*jsonrpc.Response, error) {
	if g.rep != nil {
		return g.rep.call(ctx, *pick, params, c)
	}
	resp, err := pick.d.request(ctx, "tools/call", params, c)
	if err != nil {
		resp, err = g.reask(ctx, pick.d, params, c, err) // relink.go
	}
	return resp, err
}

// callResult decodes a desktop's tools/call answer (resp.Error is nil).
func callResult(resp *jsonrpc.Response) (*mcp.CallToolResult, error) {
	var res mcp.CallToolResult
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "desktop sent a bad tools/call result: " + err.Error()}
	}
	return &res, nil
}

// pick chooses the desktop an agent's call of tool name goes to (its deviceId argument when
// several offer it) and returns the arguments to send it.
func (g *Gateway) pick(ctx context.Context, req *mcp.CallToolRequest, name string) (*offer, map[string]json.RawMessage, error) {
	args := map[string]json.RawMessage{}
	if len(req.Params.Arguments) > 0 && string(req.Params.Arguments) != "null" {
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "arguments must be a JSON object"}
		}
	}
	var want string
	if raw, ok := args[DeviceIDArg]; ok {
		if err := json.Unmarshal(raw, &want); err != nil {
			return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "deviceId: must be a string"}
		}
	}
	offers := g.offers(name)
	if (len(offers) == 0 || want != "" && !slices.ContainsFunc(offers, func(o offer) bool { return o.id == want })) && g.awaitOffer(ctx, name, want) {
		offers = g.offers(name) // a relinking desktop is back (relink.go)
	}
	var pick *offer
	switch {
	case len(offers) == 0:
		return nil, nil, &jsonrpc.Error{Code: CodeNoSuchTool, Message: "no connected desktop offers tool " + lang.Echo(name)}
	case want != "":
		for i := range offers {
			if offers[i].id == want {
				pick = &offers[i]
			}
		}
		if pick == nil {
			return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("deviceId: no connected desktop %s offers tool %s", lang.Echo(want), lang.Echo(name))}
		}
	case len(offers) == 1:
		pick = &offers[0]
	default:
		ids := make([]string, len(offers))
		for i, o := range offers {
			ids[i] = o.id
		}
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("deviceId: required, tool %s is offered by %s", lang.Echo(name), strings.Join(ids, ", "))}
	}
	if !pick.dt.hasDeviceID {
		delete(args, DeviceIDArg)
	}
	return pick, args, nil
}
