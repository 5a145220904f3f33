//lint:file-ignore SA1019 the tests exercise the forwarding of sampling, deprecated by SEP-2577 but still part of the protocol during its deprecation window.

package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rpa-dev/rpa/internal/link/cluster"
	"github.com/rpa-dev/rpa/internal/link/cluster/clustertest"
	"github.com/rpa-dev/rpa/internal/link/connect"
)

// replicaSet is gateways clustered on in-process NATS, as `rpa gateway --cluster-listen ...`
// runs them.
type replicaSet struct {
	gws   []*gw
	nodes []*cluster.Node
}

func startReplicas(t testing.TB, n int, mod func(i int, o *Options)) *replicaSet {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a NATS cluster")
	}
	rs := &replicaSet{nodes: clustertest.Start(t, n)}
	for i, nd := range rs.nodes {
		o := Options{Cluster: nd}
		if mod != nil {
			mod(i, &o)
		}
		rs.gws = append(rs.gws, startGateway(t, "", o))
	}
	for _, x := range rs.gws {
		x.waitAttached(t, n)
	}
	return rs
}

// waitAttached waits until the replica has the cluster state and sees n replicas.
func (x *gw) waitAttached(t testing.TB, n int) {
	t.Helper()
	await(t, func() bool {
		reg := x.g.rep.reg.Load()
		return reg != nil && len(reg.Replicas()) == n
	}, func() string {
		return fmt.Sprintf("replica %s did not attach to the cluster state with %d replicas", x.g.rep.name, n)
	})
}

// urls lists the desktops' addresses of the replicas, starting with replica first.
func (rs *replicaSet) urls(first int) []string {
	var out []string
	for i := range rs.gws {
		out = append(out, rs.gws[(first+i)%len(rs.gws)].wsURL())
	}
	return out
}

// deskOn starts a desktop given every replica's address, replica first first.
func (rs *replicaSet) deskOn(t testing.TB, first int, id string, srv *mcp.Server) *desk {
	urls := rs.urls(first)
	return startDesk(t, urls[0], id, srv, func(o *connect.Options) {
		o.More = urls[1:]
		o.RelinkJitter = 50 * time.Millisecond
	})
}

// waitLinked waits until every replica lists the devices (cluster-wide) and each is linked to the
// replica named in where ("" = any, "!r1" = any but r1).
func (rs *replicaSet) waitLinked(t testing.TB, where map[string]string) {
	t.Helper()
	rs.waitLinkedFor(t, where, hangGuard)
}

// waitLinkedFor is waitLinked with a hang guard of its own (thousands of desktops).
func (rs *replicaSet) waitLinkedFor(t testing.TB, where map[string]string, guard time.Duration) {
	t.Helper()
	var last string
	awaitFor(t, guard, func() bool {
		ok := true
		for _, x := range rs.gws {
			if x.dead {
				continue
			}
			got := map[string]string{}
			for _, d := range x.g.Devices() {
				got[d.DeviceID] = d.Replica
			}
			if len(got) != len(where) {
				ok = false
				last = fmt.Sprintf("%s sees %v", x.g.rep.name, got)
				break
			}
			indexed := map[string]bool{}
			x.g.syncMu.Lock() // a sync that set the index has also listed its tools
			x.g.mu.Lock()
			for _, os := range x.g.index {
				for _, o := range os {
					indexed[o.id] = true
				}
			}
			x.g.mu.Unlock()
			x.g.syncMu.Unlock()
			for id, rep := range where {
				r, has := got[id]
				not, neg := strings.CutPrefix(rep, "!")
				if !has || !indexed[id] || neg && r == not || !neg && rep != "" && r != rep {
					ok = false
					last = fmt.Sprintf("%s sees %v, indexed %v", x.g.rep.name, got, indexed)
				}
			}
		}
		return ok
	}, func() string { return fmt.Sprintf("desktops not linked as %v: %s", where, last) })
}

// crash kills a replica as a crash would: its listener and links cut without a close frame,
// its NATS server gone, nothing said to the cluster.
func (rs *replicaSet) crash(i int) {
	x := rs.gws[i]
	x.dead = true
	x.g.closing.Store(true) // from now on it says nothing, as a dead process (its HTTP server closing ends its agents' requests)
	_ = x.hs.Close()
	x.g.mu.Lock()
	for _, d := range x.g.devices {
		d.link.Abort()
	}
	x.g.mu.Unlock()
	rs.nodes[i].Kill()
	x.g.rep.kill()
}

func TestClusterCallThroughAnyReplica(t *testing.T) {
	rs := startReplicas(t, 3, nil)
	var ran runCount
	rs.deskOn(t, 0, "A", deskServer("A", &ran, "only_a"))
	rs.deskOn(t, 1, "B", deskServer("B", &ran))
	rs.waitLinked(t, map[string]string{"A": "r1", "B": "r2"})

	changed := make(chan struct{}, 64)
	progress := make(chan string, 16)
	var elicited sync.Map
	cs := agentAt(t, rs.gws[2].mcpURL(), &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			elicited.Store(req.Params.Message, true)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- req.Params.Message:
			default:
			}
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: "forty-two"}, Model: "m", Role: "assistant"}, nil
		},
	}, "2025-11-25")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// tools/list on r3 (no desktop of its own) is the union of A's and B's.
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]*mcp.Tool{}
	for _, tl := range lt.Tools {
		names[tl.Name] = tl
	}
	if names["only_a"] == nil || names["echo"] == nil {
		t.Fatalf("r3 lists %v", lt.Tools)
	}
	if b := fmt.Sprint(names["echo"].InputSchema); !strings.Contains(b, "A") || !strings.Contains(b, "B") {
		t.Errorf("echo's deviceId enum on r3: %s", b)
	}

	for _, dev := range []string{"A", "B"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"deviceId": dev, "msg": "hi"}})
		if err != nil || text(res) != dev+": hi" {
			t.Fatalf("echo on %s through r3: %v %v", dev, res, err)
		}
	}
	// Progress comes back through the foreign replica, and the call runs once.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"deviceId": "A", "key": "k1", "ms": 200},
		Meta: mcp.Meta{"progressToken": "p1"}})
	if err != nil || text(res) != "A done k1" {
		t.Fatalf("slow: %v %v", res, err)
	}
	if n := ran.get("k1"); n != 1 {
		t.Errorf("k1 ran %d times", n)
	}
	select {
	case m := <-progress:
		if m != "1/4" {
			t.Errorf("first progress through r3: %q", m)
		}
	default:
		t.Error("no progress reached the agent on r3")
	}
	// The desktop's question reaches the agent on r3; so does sampling.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"deviceId": "B", "msg": "your name?"}})
	if err != nil || text(res) != "B got Ada" {
		t.Fatalf("ask: %q %v", text(res), err)
	}
	if _, ok := elicited.Load("your name?"); !ok {
		t.Error("the elicitation never reached the agent")
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "think", Arguments: map[string]any{"deviceId": "A", "msg": "q"}})
	if err != nil || text(res) != "A model said forty-two" {
		t.Fatalf("think: %v %v", res, err)
	}

	// A desktop linking to r1 shows on r3 (list_changed there).
	for len(changed) > 0 {
		<-changed
	}
	rs.deskOn(t, 0, "C", deskServer("C", nil, "only_c"))
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no list_changed on r3 when C linked to r1")
	}
	rs.waitLinked(t, map[string]string{"A": "r1", "B": "r2", "C": "r1"})
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "only_c", Arguments: map[string]any{}})
	if err != nil || text(res) != "C ran only_c" {
		t.Fatalf("only_c: %v %v", res, err)
	}
}

// A call for a desktop linked nowhere is told at once, naming it.
func TestClusterDesktopOffline(t *testing.T) {
	rs := startReplicas(t, 3, nil)
	d := rs.deskOn(t, 0, "A", deskServer("A", nil))
	rs.waitLinked(t, map[string]string{"A": "r1"})
	// r2 still lists A's tools when A's link is cut without r1 telling anyone: the call goes
	// to A's subject, where nobody answers.
	x := rs.gws[1]
	x.waitOffers(t, "echo", 1)
	o := x.g.offers("echo")
	if len(o) != 1 || o[0].d != nil {
		t.Fatalf("offers on r2: %+v", o)
	}
	d.stop()
	// Wait for r1 to drop the link, its subscription and its record.
	rs.gws[0].waitDevicesLocal(t, 0)
	rs.waitLinked(t, map[string]string{})
	c := &call{tool: "echo"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := x.g.rep.call(ctx, o[0], map[string]any{"name": "echo", "arguments": map[string]any{"msg": "x"}}, c)
	var off errOffline
	if !errors.As(err, &off) || !strings.Contains(err.Error(), `desktop "A" is not connected`) {
		t.Fatalf("call for an offline desktop: %v", err)
	}
}

// waitDevicesLocal waits until n desktops are linked to this replica.
func (x *gw) waitDevicesLocal(t testing.TB, n int) {
	t.Helper()
	x.waitDevicesLocalFor(t, n, hangGuard)
}

// waitDevicesLocalFor is waitDevicesLocal with a hang guard of its own (thousands of desktops).
func (x *gw) waitDevicesLocalFor(t testing.TB, n int, guard time.Duration) {
	t.Helper()
	have := func() int {
		x.g.mu.Lock()
		defer x.g.mu.Unlock()
		return len(x.g.devices)
	}
	awaitFor(t, guard, func() bool { return have() == n }, func() string { return fmt.Sprintf("replica has %d links, want %d", have(), n) })
}

func TestClusterReplicaDies(t *testing.T) {
	rs := startReplicas(t, 3, nil)
	var ran runCount
	ids := []string{"d1", "d2", "d3", "d4"}
	where := map[string]string{}
	for i, id := range ids {
		first := i % 2 // r1 and r2
		rs.deskOn(t, first, id, deskServer(id, &ran))
		where[id] = fmt.Sprintf("r%d", first+1)
	}
	rs.waitLinked(t, where)
	cs := agentAt(t, rs.gws[2].mcpURL(), nil, "2025-11-25")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	// A call in flight on d1 (linked to r1) when r1 dies: it gets its answer (d1 relinks with
	// the call still running and delivers it), or a clear error; never silence.
	type out struct {
		res *mcp.CallToolResult
		err error
	}
	inflight := make(chan out, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"deviceId": "d1", "key": "inflight", "ms": 1500}})
		if err != nil {
			t.Logf("in flight: %v", err)
		}
		inflight <- out{res, err}
	}()
	waitRan(t, &ran, "inflight")
	rs.crash(0)
	for _, id := range ids {
		where[id] = "!r1"
	}
	rs.waitLinked(t, where)
	for _, d := range rs.gws[1].g.Devices() {
		if d.Replica == "r1" {
			t.Fatalf("%s still on the dead r1", d.DeviceID)
		}
	}
	o := <-inflight
	switch {
	case o.err == nil && text(o.res) == "d1 done inflight":
	case o.err != nil && strings.Contains(o.err.Error(), "d1"):
		t.Logf("the call in flight got a clear error: %v", o.err)
	default:
		t.Fatalf("call in flight at the kill: %v %v", o.res, o.err)
	}
	if n := ran.get("inflight"); n != 1 {
		t.Errorf("the call in flight ran %d times", n)
	}
	// Every desktop answers after the relink, through r3.
	for _, id := range ids {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"deviceId": id, "msg": "after"}})
		if err != nil || text(res) != id+": after" {
			t.Fatalf("echo on %s after the kill: %v %v", id, res, err)
		}
	}
}

// waitRan waits until a test desktop started the run key.
func waitRan(t testing.TB, r *runCount, key string) {
	t.Helper()
	await(t, func() bool { return r.get(key) > 0 }, func() string { return key + " never ran" })
}

var _ = jsonrpc.CodeInternalError
var _ = slices.Contains[[]string]

// waitOffers waits until the replica's tool index has n offers of tool.
func (x *gw) waitOffers(t testing.TB, tool string, n int) {
	t.Helper()
	await(t, func() bool { return len(x.g.offers(tool)) == n }, func() string {
		return fmt.Sprintf("%d offers of %s, want %d; present %+v\nlog:\n%s", len(x.g.offers(tool)), tool, n, x.g.rep.reg.Load().Present(), x.logs.String())
	})
}

// roundRobin is a load balancer without stickiness: each request goes to the next replica.
type roundRobin struct {
	hosts []string
	n     atomic.Int64
	seen  sync.Map // host → requests
	rt    http.RoundTripper
}

func (b *roundRobin) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	h := b.hosts[int(b.n.Add(1))%len(b.hosts)]
	r.URL.Host, r.Host = h, h
	r.Header.Set("Authorization", "Bearer "+testToken)
	v, _ := b.seen.LoadOrStore(h, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
	return b.rt.RoundTrip(r)
}

// A 2025-11-25 session started on one replica keeps working when its next requests land on the
// others: calls, the desktop's question to the agent, progress.
func TestClusterSessionWithoutStickiness(t *testing.T) {
	rs := startReplicas(t, 3, nil)
	var ran runCount
	rs.deskOn(t, 0, "A", deskServer("A", &ran))
	rs.waitLinked(t, map[string]string{"A": "r1"})
	lb := &roundRobin{rt: &http.Transport{}}
	for _, x := range rs.gws {
		lb.hosts = append(lb.hosts, x.addr)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "t"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Grace"}}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://lb/mcp", HTTPClient: &http.Client{Transport: lb}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for i := range 6 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"msg": fmt.Sprint(i)}})
		if err == nil && text(res) != fmt.Sprintf("A: %d", i) {
			err = fmt.Errorf("answer %q", text(res))
		}
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"msg": "name?"}})
	if err != nil {
		for _, x := range rs.gws {
			t.Log(x.logs.String())
		}
		t.Fatalf("ask: %v", err)
	}
	if text(res) != "A got Grace" {
		t.Fatalf("ask: %q", text(res))
	}
	for _, h := range lb.hosts {
		if v, ok := lb.seen.Load(h); !ok || v.(*atomic.Int64).Load() == 0 {
			t.Errorf("no request reached %s", h)
		}
	}
	continued := 0
	for _, x := range rs.gws[1:] {
		if strings.Contains(x.logs.String(), "continuing an agent session started on another replica") {
			continued++
		}
	}
	if continued == 0 {
		t.Error("no replica continued the session")
	}
}

// Device credentials are cluster-wide: a device in one replica's file links to any replica;
// --add-device on one replica's file works on all; a forged id (another device's token) and a
// second link for an id linked and answering on another replica are refused everywhere; the
// calls keep reaching the real desktop.
func TestClusterDeviceCredentials(t *testing.T) {
	path1, toks := deviceFile(t, "A", "spare")
	empty := filepath.Join(t.TempDir(), "devices")
	if err := os.WriteFile(empty, []byte("# no devices here\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rs := startReplicas(t, 3, func(i int, o *Options) {
		p := empty
		if i == 0 {
			p = path1
		}
		dt, err := LoadDeviceTokens(p)
		if err != nil {
			t.Fatal(err)
		}
		o.Devices, o.SharedDeviceToken = dt, false
	})
	deskWith := func(first int, id, token string, once bool) *desk {
		urls := rs.urls(first)
		if once {
			urls = urls[:1]
		}
		return startDesk(t, urls[0], id, deskServer(id, nil), func(o *connect.Options) {
			o.More, o.Token, o.Once, o.RelinkJitter = urls[1:], token, once, 50*time.Millisecond
		})
	}
	knows := func(i int, token, id string) {
		t.Helper()
		await(t, func() bool {
			got, ok := rs.gws[i].g.rep.devices.owner(token)
			return ok && got == id
		}, func() string { return fmt.Sprintf("r%d never learnt %s's token", i+1, id) })
	}
	// A, known to r1's file only, links to r2 (once r1 shared its file: a desktop refused
	// before would wait its minute).
	knows(1, toks["A"], "A")
	deskWith(1, "A", toks["A"], false)
	rs.waitLinked(t, map[string]string{"A": "r2"})

	// A device added to r1's file links to r3.
	tokB, err := AddDevice(path1, "B")
	if err != nil {
		t.Fatal(err)
	}
	// r1 puts the new line in the bucket within its 2 s poll; r3 admits B from then on.
	knows(2, tokB, "B")
	deskWith(2, "B", tokB, false)
	rs.waitLinked(t, map[string]string{"A": "r2", "B": "r3"})

	for _, c := range []struct {
		name, id, token, want string
	}{
		{"another device's token, on r3", "A", toks["spare"], "belongs to another device"},
		{"its own token while it is linked to r2, on r1", "A", toks["A"], "already connected"},
		{"its own token while it is linked to r2, on r3", "A", toks["A"], "already connected"},
		{"a token no file has", "A", "not-a-device-token", "HTTP 401"},
	} {
		on := 2
		if strings.Contains(c.name, "on r1") {
			on = 0
		}
		imp := deskWith(on, c.id, c.token, true)
		<-imp.done
		if !errors.Is(imp.err, connect.ErrRefused) || !strings.Contains(imp.err.Error(), c.want) {
			t.Errorf("%s: ended with %v, want a refusal saying %q", c.name, imp.err, c.want)
		}
	}
	cs := agentAt(t, rs.gws[0].mcpURL(), nil, "2025-11-25")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"deviceId": "A", "msg": "hi"}})
	if err != nil || text(res) != "A: hi" {
		t.Fatalf("echo on A: %v %v", res, err)
	}
	rs.waitLinked(t, map[string]string{"A": "r2", "B": "r3"})
}

// SIGTERM of a replica (Shutdown) with others alive: its desktops are told to link elsewhere at
// once, and calls in flight on them finish there: the agent on another replica and the agent on
// the draining replica itself both get their answers; nothing runs twice.
func TestClusterDrain(t *testing.T) {
	rs := startReplicas(t, 3, nil)
	var ran runCount
	rs.deskOn(t, 0, "d1", deskServer("d1", &ran))
	rs.waitLinked(t, map[string]string{"d1": "r1"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	type out struct {
		who string
		res *mcp.CallToolResult
		err error
	}
	outs := make(chan out, 2)
	for i, key := range []string{"from-r2", "from-r1"} {
		url := rs.gws[1].mcpURL()
		if i == 1 {
			url = rs.gws[0].mcpURL()
		}
		cs := agentAt(t, url, nil, "2025-11-25")
		go func() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"key": key, "ms": 1500}})
			outs <- out{key, res, err}
		}()
		waitRan(t, &ran, key)
	}
	drained := make(chan error, 1)
	go func() {
		dctx, dcancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer dcancel()
		drained <- rs.gws[0].g.Shutdown(dctx)
	}()
	rs.waitLinked(t, map[string]string{"d1": "!r1"})
	for range 2 {
		o := <-outs
		if o.err != nil || text(o.res) != "d1 done "+o.who {
			t.Errorf("call %s across the drain: %v %v", o.who, o.res, o.err)
		}
	}
	if err := <-drained; err != nil {
		t.Errorf("drain: %v", err)
	}
	rs.gws[0].dead = true
	for _, k := range []string{"from-r2", "from-r1"} {
		if n := ran.get(k); n != 1 {
			t.Errorf("%s ran %d times", k, n)
		}
	}
	if !strings.Contains(rs.gws[0].logs.String(), "desktops told to link to another replica") {
		t.Error("the draining replica did not tell its desktops to move")
	}
}

// A replica whose peers cannot be reached at its start says so, keeps trying, and serves its
// own desktops meanwhile (not ready for the load balancer); once the peers come, it joins and
// its desktop is shared with them.
func TestClusterPeersUnreachableAtStart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS cluster")
	}
	cfgs := clustertest.Configs(t, 3, t.TempDir(), "s", clustertest.Logger())
	first := clustertest.StartConfigsNoWait(t, cfgs[:1])
	x := startGateway(t, "", Options{Cluster: first[0]})
	startDesk(t, x.wsURL(), "solo", deskServer("solo", nil), nil)
	x.waitDevicesLocal(t, 1)
	cs := agentAt(t, x.mcpURL(), nil, "2025-11-25")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"msg": "alone"}})
	if err != nil || text(res) != "solo: alone" {
		t.Fatalf("a call on the replica cut off from its peers: %v %v", res, err)
	}
	st := x.g.Status(ctx)
	if st.Ready || !strings.Contains(st.Reason, "cluster state is not available") {
		t.Errorf("status of a replica without its peers: ready %v, %q", st.Ready, st.Reason)
	}
	if !strings.Contains(x.logs.String(), "desktops are admitted on this replica's own checks") {
		t.Error("no word in the log that links are admitted on local checks")
	}
	// The peers come: the replica joins, its desktop is recorded for every replica.
	rest := clustertest.StartConfigs(t, cfgs[1:])
	rs := &replicaSet{gws: []*gw{x}, nodes: append(first, rest...)}
	for _, nd := range rest {
		rs.gws = append(rs.gws, startGateway(t, "", Options{Cluster: nd}))
	}
	for _, y := range rs.gws {
		y.waitAttached(t, 3)
	}
	// At once, before its desktop's record has reached the bucket: a replica counts the desktops
	// it holds itself (it said 0 of them here while its record was on its way).
	if st := x.g.Status(ctx); len(st.Replicas) != 3 || st.Total != 1 || st.Replicas[0].Name != "r1" || st.Replicas[0].Devices != 1 {
		t.Errorf("status after the peers came: %+v", st)
	}
	// Ready once it has also read which agent sessions are open on the others.
	await(t, func() bool { return x.g.Status(ctx).Ready }, func() string { return "r1 not ready after the peers came: " + x.g.Status(ctx).Reason })
	rs.waitLinked(t, map[string]string{"solo": "r1"})
	cs2 := agentAt(t, rs.gws[2].mcpURL(), nil, "2025-11-25")
	res, err = cs2.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"msg": "joined"}})
	if err != nil || text(res) != "solo: joined" {
		t.Fatalf("a call through r3 after the join: %v %v", res, err)
	}
}

// A replica whose clock is an hour off still counts as alive (liveness is JetStream's expiry
// of its heartbeat, never a comparison of clocks), and counts as gone once it stops beating.
func TestClusterClockSkewedHeartbeat(t *testing.T) {
	rs := startReplicas(t, 3, func(i int, o *Options) {
		if i == 0 {
			o.clock = func() time.Time { return time.Now().Add(-time.Hour) }
		}
		if i == 1 {
			o.clock = func() time.Time { return time.Now().Add(3 * time.Hour) }
		}
	})
	rs.deskOn(t, 0, "A", deskServer("A", nil))
	rs.deskOn(t, 1, "B", deskServer("B", nil))
	rs.waitLinked(t, map[string]string{"A": "r1", "B": "r2"})
	cs := agentAt(t, rs.gws[2].mcpURL(), nil, "2025-11-25")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// Several heartbeats later, both skewed replicas still serve.
	reg := rs.gws[2].g.rep.reg.Load()
	deadline := time.Now().Add(3 * cluster.ReplicaBeat)
	for time.Now().Before(deadline) {
		for _, dev := range []string{"A", "B"} {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"deviceId": dev, "msg": "t"}})
			if err != nil || text(res) != dev+": t" {
				t.Fatalf("echo on %s (its replica's clock skewed): %v %v", dev, res, err)
			}
		}
		if !reg.Alive("r1") || !reg.Alive("r2") {
			t.Fatal("a replica with a skewed clock counted as gone")
		}
	}
	// r1 stops beating without a word: it is gone within the TTL, whatever its clock said.
	rs.crash(0)
	await(t, func() bool { return !reg.Alive("r1") }, func() string { return "the silent replica never counted as gone" })
}

// The NATS connection of the replica holding a desktop is lost in the middle of a call (its HTTP
// side and the desktop's link stay up): the agent on another replica gets a clear error naming the
// desktop and where the answer will be kept, not silence.
func TestClusterNATSLostMidCall(t *testing.T) {
	old := relinkGrace
	relinkGrace = 2 * time.Second
	defer func() { relinkGrace = old }()
	rs := startReplicas(t, 3, nil)
	var ran runCount
	rs.deskOn(t, 0, "A", deskServer("A", &ran))
	rs.waitLinked(t, map[string]string{"A": "r1"})
	cs := agentAt(t, rs.gws[1].mcpURL(), nil, "2025-11-25")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"key": "k", "ms": 4000}})
		errc <- err
	}()
	waitRan(t, &ran, "k")
	rs.nodes[0].Kill() // r1's NATS is gone; its HTTP side and A's link stay
	err := <-errc
	if err == nil || !strings.Contains(err.Error(), `desktop "A"`) || !strings.Contains(err.Error(), "rpa://runs/gw-") {
		t.Fatalf("the call whose holder lost NATS: %v\nr2:\n%s", err, rs.gws[1].logs.String())
	}
}

// TestClusterRelinkSpreads: the desktops of a replica that dies spread over the replicas left
// (each picks another address at random), instead of all landing on the address after the dead
// one. 16 desktops: all on one replica by chance has odds 2 in 65,536.
func TestClusterRelinkSpreads(t *testing.T) {
	rs := startReplicas(t, 3, nil)
	where := map[string]string{}
	for i := range 16 {
		id := fmt.Sprintf("d%02d", i)
		rs.deskOn(t, 0, id, deskServer(id, nil))
		where[id] = "r1"
	}
	rs.waitLinked(t, where)
	rs.crash(0)
	for id := range where {
		where[id] = "!r1"
	}
	rs.waitLinked(t, where)
	per := map[string]int{}
	for _, d := range rs.gws[1].g.Devices() {
		per[d.Replica]++
	}
	if per["r2"] == 0 || per["r3"] == 0 {
		t.Errorf("the dead replica's desktops relinked as %v, want some on each of r2 and r3", per)
	}
	t.Logf("relinked: %v", per)
}
