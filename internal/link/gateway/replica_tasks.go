package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/rpa-dev/rpa/internal/link/cluster"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
)

// Tasks in a cluster (docs/gateway.md, "Several gateways"): the agents' tasks live in TasksBucket,
// so a task created through one replica is read, listed, cancelled and answered through any
// other. Its work (following the desktop's task, or relaying the call) runs on the replica that
// created it, named in Record.Node as "REPLICA~EPOCH" (the epoch tells a restarted replica from
// the process before it). A cancel or an answer that lands on another replica is forwarded to
// that one by a NATS request (taskSubject); a 2025-11-25 tasks/result on another replica asks the
// task's stored questions itself and forwards the answers. When the replica dies, its tasks whose
// desktop runs them as tasks (Record.Relay) are taken over by the replica the desktop links to
// next (one, by a compare-and-set on Record.Node); the others fail, "interrupted", when next
// read, as a task of a dead process does.

// TasksBucket is the key-value bucket of the agents' tasks in a cluster (tasks.Record as JSON by
// Key(task id)).
const TasksBucket = "rpa_tasks"

// taskOpTimeout bounds one store operation (JetStream may be electing a leader).
const taskOpTimeout = 10 * time.Second

// kvTasks is a tasks.Store in TasksBucket. A record over NATS's payload limit (a result with a
// screenshot) is kept in chunks in the bucket itself (kept as long as the record, unlike a blob),
// under keys "KEY.TOKEN.N" that a new token replaces at each write; the record's own key then
// holds taskHead.
type kvTasks struct{ n *cluster.Node }

// taskHead is the value of a record kept in chunks.
type taskHead struct {
	Chunks int    `json:"chunks"`
	Token  string `json:"token"`
}

// chunkSize is the size of a record's chunks (well under NATS's default 1 MB limit).
const chunkSize = 512 << 10

func chunkKey(id, token string, i int) string {
	return fmt.Sprintf("%s.%s.%d", cluster.Key(id), token, i)
}

func (s kvTasks) bucket(ctx context.Context) (jetstream.KeyValue, context.Context, context.CancelFunc, error) {
	ctx, cancel := context.WithTimeout(ctx, taskOpTimeout)
	kv, err := s.n.Bucket(ctx, TasksBucket, cluster.BucketOptions{Fresh: true, Description: "rpa gateway: the agents' tasks"})
	if err != nil {
		cancel()
		return nil, nil, nil, fmt.Errorf("the task store is not available: %w", err)
	}
	return kv, ctx, cancel, nil
}

// encode returns the value of r's key, writing its chunks first when it is too large (the
// caller removes the old chunks, dropChunks, once the new value is in).
func (s kvTasks) encode(ctx context.Context, kv jetstream.KeyValue, r *tasks.Record) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil || s.n.Fits(len(b)) {
		return b, err
	}
	var t [8]byte
	_, _ = rand.Read(t[:])
	h := taskHead{Token: hex.EncodeToString(t[:])}
	for off := 0; off < len(b); off += chunkSize {
		if _, err := kv.Put(ctx, chunkKey(r.ID, h.Token, h.Chunks), b[off:min(off+chunkSize, len(b))]); err != nil {
			return nil, err
		}
		h.Chunks++
	}
	return json.Marshal(h)
}

// decode reads a record from its key's value (and its chunks).
func (s kvTasks) decode(ctx context.Context, kv jetstream.KeyValue, id string, b []byte) (*tasks.Record, error) {
	var h taskHead
	if json.Unmarshal(b, &h) == nil && h.Token != "" {
		var all []byte
		for i := range h.Chunks {
			e, err := kv.Get(ctx, chunkKey(id, h.Token, i))
			if err != nil {
				return nil, fmt.Errorf("task %s: chunk %d: %w", id, i, err)
			}
			all = append(all, e.Value()...)
		}
		b = all
	}
	var r tasks.Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("task %s: damaged record: %w", id, err)
	}
	return &r, nil
}

// dropChunks removes the chunks an old value (of a record kept in chunks) named.
func dropChunks(ctx context.Context, kv jetstream.KeyValue, id string, old []byte) {
	var h taskHead
	if json.Unmarshal(old, &h) != nil || h.Token == "" {
		return
	}
	for i := range h.Chunks {
		_ = kv.Purge(ctx, chunkKey(id, h.Token, i))
	}
}

// Create implements tasks.Store: an atomic create in the bucket.
func (s kvTasks) Create(ctx context.Context, r *tasks.Record) error {
	kv, ctx, cancel, err := s.bucket(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	b, err := s.encode(ctx, kv, r)
	if err != nil {
		return err
	}
	if _, err := kv.Create(ctx, cluster.Key(r.ID), b); err != nil {
		dropChunks(ctx, kv, r.ID, b)
		if errors.Is(err, jetstream.ErrKeyExists) {
			return fmt.Errorf("%w: %s", tasks.ErrExists, r.ID)
		}
		return err
	}
	return nil
}

func (s kvTasks) get(ctx context.Context, kv jetstream.KeyValue, id string) (*tasks.Record, jetstream.KeyValueEntry, error) {
	e, err := kv.Get(ctx, cluster.Key(id))
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return nil, nil, tasks.ErrNotFound
	}
	if err != nil {
		return nil, nil, err
	}
	r, err := s.decode(ctx, kv, id, e.Value())
	return r, e, err
}

// Get implements tasks.Store.
func (s kvTasks) Get(ctx context.Context, id string) (*tasks.Record, error) {
	kv, ctx, cancel, err := s.bucket(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	r, _, err := s.get(ctx, kv, id)
	return r, err
}

// Update implements tasks.Store: read, change, write back at the revision read; another
// replica's write in between makes it read again.
func (s kvTasks) Update(ctx context.Context, id string, fn func(*tasks.Record) error) (*tasks.Record, error) {
	kv, ctx, cancel, err := s.bucket(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	for {
		r, e, err := s.get(ctx, kv, id)
		if err != nil {
			return nil, err
		}
		if err := fn(r); err != nil {
			return nil, err
		}
		b, err := s.encode(ctx, kv, r)
		if err != nil {
			return nil, err
		}
		_, err = kv.Update(ctx, cluster.Key(id), b, e.Revision())
		if err != nil {
			dropChunks(ctx, kv, id, b)
			if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
				continue
			}
			return nil, err
		}
		dropChunks(ctx, kv, id, e.Value())
		return r, nil
	}
}

// all reads every record (tasks are few: at most MaxTasks live per replica, the ended ones
// until their ttl).
func (s kvTasks) all(ctx context.Context) ([]*tasks.Record, error) {
	kv, ctx, cancel, err := s.bucket(ctx)
	if err != nil {
		return nil, err
	}
	defer cancel()
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = keys.Stop() }()
	var out []*tasks.Record
	for {
		var k string
		select {
		case key, more := <-keys.Keys():
			if !more {
				sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
				return out, nil
			}
			k = key
		case <-ctx.Done(): // a listing that stalls (a stream electing its leader) ends here
			return nil, ctx.Err()
		}
		if strings.Contains(k, ".") {
			continue // a chunk of a large record
		}
		id, err := cluster.Unkey(k)
		if err != nil {
			continue
		}
		r, _, err := s.get(ctx, kv, id)
		if errors.Is(err, tasks.ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
}

// List implements tasks.Store.
func (s kvTasks) List(ctx context.Context, key, after string, limit int) ([]*tasks.Record, error) {
	rs, err := s.all(ctx)
	if err != nil {
		return nil, err
	}
	var out []*tasks.Record
	for _, r := range rs {
		if r.ID > after && tasks.OwnerKey(r.Owner) == key && len(out) < limit {
			out = append(out, r)
		}
	}
	return out, nil
}

// Live implements tasks.Store.
func (s kvTasks) Live(ctx context.Context) ([]*tasks.Record, error) {
	rs, err := s.all(ctx)
	if err != nil {
		return nil, err
	}
	out := rs[:0]
	for _, r := range rs {
		if !tasks.Terminal(r.Status) {
			out = append(out, r)
		}
	}
	return out, nil
}

// Sweep implements tasks.Store (every replica sweeps; a record is deleted at the revision read,
// so one changed meanwhile stays).
func (s kvTasks) Sweep(ctx context.Context, now time.Time) (int, error) {
	rs, err := s.all(ctx)
	if err != nil {
		return 0, err
	}
	kv, ctx, cancel, err := s.bucket(ctx)
	if err != nil {
		return 0, err
	}
	defer cancel()
	n := 0
	for _, r := range rs {
		if exp := r.Expires(); exp.IsZero() || !exp.Before(now) {
			continue
		}
		e, err := kv.Get(ctx, cluster.Key(r.ID))
		if err != nil {
			continue
		}
		if err := kv.Delete(ctx, cluster.Key(r.ID), jetstream.LastRevision(e.Revision())); err == nil {
			dropChunks(ctx, kv, r.ID, e.Value())
			n++
		}
	}
	return n, nil
}

// taskNode is this replica's name in its tasks' Record.Node: "REPLICA~EPOCH".
func (r *replica) taskNode() string { return r.name + "~" + r.g.epoch }

// taskAlive reports whether the replica process node ("REPLICA~EPOCH") is alive. It asks that
// replica over NATS (core request and reply: a replica whose NATS is gone has no responder at
// once, whatever the buckets' watchers still show); when the answer does not come, its heartbeat
// decides. Before this replica has read the cluster's state every node counts alive (nothing is
// failed or taken over on a guess).
func (r *replica) taskAlive(node string) bool {
	reg := r.reg.Load()
	if reg == nil {
		return true
	}
	name, epoch, _ := strings.Cut(node, "~")
	if name == r.name {
		return epoch == r.g.epoch
	}
	if name != "" {
		b, _ := json.Marshal(taskMsg{Ping: epoch})
		m, err := r.n.Conn().Request(taskSubject(name), b, 2*time.Second)
		switch {
		case err == nil:
			return string(m.Data) == "ok"
		case errors.Is(err, nats.ErrNoResponders):
			return false
		}
	}
	for _, rec := range reg.Replicas() {
		if rec.Name == name {
			return rec.Epoch == epoch
		}
	}
	return false
}

// taskSubject is where a replica takes cancels and answers for the tasks it runs.
func taskSubject(name string) string { return "rpa.task." + name }

// taskMsg is a forwarded cancel or answers (tasks.Options.Forward), word (Adopt) that a task
// was handed over to the replica its desktop links to, or (Ping) a question whether a replica
// process is alive.
type taskMsg struct {
	ID        string               `json:"id"`
	Cancel    bool                 `json:"cancel,omitempty"`
	Responses mcp.InputResponseMap `json:"responses,omitempty"`
	Adopt     bool                 `json:"adopt,omitempty"`
	Ping      string               `json:"ping,omitempty"` // is this epoch's process alive?
}

// linkedElsewhere reports whether the cluster's registry has the device linked to another
// replica (handOver would hand its task over).
func (r *replica) linkedElsewhere(device string) bool {
	reg := r.reg.Load()
	if reg == nil {
		return false
	}
	p, ok := reg.Lookup(device)
	return ok && p.Replica != r.name
}

// handOver gives task h up when its desktop links to another live replica (which takes it over:
// adoptTasks) and tells that replica; it reports which replica and whether it did.
func (r *replica) handOver(ctx context.Context, h *tasks.Handle, device string) (string, bool) {
	reg := r.reg.Load()
	if reg == nil {
		return "", false
	}
	p, ok := reg.Lookup(device)
	if !ok || p.Replica == r.name {
		return "", false
	}
	if err := h.HandOver(ctx); err != nil {
		r.log.Warn("tasks: cannot hand a task over", "task", h.ID(), "err", err)
		return "", false
	}
	if b, err := json.Marshal(taskMsg{ID: h.ID(), Adopt: true}); err == nil {
		_ = r.n.Conn().Publish(taskSubject(p.Replica), b)
	}
	r.log.Info("tasks: handed over to the replica its desktop links to", "task", h.ID(), "device", device, "to", p.Replica)
	return p.Replica, true
}

// forwardTask sends a cancel or answers to the replica running task rec.
func (r *replica) forwardTask(ctx context.Context, rec *tasks.Record, cancel bool, responses mcp.InputResponseMap) error {
	name, _, _ := strings.Cut(rec.Node, "~")
	b, err := json.Marshal(taskMsg{ID: rec.ID, Cancel: cancel, Responses: responses})
	if err != nil {
		return err
	}
	ctx, stop := context.WithTimeout(ctx, 5*time.Second)
	defer stop()
	m, err := r.n.Conn().RequestWithContext(ctx, taskSubject(name), b)
	if errors.Is(err, nats.ErrNoResponders) {
		// Its replica died: the replica that takes the task over asks its questions again
		// (and a cancel is already stored).
		r.log.Info("tasks: the replica running a task is gone; answers to its old questions dropped", "task", rec.ID, "replica", name)
		return nil
	}
	if err != nil {
		return fmt.Errorf("task %s: its replica %q: %w", rec.ID, name, err)
	}
	if string(m.Data) != "ok" {
		return fmt.Errorf("task %s: its replica %q no longer runs it (ask tasks/get again)", rec.ID, name)
	}
	return nil
}

// onTask applies a forwarded cancel or answers to a task this replica runs.
func (r *replica) onTask(m *nats.Msg) {
	var t taskMsg
	if json.Unmarshal(m.Data, &t) == nil && t.Ping != "" {
		if t.Ping == r.g.epoch {
			_ = m.Respond([]byte("ok"))
		} else {
			_ = m.Respond([]byte("another process"))
		}
		return
	}
	if json.Unmarshal(m.Data, &t) != nil || t.ID == "" {
		_ = m.Respond([]byte("bad request"))
		return
	}
	if t.Adopt {
		select {
		case r.taskKick <- struct{}{}:
		default:
		}
		return
	}
	if r.g.tasks.Deliver(t.ID, t.Cancel, t.Responses) {
		_ = m.Respond([]byte("ok"))
		return
	}
	_ = m.Respond([]byte("not here"))
}

// adoptTasks takes over the live tasks of dead replicas whose desktop (Record.Relay) is linked
// here: its desktop still runs the task, and this replica follows it from now on. Adopt's
// compare-and-set on Record.Node lets one replica win.
func (r *replica) adoptTasks(ctx context.Context) {
	if r.reg.Load() == nil || ctx.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, taskOpTimeout)
	defer cancel()
	live, err := r.g.tasks.Store().Live(ctx)
	if err != nil {
		if r.life.Err() == nil { // not the replica going down
			r.log.Warn("tasks: cannot read the live tasks (tried again in 10 s)", "err", err)
		}
		return
	}
	for _, t := range live {
		device, dtask, ok := strings.Cut(t.Relay, " ")
		if !ok || t.Node == r.taskNode() || r.taskAlive(t.Node) {
			continue
		}
		r.g.mu.Lock()
		d := r.g.devices[device]
		r.g.mu.Unlock()
		if d == nil {
			continue // the replica its desktop links to takes it
		}
		err := r.g.tasks.Adopt(ctx, t, func(ctx context.Context, h *tasks.Handle) (*mcp.CallToolResult, error) {
			return r.g.follow(ctx, h, device, dtask, nil)
		})
		if err != nil {
			r.log.Warn("tasks: cannot take over a task", "task", t.ID, "err", err)
		}
	}
}

// tasksLoop recovers the cluster's tasks once the cluster state is read (tasks of processes that
// are gone fail, "interrupted", unless a desktop still runs them), then takes over tasks of dead
// replicas whose desktop links here: at each change of the registry, and every 10 s; until ctx
// ends (the replica's life: a read under way then ends too, so stopping waits for none).
func (r *replica) tasksLoop(ctx context.Context) {
	defer r.wg.Done()
	if err := r.g.tasks.Recover(ctx); err != nil && ctx.Err() == nil {
		r.log.Warn("tasks: cannot read the task store", "err", err)
	}
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for {
		r.adoptTasks(ctx)
		select {
		case <-ctx.Done():
			return
		case <-r.taskKick:
		case <-t.C:
		}
	}
}
