package gateway

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats.go"
	"github.com/rpa-dev/rpa/internal/link/cluster"
	"github.com/rpa-dev/rpa/internal/link/connect"
)

// A gateway in a cluster (Options.Cluster) is one replica of several that share state and route
// calls through NATS (package cluster; docs/gateway.md, "Several gateways"):
//
//   - A desktop links to any replica. Its link claims the device id with an atomic create in the
//     presence bucket, so a second link for an id linked anywhere is refused (4009) as on one
//     gateway; a claim whose holder is gone (its replica died, or its link does not answer a
//     ping) is taken over by revision, never by a race.
//   - The holder subscribes to the desktop's subject; an agent's call on any replica is a NATS
//     request there. No responder means the desktop is linked nowhere: the agent is told at
//     once (-32004 naming it). The call's progress, the desktop's questions to the agent and
//     their answers, a cancel, and the final answer travel between the two replicas; payloads
//     over NATS's limit go through the object store.
//   - Each desktop's record (and its tool list, stored once per content) is watched by every
//     replica: tools/list is the union of every linked desktop's tools, and list_changed reaches
//     agents everywhere. Replicas beat every second; one whose beat stops for 5 s counts as gone
//     with its desktops (JetStream's expiry decides, not the replicas' clocks).
//   - An answer that reaches a replica other than the one its agent is on (the desktop moved
//     there with it) is handed over on "rpa.ans.EPOCH.ID"; nobody listening, it is kept as a
//     late answer in a bucket every replica reads.
//
// Subjects (Key encodes device ids; replica names and call ids are plain tokens):
//
//	rpa.dev.KEY          calls for a desktop (its holder subscribes)
//	rpa.in.REPLICA.ID    the origin's inbox of one call (accepted, progress, ask, result, gone, moved)
//	rpa.ctl.REPLICA      to a holder: cancel a call, answer its question
//	rpa.ans.EPOCH.ID     an answer for the gateway process EPOCH, from wherever it arrived
//	rpa.rep.REPLICA.probe  is this link of that device yours, and alive?
const (
	hdrOp      = "Rpa-Op"
	hdrCall    = "Rpa-Call"
	hdrAsk     = "Rpa-Ask"
	hdrReplica = "Rpa-Replica"
	hdrLink    = "Rpa-Link"
	hdrDevice  = "Rpa-Device" // on a result: the desktop that answered
)

// Timing of the relay between replicas.
var (
	// acceptTimeout bounds the wait for the holder to take a call (it answers at once).
	acceptTimeout = 5 * time.Second
	// relinkGrace is how long a call whose holder replica went away waits for its desktop to
	// link again somewhere (its answer comes back then) before the agent gets -32004.
	relinkGrace = 15 * time.Second
	// probeEvery is how often a call in flight on another replica asks that replica whether it
	// still holds the desktop's link.
	probeEvery = 3 * time.Second
)

func devSubject(id string) string            { return "rpa.dev." + cluster.Key(id) }
func inboxSubject(replica, id string) string { return "rpa.in." + replica + "." + id }
func ctlSubject(replica string) string       { return "rpa.ctl." + replica }
func ansSubject(epoch, id string) string     { return "rpa.ans." + epoch + "." + id }
func probeSubject(replica string) string     { return "rpa.rep." + replica + ".probe" }

// validToken accepts a peer-given string as one subject token (call ids: gw-EPOCH-N-MAC).
func validToken(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// remoteRequest is a call sent to the replica holding a desktop.
type remoteRequest struct {
	ID       string          `json:"id"`     // the origin's request id, used on the desktop's link too
	Method   string          `json:"method"` // tools/call, resources/read
	Params   json.RawMessage `json:"params"`
	Tool     string          `json:"tool,omitempty"`
	Progress bool            `json:"progress,omitempty"` // the agent gave a progress token
	Elicit   bool            `json:"elicitation,omitempty"`
	Sampling bool            `json:"sampling,omitempty"`
	Origin   string          `json:"origin"`
}

// errOffline is the error of a call for a desktop linked to no replica.
type errOffline struct{ id string }

func (e errOffline) Error() string {
	return fmt.Sprintf("desktop %q is not connected to any gateway replica", e.id)
}

// replica is a gateway's cluster side.
type replica struct {
	g       *Gateway
	n       *cluster.Node
	name    string
	log     *slog.Logger
	started time.Time
	now     func() time.Time // the clock heartbeats show (never compared across replicas)

	reg      atomic.Pointer[cluster.Registry]
	subs     []*nats.Subscription
	late     *lateShare
	sessions *sessionShare
	devices  *deviceShare
	owners   *ownerShare

	mu       sync.Mutex
	waiters  map[string]*waiter
	held     map[string]*heldCall
	toolsets map[string]map[string]deviceTool
	dirty    map[string]bool
	warned   bool

	left atomic.Bool // the heartbeat was deleted (draining): no more beats

	kick     chan struct{}
	taskKick chan struct{} // look for tasks of dead replicas to take over (replica_tasks.go)
	stop     chan struct{}
	wg       sync.WaitGroup

	// life bounds every cluster operation of the replica's own (its loops, its writes and
	// reads in the background): it ends with stop, so a replica going down retries nothing
	// and waits for no JetStream timeout (a cluster that lost its quorum answers none).
	life    context.Context
	endLife context.CancelFunc
}

// waiter is an agent's call made on this replica, waiting for its answer.
type waiter struct {
	id, device string
	ch         chan *nats.Msg         // from the holder: accepted, progress, ask, result, gone, moved
	ans        chan *jsonrpc.Response // the answer, arrived some other way (rpa.ans, a local link)
	check      chan struct{}          // the desktop's presence changed
	handedOff  atomic.Bool            // the agent is gone: keep the answer as a late one
	tool       string
}

// heldCall is another replica's call running on a desktop linked here.
type heldCall struct {
	cancel  context.CancelFunc
	mu      sync.Mutex
	asks    map[string]chan *nats.Msg
	nextAsk int
}

func newReplica(g *Gateway, n *cluster.Node) *replica {
	r := &replica{g: g, n: n, name: n.Name(), log: g.log.With("replica", n.Name()), started: time.Now(), now: time.Now,
		waiters: map[string]*waiter{}, held: map[string]*heldCall{}, toolsets: map[string]map[string]deviceTool{},
		dirty: map[string]bool{}, kick: make(chan struct{}, 1), taskKick: make(chan struct{}, 1), stop: make(chan struct{})}
	if g.opts.clock != nil {
		r.now = g.opts.clock
	}
	r.life, r.endLife = context.WithCancel(context.Background())
	r.late = &lateShare{r: r}
	r.devices = &deviceShare{r: r}
	r.owners = &ownerShare{r: r, ready: make(chan struct{})}
	r.sessions = &sessionShare{r: r, touched: map[string]time.Time{}}
	return r
}

// start subscribes to the replica's subjects and attaches to the cluster state in the
// background (JetStream may not be ready yet: the replica serves its own desktops meanwhile).
func (r *replica) start() error {
	nc := r.n.Conn()
	for subj, h := range map[string]nats.MsgHandler{
		"rpa.in." + r.name + ".*":     r.onInbox,
		ctlSubject(r.name):            r.onCtl,
		"rpa.ans." + r.g.epoch + ".*": r.onAnswer,
		probeSubject(r.name):          r.onProbe,
		answersSubject + "*":          r.sessions.onAnswers,
		taskSubject(r.name):           r.onTask,
		resumeSubject(r.name):         r.onResume,
	} {
		sub, err := nc.Subscribe(subj, h)
		if err != nil {
			return fmt.Errorf("cluster: subscribe %s: %w", subj, err)
		}
		_ = sub.SetPendingLimits(-1, 256<<20)
		r.subs = append(r.subs, sub)
	}
	if err := nc.Flush(); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	r.wg.Add(2)
	go r.attach()
	go r.syncLoop()
	return nil
}

// attach opens the registry (retrying while JetStream is not ready), then beats (beatLoop, on
// its own from the first heartbeat), reconciles this replica's records and shares late answers
// until stop.
func (r *replica) attach() {
	defer r.wg.Done()
	ctx := r.life
	var reg *cluster.Registry
	for {
		var err error
		reg, err = r.n.StartRegistry(ctx, r.changed)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return
		}
		r.log.Warn("cluster state not available yet; serving this replica's own desktops meanwhile", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Second):
		}
	}
	defer reg.Stop()
	_ = reg.Beat(ctx, r.record())
	r.reg.Store(reg)
	r.g.stateChanged()
	r.log.Info("cluster state attached", "replicas", len(reg.Replicas()), "desktops", len(reg.Present()))
	// The heartbeats go on from the first, whatever follows: opening the other buckets may
	// take longer than ReplicaTTL (a bucket's stream being created while JetStream settles
	// after a start: 5.4 s seen), and a heartbeat that expires meanwhile makes every other
	// replica count this one gone, drop its desktops and remove their records.
	r.wg.Add(1)
	go r.beatLoop(ctx, reg)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.shareCallKey(ctx) // callids.go
	}()
	r.late.start(ctx)
	r.devices.start(ctx)
	r.wg.Add(1)
	go func() { // its buckets need not hold up the rest
		defer r.wg.Done()
		r.owners.start(ctx)
	}()
	r.reconcile(ctx)
	r.changed(nil)
	r.wg.Add(1)
	go r.tasksLoop(ctx)
	rec := time.NewTicker(10 * time.Second)
	defer rec.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-rec.C:
			r.reconcile(ctx)
		}
	}
}

// beatLoop writes the replica's heartbeat every ReplicaBeat until ctx ends (none once it left).
func (r *replica) beatLoop(ctx context.Context, reg *cluster.Registry) {
	defer r.wg.Done()
	beat := time.NewTicker(cluster.ReplicaBeat)
	defer beat.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-beat.C:
		}
		if r.left.Load() {
			continue
		}
		// A slow write (a loaded machine, a leader election) may take longer than a beat: it
		// still counts while it lands before the heartbeat expires.
		bctx, bcancel := context.WithTimeout(ctx, cluster.ReplicaTTL/2)
		if err := reg.Beat(bctx, r.record()); err != nil && ctx.Err() == nil {
			r.log.Debug("heartbeat failed", "err", err)
		}
		bcancel()
	}
}

// record is this replica's heartbeat.
func (r *replica) record() cluster.ReplicaRecord {
	r.g.mu.Lock()
	n := len(r.g.devices)
	r.g.mu.Unlock()
	return cluster.ReplicaRecord{Name: r.name, Started: r.started, Beat: r.now().UTC(), Devices: n,
		InFlight: r.g.drain.inFlight(), Draining: r.g.drain.draining(), Version: Version, Epoch: r.g.epoch}
}

// leaveWait bounds leave's one write.
const leaveWait = 2 * time.Second

// leave deletes the heartbeat, once and without a retry (within ctx and leaveWait): the other
// replicas count this one gone at once (its desktops may take their ids elsewhere without a
// probe). With no other replica's heartbeat in sight, nobody is told: the write is skipped (the
// heartbeat expires; a cluster whose others are gone has no majority to take it). The
// subscriptions stay: answers for its agents still come.
func (r *replica) leave(ctx context.Context) {
	if r.left.Swap(true) {
		return
	}
	reg := r.reg.Load()
	if reg == nil || !r.othersPresent() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, leaveWait)
	defer cancel()
	if err := reg.Leave(ctx, r.name); err != nil {
		r.log.Debug("cannot delete the heartbeat; it expires", "err", err)
	}
}

// othersPresent reports whether another replica's heartbeat is in the registry (draining or not).
func (r *replica) othersPresent() bool {
	reg := r.reg.Load()
	if reg == nil {
		return false
	}
	for _, rec := range reg.Replicas() {
		if rec.Name != r.name {
			return true
		}
	}
	return false
}

// kill stops the replica's goroutines without a word to the cluster (its node was killed: tests
// of a crash).
func (r *replica) kill() {
	select {
	case <-r.stop:
		return
	default:
	}
	r.left.Store(true)
	close(r.stop)
	r.endLife()
	r.wg.Wait()
}

// close leaves the cluster (leave), ends every cluster operation of the replica (life: nothing
// is tried again from now on) and its subscriptions, and waits for its goroutines, all within
// ctx: past it, it returns (the process is going; the embedded server still shuts down after).
func (r *replica) close(ctx context.Context) {
	select {
	case <-r.stop:
		return
	default:
	}
	r.leave(ctx)
	close(r.stop)
	r.endLife()
	for _, s := range r.subs {
		_ = s.Unsubscribe()
	}
	done := make(chan struct{})
	go func() {
		r.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		r.log.Warn("the replica's background work did not stop in time; closing anyway")
	}
}

// changed is the registry's callback: desktops whose presence may have changed. Their calls in
// flight re-check their holder, and the tool list is rebuilt (coalesced by syncLoop).
func (r *replica) changed(ids []string) {
	r.mu.Lock()
	for _, id := range ids {
		r.dirty[id] = true
	}
	var ws []*waiter
	for _, w := range r.waiters {
		if len(ids) == 0 { // a replica came or went: every call looks again
			ws = append(ws, w)
			continue
		}
		for _, id := range ids {
			if w.device == id {
				ws = append(ws, w)
			}
		}
	}
	r.mu.Unlock()
	for _, w := range ws {
		select {
		case w.check <- struct{}{}:
		default:
		}
	}
	select {
	case r.kick <- struct{}{}:
	default:
	}
	select {
	case r.taskKick <- struct{}{}:
	default:
	}
	r.g.stateChanged()
}

// syncLoop rebuilds the agent-facing tool list after registry changes, at most every 20 ms (a
// replica dying moves hundreds of desktops at once).
func (r *replica) syncLoop() {
	defer r.wg.Done()
	for {
		select {
		case <-r.stop:
			return
		case <-r.kick:
		}
		select {
		case <-r.stop:
			return
		case <-time.After(20 * time.Millisecond):
		}
		r.mu.Lock()
		ids := make([]string, 0, len(r.dirty))
		for id := range r.dirty {
			ids = append(ids, id)
		}
		r.dirty = map[string]bool{}
		r.mu.Unlock()
		r.g.sync(ids...)
	}
}

// remoteOffers adds the tools of desktops linked to other replicas to byName (local: the ids
// linked here, which win).
func (r *replica) remoteOffers(local map[string]bool, byName map[string][]offer) {
	reg := r.reg.Load()
	if reg == nil {
		return
	}
	for _, p := range reg.Present() {
		if p.Replica == r.name || local[p.DeviceID] || p.ToolList == nil {
			continue
		}
		for name, dt := range r.decoded(p.Tools, p.ToolList) {
			byName[name] = append(byName[name], offer{id: p.DeviceID, dt: dt, replica: p.Replica})
		}
	}
}

// remoteDevices lists the desktops linked to other replicas (not in local).
func (r *replica) remoteDevices(local []DeviceInfo) []DeviceInfo {
	reg := r.reg.Load()
	if reg == nil {
		return nil
	}
	have := map[string]bool{}
	for _, d := range local {
		have[d.DeviceID] = true
	}
	var out []DeviceInfo
	for _, p := range reg.Present() {
		if have[p.DeviceID] || p.Replica == r.name {
			continue
		}
		var tools []string
		for n := range r.decoded(p.Tools, p.ToolList) {
			tools = append(tools, n)
		}
		sort.Strings(tools)
		out = append(out, DeviceInfo{DeviceID: p.DeviceID, Capabilities: append([]string{}, p.Caps...), Tools: tools,
			AvailableTools: append([]string{}, p.Available...), RemoteAddr: p.RemoteAddr, ConnectedAt: p.Since,
			LinkAgeSeconds: time.Since(p.Since).Seconds(), Replica: p.Replica})
	}
	return out
}

// decoded decodes a tool list once per content.
func (r *replica) decoded(hash string, list []json.RawMessage) map[string]deviceTool {
	r.mu.Lock()
	ts, ok := r.toolsets[hash]
	r.mu.Unlock()
	if ok {
		return ts
	}
	ts = map[string]deviceTool{}
	for _, raw := range list {
		t, hasDev, err := decodeTool(raw)
		if err != nil {
			continue
		}
		ts[t.Name] = deviceTool{tool: t, hasDeviceID: hasDev, raw: raw, task: taskSupport(raw)}
	}
	r.mu.Lock()
	r.toolsets[hash] = ts
	r.mu.Unlock()
	return ts
}

// --- links of this replica ---

// errInUse refuses a link whose id is linked and answering elsewhere.
var errInUse = errors.New("device id in use")

// claim records d's link in the presence bucket (before its initialization), taking over a
// record whose holder is gone, and subscribes to its subject. errInUse: another link holds the
// id and answers. Without cluster state yet, the link is admitted on this replica's own checks.
func (r *replica) claim(ctx context.Context, d *device) error {
	d.linkID = rand.Text()[:12]
	reg := r.reg.Load()
	if reg == nil {
		r.mu.Lock()
		warn := !r.warned
		r.warned = true
		r.mu.Unlock()
		if warn {
			r.log.Warn("cluster state not available: desktops are admitted on this replica's own checks until it is", "device", d.id)
		}
	} else {
		rev, err := r.claimRecord(ctx, reg, d, false)
		if err != nil {
			return err
		}
		d.mu.Lock()
		d.rev = rev
		d.mu.Unlock()
	}
	sub, err := r.n.Conn().Subscribe(devSubject(d.id), r.onDevice(d))
	if err != nil {
		return err
	}
	_ = sub.SetPendingLimits(-1, 256<<20)
	d.sub = sub
	return r.n.Conn().Flush()
}

// claimRecord creates d's record, or takes over one whose holder is gone or whose link does
// not answer a ping (the holder closes it).
func (r *replica) claimRecord(ctx context.Context, reg *cluster.Registry, d *device, ready bool) (uint64, error) {
	rec := r.deviceRecord(d, ready, "")
	for try := 0; try < 3; try++ {
		rev, err := reg.Claim(ctx, rec)
		if err == nil {
			return rev, nil
		}
		var ce *cluster.ClaimedError
		if !errors.As(err, &ce) {
			return 0, fmt.Errorf("claim in the cluster: %w", err)
		}
		cur := ce.Current
		if cur.Replica != r.name && reg.Alive(cur.Replica) && r.probe(ctx, cur) {
			return 0, errInUse
		}
		if cur.Replica == r.name && cur.Link != d.linkID {
			// A record of an earlier link of ours (the local claim already made sure no other
			// link of this id is live here).
			r.log.Debug("replacing this replica's stale record", "device", d.id)
		}
		rev, err = reg.Update(ctx, rec, ce.Rev)
		if err == nil {
			r.log.Info("took over the device id from a link that is gone", "device", d.id, "was_on", cur.Replica)
			return rev, nil
		}
		if !errors.Is(err, cluster.ErrClaimed) {
			return 0, fmt.Errorf("claim in the cluster: %w", err)
		}
	}
	return 0, errInUse
}

func (r *replica) deviceRecord(d *device, ready bool, tools string) cluster.DeviceRecord {
	d.mu.Lock()
	defer d.mu.Unlock()
	return cluster.DeviceRecord{DeviceID: d.id, Replica: r.name, Link: d.linkID, Ready: ready, Caps: d.caps,
		Available: d.names, Tools: tools, RemoteAddr: d.link.RemoteAddr(), Since: d.since.UTC()}
}

// probe asks the replica holding cur whether that link is live (it pings the desktop; one
// that does not answer is closed there). No responders: the replica is gone.
func (r *replica) probe(ctx context.Context, cur cluster.DeviceRecord) bool {
	body, _ := json.Marshal(map[string]string{"deviceId": cur.DeviceID, "link": cur.Link})
	pctx, cancel := context.WithTimeout(ctx, r.g.opts.ProbeTimeout+2*time.Second)
	defer cancel()
	m, err := r.n.Conn().RequestWithContext(pctx, probeSubject(cur.Replica), body)
	if err != nil {
		return false
	}
	var ans struct {
		Live bool `json:"live"`
	}
	_ = json.Unmarshal(m.Data, &ans)
	return ans.Live
}

// onProbe answers another replica's probe of a link held here.
func (r *replica) onProbe(m *nats.Msg) {
	var q struct {
		DeviceID string `json:"deviceId"`
		Link     string `json:"link"`
	}
	if json.Unmarshal(m.Data, &q) != nil {
		return
	}
	go func() {
		live := false
		r.g.mu.Lock()
		d := r.g.claims[q.DeviceID]
		r.g.mu.Unlock()
		if d != nil && (q.Link == "" || d.linkID == q.Link) {
			d.mu.Lock()
			ready, gone := d.ready, d.gone
			d.mu.Unlock()
			live = !gone && (!ready || d.alive(r.g.opts.ProbeTimeout))
			if !live && !gone {
				r.log.Info("a link elsewhere claims this device id and this one does not answer; closing it", "device", d.id)
				d.link.CloseWith(connect.CloseReplaced, "replaced: this link did not answer a ping")
				d.drop()
			}
		}
		b, _ := json.Marshal(map[string]bool{"live": live})
		_ = m.Respond(b)
	}()
}

// published records d as ready with its current tools (after initialize, and after each
// refresh of its tool list).
func (r *replica) published(d *device) {
	reg := r.reg.Load()
	if reg == nil {
		return
	}
	ctx, cancel := context.WithTimeout(r.life, 10*time.Second)
	defer cancel()
	d.mu.Lock()
	list := make([]json.RawMessage, 0, len(d.tools))
	for _, dt := range d.tools {
		list = append(list, dt.raw)
	}
	rev := d.rev
	d.mu.Unlock()
	hash, err := reg.PutTools(ctx, list)
	if err != nil {
		r.log.Warn("cannot share a desktop's tools with the cluster", "device", d.id, "err", err)
		return
	}
	rec := r.deviceRecord(d, true, hash)
	if rev == 0 {
		rev, err = r.claimRecord(ctx, reg, d, true)
		if errors.Is(err, errInUse) {
			r.log.Warn("another link in the cluster holds this device id and answers; closing this one", "device", d.id)
			d.link.CloseWith(connect.CloseIDInUse, "device id "+clip(d.id)+" is connected from another link; is another desktop using it?")
			return
		}
		if err == nil {
			rev, err = reg.Update(ctx, rec, rev)
		}
	} else {
		rev, err = reg.Update(ctx, rec, rev)
	}
	if err != nil {
		r.log.Warn("cannot record a desktop in the cluster", "device", d.id, "err", err)
		return
	}
	d.mu.Lock()
	d.rev = rev
	d.mu.Unlock()
}

// unlinked removes d's subscription and record.
func (r *replica) unlinked(d *device) {
	if d.sub != nil {
		_ = d.sub.Unsubscribe()
	}
	reg := r.reg.Load()
	d.mu.Lock()
	rev := d.rev
	d.mu.Unlock()
	if reg == nil || rev == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(r.life, 5*time.Second)
	defer cancel()
	if err := reg.Release(ctx, d.id, rev); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		r.log.Debug("cannot remove a desktop's record", "device", d.id, "err", err)
	}
}

// reconcile makes the presence bucket say what this replica holds: records of its links that
// are missing (made while the cluster state was away, or cleaned while this replica was cut
// off) are made again, and records naming it for links it does not hold are removed.
func (r *replica) reconcile(ctx context.Context) {
	reg := r.reg.Load()
	if reg == nil {
		return
	}
	mine := reg.Records(r.name)
	r.g.mu.Lock()
	local := make([]*device, 0, len(r.g.devices))
	for _, d := range r.g.devices {
		local = append(local, d)
	}
	r.g.mu.Unlock()
	for _, d := range local {
		rec, rev, ok := reg.Device(d.id)
		d.mu.Lock()
		myRev := d.rev
		d.mu.Unlock()
		delete(mine, d.id)
		if ok && rec.Replica == r.name && rec.Link == d.linkID && rev == myRev {
			continue
		}
		d.mu.Lock()
		d.rev = 0
		d.mu.Unlock()
		r.published(d)
	}
	for id, rev := range mine {
		r.g.mu.Lock()
		_, claimed := r.g.claims[id]
		r.g.mu.Unlock()
		if !claimed {
			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_ = reg.Release(rctx, id, rev)
			cancel()
		}
	}
}

// othersAlive reports whether another replica is alive (then this one's desktops can go there).
func (r *replica) othersAlive() bool {
	reg := r.reg.Load()
	if reg == nil {
		return false
	}
	for _, rec := range reg.Replicas() {
		if rec.Name != r.name && !rec.Draining {
			return true
		}
	}
	return false
}

// --- calls made here ---

func (r *replica) addWaiter(id, device, tool string) *waiter {
	w := &waiter{id: id, device: device, tool: tool, ch: make(chan *nats.Msg, 64), ans: make(chan *jsonrpc.Response, 1), check: make(chan struct{}, 1)}
	r.mu.Lock()
	r.waiters[id] = w
	r.mu.Unlock()
	return w
}

func (r *replica) dropWaiter(w *waiter) {
	r.mu.Lock()
	if r.waiters[w.id] == w {
		delete(r.waiters, w.id)
	}
	r.mu.Unlock()
}

// call runs an agent's call (tools/call) on the desktop of o: through its link here, or as a
// NATS request to the replica holding it.
func (r *replica) call(ctx context.Context, o offer, params map[string]any, c *call) (*jsonrpc.Response, error) {
	if c.id == "" {
		c.id, _ = r.g.nextID().Raw().(string)
	}
	w := r.addWaiter(c.id, o.id, c.tool)
	defer func() {
		if !w.handedOff.Load() {
			r.dropWaiter(w)
		}
	}()
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	req := remoteRequest{ID: c.id, Method: "tools/call", Params: raw, Tool: c.tool, Progress: c.token != nil, Origin: r.name}
	if c.agent != nil || c.ask != nil {
		req.Elicit, req.Sampling = r.agentCaps(c)
	}
	if o.d != nil {
		resp, err := o.d.request(ctx, "tools/call", params, c)
		var gone errGone
		if errors.As(err, &gone) && r.g.drain.draining() && r.othersAlive() {
			// This replica drains: the desktop links to another one with the call still
			// running, and its answer comes back here (rpa.ans, or asked for again).
			return r.await(ctx, c, w, req, r.name, true)
		}
		if err != nil && ctx.Err() != nil && c.agent != nil && sessionLost(ctx) {
			w.handedOff.Store(true) // device.request keeps the answer (awaitLate)
		}
		return resp, err
	}
	if err := r.send(ctx, o.id, req); err != nil {
		return nil, err
	}
	return r.await(ctx, c, w, req, o.replica, false)
}

// agentCaps says whether the agent of c can be asked (elicitation, sampling).
func (r *replica) agentCaps(c *call) (elicit, sampling bool) {
	if c.ask != nil {
		return true, true // multi-round-trip: mrtr carries both
	}
	ip := c.agent.InitializeParams()
	if ip == nil || ip.Capabilities == nil {
		return false, false
	}
	//lint:ignore SA1019 sampling is forwarded deliberately (device.go)
	return ip.Capabilities.Elicitation != nil, ip.Capabilities.Sampling != nil
}

// send publishes a call to the desktop's subject, its answers to come to this replica's inbox.
func (r *replica) send(ctx context.Context, device string, req remoteRequest) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	m, err := r.n.Msg(ctx, devSubject(device), nats.Header{hdrOp: {"call"}}, body)
	if err != nil {
		return err
	}
	m.Reply = inboxSubject(r.name, req.ID)
	if err := r.n.Conn().PublishMsg(m); err != nil {
		return &jsonrpc.Error{Code: CodeUnreachable, Message: "the cluster cannot be reached: " + err.Error()}
	}
	return nil
}

// await waits for the answer of a call sent to holder (or, moved, of a call whose desktop
// left this replica during its drain): messages from the holder, an answer through rpa.ans, a
// change of the desktop's presence, or the agent going away.
//
// When the desktop links again elsewhere (its holder died, drained, or lost NATS), the call is
// sent again, with its id, to the new holder: the desktop runs an id at most once, answers one
// it already answered with the kept answer (which may have gone down the dead link) and one
// still running when it ends. So the answer is never lost with a replica.
func (r *replica) await(ctx context.Context, c *call, w *waiter, req remoteRequest, holder string, moved bool) (*jsonrpc.Response, error) {
	accepted := moved
	acceptT := time.NewTimer(acceptTimeout)
	defer acceptT.Stop()
	var grace <-chan time.Time
	var graceT *time.Timer
	defer func() {
		if graceT != nil {
			graceT.Stop()
		}
	}()
	// Besides the registry's news, the holder is asked every few seconds whether it still has
	// the desktop's link: a replica cut off from NATS is found even while the registry (which
	// learns it from JetStream) is slow to say so.
	probeT := time.NewTicker(probeEvery)
	defer probeT.Stop()
	probed := make(chan bool, 1)
	probing := false
	link := ""
	if reg := r.reg.Load(); reg != nil && holder != "" {
		if p, ok := reg.Lookup(w.device); ok {
			link = p.Link
		}
	}
	for {
		var acceptC <-chan time.Time
		if !accepted {
			acceptC = acceptT.C
		}
		select {
		case m := <-w.ch:
			if m.Header.Get("Status") == "503" {
				return nil, errOffline{w.device}
			}
			switch m.Header.Get(hdrOp) {
			case "accepted":
				accepted = true
				holder, link = m.Header.Get(hdrReplica), m.Header.Get(hdrLink)
			case "progress":
				var p progressParams
				if json.Unmarshal(m.Data, &p) == nil && c.agent != nil && c.token != nil {
					pctx := c.pctx
					if pctx == nil {
						pctx = c.ctx
					}
					_ = c.agent.NotifyProgress(pctx, &mcp.ProgressNotificationParams{ProgressToken: c.token, Progress: p.Progress, Total: p.Total, Message: p.Message})
				}
			case "ask":
				go r.answerAsk(ctx, c, holder, m)
			case "result":
				data, err := r.n.Data(ctx, m)
				_ = m.Respond(nil)
				if err != nil {
					return nil, &jsonrpc.Error{Code: CodeUnreachable, Message: "the desktop's answer could not be read from the cluster: " + err.Error()}
				}
				r.g.answered.first(w.id) // (answered.go)
				return decodeResponse(data)
			case "gone":
				return nil, errGone{id: w.device}
			case "moved":
				moved = true
			}
		case resp := <-w.ans:
			r.g.answered.first(w.id) // (answered.go)
			return resp, nil
		case <-acceptC:
			return nil, &jsonrpc.Error{Code: CodeUnreachable, Message: fmt.Sprintf("desktop %q did not take the call: the replica holding it does not answer", w.device)}
		case <-w.check:
			reg := r.reg.Load()
			if reg == nil {
				continue
			}
			p, present := reg.Lookup(w.device)
			switch {
			case present && (holder == "" || p.Replica != holder || p.Link != link):
				// Linked again (elsewhere): ask the new holder for the call again.
				if graceT != nil {
					graceT.Stop()
					graceT, grace = nil, nil
				}
				r.log.Info("the desktop of a call in flight linked again; asking its new replica for the answer", "device", w.device, "id", w.id, "replica", p.Replica)
				holder, link, moved, accepted = p.Replica, p.Link, false, false
				acceptT.Reset(acceptTimeout)
				if err := r.send(ctx, w.device, req); err != nil {
					return nil, err
				}
			case !present:
				// Its link is gone (the record went, or its replica): the desktop keeps the
				// call running and delivers the answer where it links again.
				if graceT == nil {
					graceT = time.NewTimer(relinkGrace)
					grace = graceT.C
				}
			}
		case <-probeT.C:
			if probing || moved || holder == "" || graceT != nil {
				continue
			}
			probing = true
			rec := cluster.DeviceRecord{DeviceID: w.device, Replica: holder, Link: link}
			go func() { probed <- r.probe(ctx, rec) }()
		case live := <-probed:
			probing = false
			if !live && !moved && graceT == nil {
				graceT = time.NewTimer(relinkGrace)
				grace = graceT.C
			}
		case <-grace:
			return nil, &jsonrpc.Error{Code: CodeUnreachable, Message: fmt.Sprintf("the gateway replica holding desktop %q went away and the desktop has not linked again; the call keeps running on it and its answer will be kept as resource %s", w.device, RunURI(w.id))}
		case <-ctx.Done():
			if c.agent != nil && sessionLost(ctx) || r.g.closing.Load() {
				// The agent's session ended, or this replica is going down (its HTTP server
				// closing ends the agents' requests): not a cancel; the answer is kept.
				w.handedOff.Store(true)
				r.log.Info("the agent's session ended during a call; its answer will be kept", "device", w.device, "id", w.id)
				return nil, ctx.Err()
			}
			r.g.cancelled.add(w.id)
			if holder != "" {
				m := nats.NewMsg(ctlSubject(holder))
				m.Header.Set(hdrOp, "cancel")
				m.Header.Set(hdrCall, w.id)
				_ = r.n.Conn().PublishMsg(m)
			}
			return nil, ctx.Err()
		}
	}
}

func decodeResponse(data []byte) (*jsonrpc.Response, error) {
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "bad answer from the cluster: " + err.Error()}
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "bad answer from the cluster: not a response"}
	}
	return resp, nil
}

// answerAsk relays a desktop's question (elicitation, sampling), sent by the holder, to the
// agent and sends the answer back.
func (r *replica) answerAsk(ctx context.Context, c *call, holder string, m *nats.Msg) {
	var q struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	var result any
	var err error
	if jerr := json.Unmarshal(m.Data, &q); jerr != nil {
		err = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: jerr.Error()}
	} else {
		result, err = r.g.askAgent(c, q.Method, q.Params)
	}
	askID, _ := jsonrpc.MakeID("ask-" + m.Header.Get(hdrAsk))
	resp := &jsonrpc.Response{ID: askID}
	if err != nil {
		var we *jsonrpc.Error
		if !errors.As(err, &we) {
			we = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		resp.Error = we
	} else if raw, merr := json.Marshal(result); merr != nil {
		resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: merr.Error()}
	} else {
		resp.Result = raw
	}
	b, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return
	}
	out, err := r.n.Msg(ctx, ctlSubject(holder), nats.Header{hdrOp: {"answer"}, hdrCall: {c.id}, hdrAsk: {m.Header.Get(hdrAsk)}}, b)
	if err == nil {
		_ = r.n.Conn().PublishMsg(out)
	}
}

// onInbox dispatches a holder's message to the call waiting for it.
func (r *replica) onInbox(m *nats.Msg) {
	id := m.Subject[strings.LastIndexByte(m.Subject, '.')+1:]
	r.mu.Lock()
	w := r.waiters[id]
	r.mu.Unlock()
	if w == nil || w.handedOff.Load() {
		if m.Header.Get(hdrOp) == "result" {
			// The agent is gone (or the call ended): keep the answer.
			go r.keepFromMsg(id, m)
		}
		return
	}
	select {
	case w.ch <- m:
	default:
		if m.Header.Get(hdrOp) != "progress" {
			go func() { w.ch <- m }()
		}
	}
}

// keepFromMsg keeps a result that came for a call nobody waits for any more.
func (r *replica) keepFromMsg(id string, m *nats.Msg) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	data, err := r.n.Data(ctx, m)
	_ = m.Respond(nil)
	if err != nil {
		return
	}
	if resp, err := decodeResponse(data); err == nil && !r.g.cancelled.has(id) {
		r.g.keepLate(m.Header.Get(hdrDevice), "", id, resp)
	}
}

// onAnswer takes an answer for a call of this gateway process that reached another replica.
func (r *replica) onAnswer(m *nats.Msg) {
	go func() {
		id := m.Subject[strings.LastIndexByte(m.Subject, '.')+1:]
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		data, err := r.n.Data(ctx, m)
		if err != nil {
			return
		}
		resp, err := decodeResponse(data)
		if err != nil {
			return
		}
		_ = m.Respond(nil)
		r.deliver(m.Header.Get(hdrReplica), id, resp)
	}()
}

// deliver hands an answer to the call of this replica waiting for it, else keeps it.
func (r *replica) deliver(device, id string, resp *jsonrpc.Response) {
	r.mu.Lock()
	w := r.waiters[id]
	r.mu.Unlock()
	if w != nil && !w.handedOff.Load() {
		select {
		case w.ans <- resp:
		default:
		}
		return
	}
	if r.g.cancelled.has(id) {
		return
	}
	tool := ""
	if w != nil {
		tool, device = w.tool, w.device
		r.dropWaiter(w)
	}
	r.g.keepLate(device, tool, id, resp)
}

// answerArrived takes an answer a desktop linked here sent for an id no link here waits for:
// a call made on another replica (or an earlier gateway process) before the desktop moved here.
// It goes to the replica of the gateway process that made it; with nobody listening there, it is
// kept as a late answer for any replica to serve.
func (r *replica) answerArrived(device, id string, resp *jsonrpc.Response) {
	epoch := ""
	if rest, ok := strings.CutPrefix(id, "gw-"); ok {
		epoch, _, _ = strings.Cut(rest, "-")
	}
	if epoch == r.g.epoch {
		r.deliver(device, id, resp)
		return
	}
	b, err := jsonrpc.EncodeMessage(resp)
	if err != nil || !validToken(epoch) || !validToken(id) {
		r.g.keepLate(device, "", id, resp)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m, err := r.n.Msg(ctx, ansSubject(epoch, id), nats.Header{hdrReplica: {device}}, b)
	if err == nil {
		_, err = r.n.Conn().RequestMsgWithContext(ctx, m)
	}
	if err != nil {
		// The gateway process that made the call is gone: keep the answer cluster-wide.
		r.g.keepLate(device, "", id, resp)
		return
	}
	r.log.Info("handed an answer to the replica whose agent made the call", "device", device, "id", id)
}

// --- calls held here for other replicas ---

// onDevice serves the subject of a desktop linked here: calls from other replicas.
func (r *replica) onDevice(d *device) nats.MsgHandler {
	return func(m *nats.Msg) {
		if m.Header.Get(hdrOp) == "call" && m.Reply != "" {
			go r.hold(d, m)
		}
	}
}

// hold runs another replica's call on d and sends back its progress, questions and answer.
func (r *replica) hold(d *device, m *nats.Msg) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inbox := m.Reply
	reply := func(op string, hdr nats.Header, data []byte) error {
		out, err := r.n.Msg(ctx, inbox, hdr, data)
		if err != nil {
			return err
		}
		out.Header.Set(hdrOp, op)
		return r.n.Conn().PublishMsg(out)
	}
	data, err := r.n.Data(ctx, m)
	var req remoteRequest
	if err == nil {
		err = json.Unmarshal(data, &req)
	}
	if err != nil || !validToken(req.ID) {
		_ = reply("gone", nil, []byte("bad call"))
		return
	}
	d.mu.Lock()
	ok := d.ready && !d.gone
	d.mu.Unlock()
	if !ok || r.g.drain.draining() {
		_ = reply("gone", nil, nil)
		return
	}
	hc := &heldCall{cancel: cancel, asks: map[string]chan *nats.Msg{}}
	r.mu.Lock()
	r.held[req.ID] = hc
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.held, req.ID)
		r.mu.Unlock()
	}()
	_ = reply("accepted", nats.Header{hdrReplica: {r.name}, hdrLink: {d.linkID}}, nil)
	c := &call{ctx: ctx, tool: req.Tool, id: req.ID}
	if req.Progress {
		c.token = req.ID
		c.onProgress = func(p progressParams) {
			b, _ := json.Marshal(p)
			_ = reply("progress", nil, b)
		}
	}
	c.onAsk = func(actx context.Context, method string, params json.RawMessage) (any, error) {
		if method == "elicitation/create" && !req.Elicit || method == "sampling/createMessage" && !req.Sampling {
			return nil, notAvailable("the calling agent does not support " + strings.Split(method, "/")[0])
		}
		hc.mu.Lock()
		hc.nextAsk++
		n := strconv.Itoa(hc.nextAsk)
		ch := make(chan *nats.Msg, 1)
		hc.asks[n] = ch
		hc.mu.Unlock()
		b, _ := json.Marshal(map[string]any{"method": method, "params": params})
		if err := reply("ask", nats.Header{hdrAsk: {n}}, b); err != nil {
			return nil, notAvailable("the agent's replica cannot be reached")
		}
		select {
		case a := <-ch:
			ad, err := r.n.Data(actx, a)
			if err != nil {
				return nil, err
			}
			resp, err := decodeResponse(ad)
			if err != nil {
				return nil, err
			}
			if resp.Error != nil {
				return nil, resp.Error
			}
			return resp.Result, nil
		case <-actx.Done():
			return nil, actx.Err()
		}
	}
	var params map[string]any
	if err := json.Unmarshal(req.Params, &params); err != nil {
		_ = reply("gone", nil, nil)
		return
	}
	resp, err := d.request(ctx, req.Method, params, c)
	if err == nil && !r.g.answered.own(req.ID) {
		// Its first answer came here: a second one the desktop sends here is dropped (the
		// agent's replica marks its own calls when it gets the answer; answered.go).
		r.g.answered.first(req.ID)
	}
	if err != nil {
		var gone errGone
		switch {
		case errors.As(err, &gone) && r.g.drain.draining():
			_ = reply("moved", nil, nil) // the desktop relinks elsewhere; its answer follows it
		case errors.As(err, &gone):
			_ = reply("gone", nil, nil)
		}
		return // cancelled by the origin: no answer (MCP)
	}
	b, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return
	}
	out, err := r.n.Msg(ctx, inbox, nats.Header{hdrOp: {"result"}, hdrDevice: {d.id}}, b)
	if err == nil {
		actx, acancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err = r.n.Conn().RequestMsgWithContext(actx, out)
		acancel()
	}
	if err != nil {
		// The agent's replica is gone: keep the answer for any replica to serve.
		r.g.keepAnswer(d.id, req.Tool, req.ID, resp)
	}
}

// onCtl takes an origin's cancel of, or answer to a question of, a call held here.
func (r *replica) onCtl(m *nats.Msg) {
	id := m.Header.Get(hdrCall)
	r.mu.Lock()
	hc := r.held[id]
	r.mu.Unlock()
	if hc == nil {
		return
	}
	switch m.Header.Get(hdrOp) {
	case "cancel":
		hc.cancel()
	case "answer":
		hc.mu.Lock()
		ch := hc.asks[m.Header.Get(hdrAsk)]
		delete(hc.asks, m.Header.Get(hdrAsk))
		hc.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}
