package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The gateway's buckets (docs/gateway.md, "What each replica stores").
const (
	// PresenceBucket: one key per linked desktop (Key(device id)) → DeviceRecord. A key is
	// created atomically when a link claims its id, so two links of one id cannot both win.
	PresenceBucket = "rpa_presence"
	// ToolsBucket: tool lists by content (the hex SHA-256 of the list), shared by desktops
	// serving the same flows.
	ToolsBucket = "rpa_tools"
	// ReplicasBucket: one key per replica → ReplicaRecord, written every ReplicaBeat; a key not
	// written for ReplicaTTL expires, and the replica counts as gone.
	ReplicasBucket = "rpa_replicas"
)

// Heartbeats of replicas. Liveness is judged by JetStream's own expiry of the key, never by
// comparing a replica's clock with another's.
const (
	ReplicaBeat = time.Second
	ReplicaTTL  = 5 * time.Second
)

// DeviceRecord is a desktop linked to a replica, as every replica sees it.
type DeviceRecord struct {
	DeviceID   string    `json:"deviceId"`
	Replica    string    `json:"replica"`                   // the replica holding its link
	Link       string    `json:"link"`                      // random id of the link (one id, one link)
	Ready      bool      `json:"ready"`                     // initialized and listed; false while claimed and initializing
	Caps       []string  `json:"capabilities,omitempty"`    // from its register
	Available  []string  `json:"available_tools,omitempty"` // from its register
	Tools      string    `json:"tools,omitempty"`           // ToolsBucket key of its tools/list
	RemoteAddr string    `json:"remoteAddr,omitempty"`      // the desktop's address as the replica saw it
	Since      time.Time `json:"since"`                     // link start, the holder's clock (shown, never compared)
}

// ReplicaRecord is one replica's heartbeat.
type ReplicaRecord struct {
	Name     string    `json:"name"`
	Started  time.Time `json:"started"`            // the replica's clock (shown, never compared)
	Beat     time.Time `json:"beat"`               // the replica's clock at this beat (shown only)
	Devices  int       `json:"devices"`            // desktops linked to it
	InFlight int       `json:"inFlight"`           // agent calls it is serving
	Draining bool      `json:"draining,omitempty"` // shutting down: takes no new desktops or calls
	Version  string    `json:"version,omitempty"`
	Epoch    string    `json:"epoch,omitempty"` // the replica's process (a restart makes a new one)
}

// ErrClaimed is returned (in a *ClaimedError) by Registry.Claim when the device id is claimed.
var ErrClaimed = errors.New("the device id is claimed by another link")

// ClaimedError carries the record that holds a device id.
type ClaimedError struct {
	Current DeviceRecord
	Rev     uint64
}

// Error names the holder.
func (e *ClaimedError) Error() string {
	return fmt.Sprintf("device %q is linked to replica %s", e.Current.DeviceID, e.Current.Replica)
}

// Is matches ErrClaimed.
func (e *ClaimedError) Is(target error) bool { return target == ErrClaimed }

// Registry is a replica's view of the cluster: every replica alive and every desktop linked
// anywhere, kept current by watching the buckets. A desktop counts as present while its record
// says Ready and its replica is alive (a replica that died takes its desktops with it at once,
// before anyone cleans its records up).
type Registry struct {
	n                         *Node
	presence, tools, replicas jetstream.KeyValue
	onChange                  func(deviceIDs []string)

	mu       sync.Mutex
	devs     map[string]devEntry
	reps     map[string]ReplicaRecord
	beats    map[string]time.Time // when this process last applied each replica's heartbeat
	toolsets map[string][]json.RawMessage
	put      map[string]bool // tool lists this replica stored
	ready    chan struct{}   // closed once both watchers delivered their initial values
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

type devEntry struct {
	rec DeviceRecord
	rev uint64
}

// StartRegistry opens (creating when missing) the gateway's buckets, watches them and returns
// once the current state is loaded. onChange is called, from the watchers' goroutine, with the
// ids of desktops whose presence or tools may have changed (keep it short: hand the work on).
// JetStream not ready: retried until ctx ends. Stop ends the watchers.
func (n *Node) StartRegistry(ctx context.Context, onChange func(deviceIDs []string)) (*Registry, error) {
	r := &Registry{n: n, onChange: onChange, devs: map[string]devEntry{}, reps: map[string]ReplicaRecord{}, beats: map[string]time.Time{},
		toolsets: map[string][]json.RawMessage{}, put: map[string]bool{}, ready: make(chan struct{})}
	var err error
	if r.presence, err = n.Bucket(ctx, PresenceBucket, BucketOptions{Description: "rpa gateway: linked desktops"}); err != nil {
		return nil, err
	}
	if r.tools, err = n.Bucket(ctx, ToolsBucket, BucketOptions{TTL: 7 * 24 * time.Hour, Description: "rpa gateway: tool lists by content"}); err != nil {
		return nil, err
	}
	if r.replicas, err = n.Bucket(ctx, ReplicasBucket, BucketOptions{TTL: ReplicaTTL, Memory: true, Description: "rpa gateway: replica heartbeats"}); err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	repReady, devReady := make(chan struct{}), make(chan struct{})
	r.wg.Add(2)
	go r.watch(wctx, r.replicas, repReady, r.applyReplica, r.resyncReplicas)
	go r.watch(wctx, r.presence, devReady, r.applyDevice, r.resyncDevices)
	for _, ch := range []chan struct{}{repReady, devReady} {
		select {
		case <-ch:
		case <-ctx.Done():
			r.Stop()
			return nil, ctx.Err()
		}
	}
	close(r.ready)
	r.wg.Add(1)
	go r.sweep(wctx)
	return r, nil
}

// sweep counts a replica gone whose heartbeat this process has not seen for ReplicaTTL and
// that the bucket no longer holds. JetStream's removal of an expired heartbeat normally reaches
// the watcher as a marker, but a marker can be lost: the server places none for a key that
// expires while its stream has no leader, which is exactly when a replica dies holding the
// leadership (nats-server#6741). The trigger is this process's own clock, never a comparison
// with another replica's.
func (r *Registry) sweep(ctx context.Context) {
	defer r.wg.Done()
	t := time.NewTicker(ReplicaBeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		r.mu.Lock()
		var quiet []string
		for name, at := range r.beats {
			if time.Since(at) > ReplicaTTL {
				quiet = append(quiet, name)
			}
		}
		r.mu.Unlock()
		for _, name := range quiet {
			gctx, cancel := context.WithTimeout(ctx, ReplicaBeat)
			_, err := r.replicas.Get(gctx, name)
			cancel()
			if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
				r.n.log.Debug("a replica's heartbeat expired without a marker", "replica", name)
				r.setReplica(name, nil, false)
			}
		}
	}
}

// Stop ends the watchers.
func (r *Registry) Stop() {
	r.cancel()
	r.wg.Wait()
}

// watch follows a bucket until ctx ends: apply for each change, resync after each full replay
// (the first, and after the watcher had to start again: NATS ends a watcher whose consumer it
// cannot recreate, as while a cluster elects a leader) with the keys the replay held.
func (r *Registry) watch(ctx context.Context, kv jetstream.KeyValue, ready chan struct{},
	apply func(ctx context.Context, e jetstream.KeyValueEntry, initial bool),
	resync func(seen map[string]bool, first bool)) {
	defer r.wg.Done()
	first := true
	for ctx.Err() == nil {
		// The watcher lives as long as ctx (not bounded like retry's tries).
		w, err := kv.WatchAll(ctx)
		if err != nil {
			if ctx.Err() == nil {
				r.n.log.Warn("cannot watch a bucket; trying again", "bucket", kv.Bucket(), "err", err)
				sleepCtx(ctx, time.Second)
			}
			continue
		}
		seen := map[string]bool{}
		initial := true
		var prog watchProgress
		cctx, stopCheck := context.WithCancel(ctx)
		go r.stallCheck(cctx, kv, w, &prog)
		for e := range w.Updates() {
			if e != nil {
				prog.rev.Store(e.Revision())
			}
			prog.busy.Store(true)
			if e == nil {
				if initial {
					initial = false
					resync(seen, first)
					if first {
						first = false
						close(ready)
					}
				}
				prog.busy.Store(false)
				continue
			}
			if initial && e.Operation() == jetstream.KeyValuePut {
				seen[e.Key()] = true
			}
			apply(ctx, e, initial)
			prog.busy.Store(false)
		}
		stopCheck()
		_ = w.Stop()
		if ctx.Err() == nil {
			r.n.log.Debug("a bucket watcher ended; starting it again", "bucket", kv.Bucket())
			sleepCtx(ctx, 100*time.Millisecond)
		}
	}
}

// watchCheck is how often a watcher's progress is compared with its bucket's stream.
const watchCheck = time.Second

// watchProgress is what a watcher delivered: the newest revision, and whether an entry is
// being applied now (a slow apply is not a stalled watcher).
type watchProgress struct {
	rev  atomic.Uint64
	busy atomic.Bool
}

// stallCheck stops w when it falls behind its bucket's stream and stays there: NATS keeps a
// watcher's consumer on one server, and when that server dies (a replica crashed) the watcher
// hears nothing until its heartbeat check gives up, 10 s later (nats.go's ordered consumer),
// while the desktops of the dead replica link elsewhere. Stopped, the watcher is started
// again at once (watch) and replays the bucket. A stream that cannot answer (electing its
// leader) is asked again at the next check.
func (r *Registry) stallCheck(ctx context.Context, kv jetstream.KeyValue, w jetstream.KeyWatcher, prog *watchProgress) {
	t := time.NewTicker(watchCheck)
	defer t.Stop()
	var behind, seen uint64 // the stream's last sequence the watcher lacked at the last check; its revision then
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		sctx, cancel := context.WithTimeout(ctx, watchCheck)
		st, err := kv.Status(sctx)
		cancel()
		bs, ok := st.(*jetstream.KeyValueBucketStatus)
		if err != nil || !ok || bs.StreamInfo() == nil {
			continue
		}
		last, got := bs.StreamInfo().State.LastSeq, prog.rev.Load()
		if behind != 0 && got < behind && got == seen && !prog.busy.Load() {
			r.n.log.Info("a bucket watcher stalled (its server may be gone); starting it again", "bucket", kv.Bucket(), "has", got, "stream", last)
			_ = w.Stop()
			return
		}
		behind, seen = 0, got
		if got < last {
			behind = last
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func (r *Registry) applyReplica(_ context.Context, e jetstream.KeyValueEntry, initial bool) {
	var rec *ReplicaRecord
	if e.Operation() == jetstream.KeyValuePut {
		rec = new(ReplicaRecord)
		if json.Unmarshal(e.Value(), rec) != nil {
			return // (not a heartbeat of ours: what was known stays)
		}
	}
	r.setReplica(e.Key(), rec, initial)
}

// setReplica records replica name's heartbeat rec, or (nil) that it is gone.
func (r *Registry) setReplica(name string, rec *ReplicaRecord, initial bool) {
	var changed []string
	r.mu.Lock()
	_, had := r.reps[name]
	if rec != nil {
		r.reps[name], r.beats[name] = *rec, time.Now()
	} else {
		delete(r.reps, name)
		delete(r.beats, name)
	}
	_, has := r.reps[name]
	var stale []devEntry
	if had != has {
		for id, d := range r.devs {
			if d.rec.Replica == name {
				changed = append(changed, id)
				if !has {
					stale = append(stale, d)
				}
			}
		}
	}
	r.mu.Unlock()
	if len(stale) > 0 && !initial {
		go r.clean(name, stale)
	}
	if !initial && had != has && r.onChange != nil {
		r.onChange(changed)
	}
}

// resyncReplicas drops replicas a fresh replay no longer holds.
func (r *Registry) resyncReplicas(seen map[string]bool, first bool) {
	r.mu.Lock()
	var changed []string
	for name := range r.reps {
		if !seen[name] {
			delete(r.reps, name)
			delete(r.beats, name)
			for id, d := range r.devs {
				if d.rec.Replica == name {
					changed = append(changed, id)
				}
			}
		}
	}
	r.mu.Unlock()
	if !first && r.onChange != nil {
		r.onChange(changed)
	}
}

// clean removes the records of a replica that is gone (every survivor tries; the revision
// check makes one of them win and leaves a record that changed since alone).
func (r *Registry) clean(replica string, stale []devEntry) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, d := range stale {
		err := r.presence.Delete(ctx, Key(d.rec.DeviceID), jetstream.LastRevision(d.rev))
		if err == nil {
			r.n.log.Info("removed a desktop of a replica that is gone", "device", d.rec.DeviceID, "gone", replica)
		}
	}
}

func (r *Registry) applyDevice(ctx context.Context, e jetstream.KeyValueEntry, initial bool) {
	id, err := Unkey(e.Key())
	if err != nil {
		return
	}
	var rec DeviceRecord
	put := e.Operation() == jetstream.KeyValuePut && json.Unmarshal(e.Value(), &rec) == nil
	if put && rec.Tools != "" {
		r.loadTools(ctx, rec.Tools)
	}
	r.mu.Lock()
	if put {
		r.devs[id] = devEntry{rec: rec, rev: e.Revision()}
	} else {
		delete(r.devs, id)
	}
	r.mu.Unlock()
	if !initial && r.onChange != nil {
		r.onChange([]string{id})
	}
}

// resyncDevices drops records a fresh replay no longer holds, and reports every desktop as
// changed (a replay after a restart may have brought anything).
func (r *Registry) resyncDevices(seen map[string]bool, first bool) {
	r.mu.Lock()
	var changed []string
	for id := range r.devs {
		if !seen[Key(id)] {
			delete(r.devs, id)
		}
		changed = append(changed, id)
	}
	r.mu.Unlock()
	if !first && r.onChange != nil {
		r.onChange(changed)
	}
}

// toolsLag bounds how long loadTools looks again for a tool list a record names but a copy of
// the tools bucket does not have yet.
const toolsLag = 10 * time.Second

// loadTools caches the tool list hash (a Get from the tools bucket, once per list).
func (r *Registry) loadTools(ctx context.Context, hash string) {
	r.mu.Lock()
	_, have := r.toolsets[hash]
	r.mu.Unlock()
	if have {
		return
	}
	var e jetstream.KeyValueEntry
	lctx, cancel := context.WithTimeout(ctx, toolsLag)
	defer cancel()
	err := retry(lctx, func(ctx context.Context) error {
		var err error
		e, err = r.tools.Get(ctx, hash)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			// A desktop's record names its list only after the list was stored: a copy of the
			// bucket that answers a read may lag behind (JetStream's direct get), so look again.
			return notYet{err}
		}
		return err
	})
	if err != nil {
		r.n.log.Warn("cannot read a desktop's tool list", "tools", hash, "err", err)
		return
	}
	var list []json.RawMessage
	if err := json.Unmarshal(e.Value(), &list); err != nil {
		r.n.log.Warn("bad tool list in the bucket", "tools", hash, "err", err)
		return
	}
	r.mu.Lock()
	r.toolsets[hash] = list
	r.mu.Unlock()
}

// PutTools stores a tool list (each tool as the desktop listed it) and returns its key. Lists
// are stored once per content; a replica rewrites its own lists once a day to keep them from
// expiring (the bucket drops lists unwritten for a week).
func (r *Registry) PutTools(ctx context.Context, tools []json.RawMessage) (string, error) {
	sort.Slice(tools, func(i, j int) bool { return string(tools[i]) < string(tools[j]) })
	raw, err := json.Marshal(tools)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(raw)
	hash := hex.EncodeToString(sum[:])
	r.mu.Lock()
	done := r.put[hash]
	r.mu.Unlock()
	if done {
		return hash, nil
	}
	if !r.n.Fits(len(raw)) {
		return "", fmt.Errorf("tool list of %d bytes is over the NATS message limit", len(raw))
	}
	if err := retry(ctx, func(ctx context.Context) error { _, err := r.tools.Put(ctx, hash, raw); return err }); err != nil {
		return "", fmt.Errorf("store tool list: %w", err)
	}
	r.mu.Lock()
	r.put[hash] = true
	r.toolsets[hash] = tools
	r.mu.Unlock()
	time.AfterFunc(24*time.Hour, func() { r.mu.Lock(); delete(r.put, hash); r.mu.Unlock() })
	return hash, nil
}

// Claim creates the record of a desktop's link: it fails with a *ClaimedError (matching
// ErrClaimed) when another link holds the id. The create is atomic across the cluster.
func (r *Registry) Claim(ctx context.Context, rec DeviceRecord) (uint64, error) {
	raw, _ := json.Marshal(rec)
	var rev uint64
	err := retry(ctx, func(ctx context.Context) error {
		var err error
		rev, err = r.presence.Create(ctx, Key(rec.DeviceID), raw)
		return err
	})
	if errors.Is(err, jetstream.ErrKeyExists) {
		e, gerr := r.presence.Get(ctx, Key(rec.DeviceID))
		if gerr != nil {
			return 0, fmt.Errorf("claim %s: %w", rec.DeviceID, gerr)
		}
		var cur DeviceRecord
		_ = json.Unmarshal(e.Value(), &cur)
		return 0, &ClaimedError{Current: cur, Rev: e.Revision()}
	}
	return rev, err
}

// Update writes rec over the record at revision rev (a claim being taken over, or a link's own
// record changing); a revision mismatch is an error matching ErrClaimed.
func (r *Registry) Update(ctx context.Context, rec DeviceRecord, rev uint64) (uint64, error) {
	raw, _ := json.Marshal(rec)
	var nrev uint64
	err := retry(ctx, func(ctx context.Context) error {
		var err error
		nrev, err = r.presence.Update(ctx, Key(rec.DeviceID), raw, rev)
		return err
	})
	var apiErr *jetstream.APIError
	if errors.Is(err, jetstream.ErrKeyExists) || errors.As(err, &apiErr) && apiErr.Code == 400 {
		return 0, fmt.Errorf("%w: %v", ErrClaimed, err)
	}
	return nrev, err
}

// Release deletes a link's record if it is still at revision rev (a newer link's is left).
func (r *Registry) Release(ctx context.Context, deviceID string, rev uint64) error {
	return retry(ctx, func(ctx context.Context) error {
		err := r.presence.Delete(ctx, Key(deviceID), jetstream.LastRevision(rev))
		var apiErr *jetstream.APIError
		if errors.As(err, &apiErr) && apiErr.Code == 400 {
			return nil // changed since: not ours any more
		}
		return err
	})
}

// Beat writes this replica's heartbeat (ReplicasBucket).
func (r *Registry) Beat(ctx context.Context, rec ReplicaRecord) error {
	raw, _ := json.Marshal(rec)
	_, err := r.replicas.Put(ctx, rec.Name, raw)
	return err
}

// Leave deletes this replica's heartbeat: the others count it gone at once.
func (r *Registry) Leave(ctx context.Context, name string) error {
	return r.replicas.Delete(ctx, name)
}

// Alive reports whether the replica's heartbeat is current.
func (r *Registry) Alive(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.reps[name]
	return ok
}

// Replicas lists the replicas alive, by name.
func (r *Registry) Replicas() []ReplicaRecord {
	r.mu.Lock()
	out := make([]ReplicaRecord, 0, len(r.reps))
	for _, rec := range r.reps {
		out = append(out, rec)
	}
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Present is a desktop linked and ready on a replica alive, with its tools.
type Present struct {
	DeviceRecord
	Rev      uint64
	ToolList []json.RawMessage // as the desktop listed them; nil when not loaded
}

// Device returns the record of a device id (present or not) and whether there is one.
func (r *Registry) Device(id string) (DeviceRecord, uint64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.devs[id]
	return d.rec, d.rev, ok
}

// Lookup returns the device id's entry when it is present (ready, on a replica alive).
func (r *Registry) Lookup(id string) (Present, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.devs[id]
	if !ok || !d.rec.Ready {
		return Present{}, false
	}
	if _, alive := r.reps[d.rec.Replica]; !alive {
		return Present{}, false
	}
	return Present{DeviceRecord: d.rec, Rev: d.rev, ToolList: r.toolsets[d.rec.Tools]}, true
}

// Present lists every present desktop, by id.
func (r *Registry) Present() []Present {
	r.mu.Lock()
	out := make([]Present, 0, len(r.devs))
	for _, d := range r.devs {
		if _, alive := r.reps[d.rec.Replica]; d.rec.Ready && alive {
			out = append(out, Present{DeviceRecord: d.rec, Rev: d.rev, ToolList: r.toolsets[d.rec.Tools]})
		}
	}
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].DeviceID < out[j].DeviceID })
	return out
}

// Records lists every record of the presence bucket naming replica (present or not).
func (r *Registry) Records(replica string) map[string]uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]uint64{}
	for id, d := range r.devs {
		if d.rec.Replica == replica {
			out[id] = d.rev
		}
	}
	return out
}
