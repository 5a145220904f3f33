// Package tasks gives an MCP server tasks (PROTOCOL.md, "Tasks"): a
// tools/call that returns a task handle at once and whose result the caller
// fetches later, on this connection or another one, after a restart of the
// server, while the task's time to live lasts. Both protocol eras:
//
//   - 2025-11-25, where tasks are experimental: the server declares the
//     `tasks` capability, a tool declares `execution.taskSupport`, the
//     caller asks with a `task` param on tools/call and polls tasks/get,
//     fetches with tasks/result (which blocks, and is where a question of
//     the task reaches the caller, as an elicitation request tied to the
//     task), lists with tasks/list and cancels with tasks/cancel;
//   - 2026-07-28, the extension io.modelcontextprotocol/tasks (SEP-2663):
//     a caller that declares the extension on its request may get a task
//     instead of the result; tasks/get carries the result, the error, or
//     the questions (inputRequests) the caller answers with tasks/update;
//     tasks/cancel acknowledges.
//
// The work of a task (a flow run at mcpserver, a call relayed to a desktop
// at the gateway) runs in its own goroutine under a Manager, which keeps
// the task's state in a Store: RunStore (the run store's database; a task
// is a run, its id begins with the run ID) or MemStore. Every state a
// caller can observe is written to the Store before it is shown, so a
// CreateTaskResult is only returned once tasks/get can find the task. A
// task belongs to its caller by the rule runs.Owner states for runs (Who):
// another caller gets "task not found" for it, exactly as for an id that
// never existed.
//
// Store is small on purpose: a cluster of gateways keeps tasks in a
// key-value bucket readable from every replica by implementing it (Create
// is a create-if-absent, Update a compare-and-set loop); Manager and the
// protocol glue (Front) do not change.
package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/rpa-dev/rpa/internal/runs"
)

// Statuses of a task (both eras use these names).
const (
	Working       = "working"        // running
	InputRequired = "input_required" // waiting for the caller's answer to a question
	Completed     = "completed"      // finished with a result (isError or not)
	Failed        = "failed"         // ended with a JSON-RPC error (or its process died)
	Cancelled     = "cancelled"      // cancelled by its caller
)

// Terminal reports whether status is final (completed, failed, cancelled).
func Terminal(status string) bool {
	return status == Completed || status == Failed || status == Cancelled
}

// Defaults and bounds.
const (
	// DefaultTTL is how long a task is kept when its caller asks for no
	// time to live (--task-ttl).
	DefaultTTL = time.Hour
	// DefaultMaxTTL bounds the time to live a caller may ask for
	// (--task-max-ttl); a longer one is cut to it (the task says so in
	// its ttl).
	DefaultMaxTTL = 24 * time.Hour
	// DefaultMax is how many tasks may be live (not terminal) at once per
	// server (--max-tasks); one more is refused with -32004, kind busy.
	DefaultMax = 256
	// DefaultPoll is the poll interval suggested to callers.
	DefaultPoll = time.Second
	// KeepAfterEnd is the least time a task is kept after it ended (or its
	// ttl, when that is shorter): a run that outlasts its ttl still leaves
	// its result to be fetched.
	KeepAfterEnd = 15 * time.Minute
)

// Record is a task as stored. Times are UTC. It never holds an answer to
// a question: Inputs are the questions, answers go straight to the work.
type Record struct {
	ID    string `json:"id"`
	RunID string `json:"runId,omitempty"`
	// Owner is the caller the task belongs to (runs.Owner; Who).
	Owner runs.Owner `json:"owner"`
	Tool  string     `json:"tool"`
	// Era is the protocol version of the request that created the task.
	Era     string    `json:"era"`
	Status  string    `json:"status"`
	Message string    `json:"message,omitempty"` // statusMessage
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	Ended   time.Time `json:"ended,omitzero"`
	// TTLMs is the time to live from Created in milliseconds (it grows
	// when the work outlasts it, see KeepAfterEnd).
	TTLMs  int64 `json:"ttlMs"`
	PollMs int64 `json:"pollMs,omitempty"`
	// Inputs are the questions outstanding while Status is
	// input_required: an mcp.InputRequestMap as JSON. Asked counts the
	// questions asked so far (keys q1, q2, ... are never reused, also by
	// a process that takes the task over).
	Inputs json.RawMessage `json:"inputs,omitempty"`
	Asked  int             `json:"asked,omitempty"`
	// Result is the CallToolResult of a completed task as JSON; IsError
	// its isError.
	Result  json.RawMessage `json:"result,omitempty"`
	IsError bool            `json:"isError,omitempty"`
	// Error is the JSON-RPC error of a failed task.
	Error *jsonrpc.Error `json:"error,omitempty"`
	// Node names the process running the work (runs.ThisProcess, or a
	// gateway replica), so another process can tell a task whose process
	// died (it is then failed, "interrupted").
	Node string `json:"node,omitempty"`
	// Relay, at a gateway, names the desktop call the work waits for
	// ("DEVICE gw-…"): a restarted gateway completes the task when that
	// desktop's answer arrives.
	Relay string `json:"relay,omitempty"`
}

// Expires is when the record may be deleted: never while it is live; for
// an ended task its ttl from creation, and at least KeepAfterEnd (or the
// ttl, when shorter) after it ended.
func (r *Record) Expires() time.Time {
	if !Terminal(r.Status) {
		return time.Time{}
	}
	ttl := time.Duration(r.TTLMs) * time.Millisecond
	exp := r.Created.Add(ttl)
	end := r.Ended
	if end.IsZero() {
		end = r.Updated
	}
	if keep := end.Add(min(ttl, KeepAfterEnd)); keep.After(exp) {
		exp = keep
	}
	return exp
}

// Who is the caller of a request as a task sees it: its runs.Owner and
// which MCP sessions are open (runs.Owner.Owns needs both).
type Who struct {
	Owner runs.Owner
	// Live reports whether an MCP session (by its digest) is still open;
	// nil: none is.
	Live func(session string) bool
}

// Reaches reports whether w may see, answer and cancel a task owner
// started, by the task's id (PROTOCOL.md, "Who sees a task"): what Lists
// shows it, and two more, because a task outlives the session that
// started it and its id (128 random bits) is a secret only its caller was
// given:
//   - a caller presenting the same bearer token (the same kind and device)
//     reaches it also while the session that started it lives: a client
//     that reconnects (a new session after a crash, without DELETE) gets
//     its task, and the task's question, at once instead of after
//     --session-idle;
//   - an owner bound to nothing that outlives its session (no bearer
//     token, no device: stdio, HTTP without --token) has no identity a
//     later caller could show, so once its session ended (a stateless
//     request has none) its tasks pass to every caller likewise unbound,
//     of the same kind (as both MCP revisions allow where a task cannot
//     be bound to an authorization context).
func (w Who) Reaches(owner runs.Owner) bool {
	switch {
	case w.Lists(owner):
		return true
	case sameToken(w.Owner, owner):
		return true
	}
	return unbound(owner) && unbound(w.Owner) && owner.Kind == w.Owner.Kind &&
		(owner.Session == "" || w.Live == nil || !w.Live(owner.Session))
}

// Lists reports whether tasks/list shows w a task owner started:
// runs.Owner's rule alone. A task reached only by its id (Reaches) is
// never handed out by a listing, so the id stays the secret that keeps
// it: another session of the same token while the task's session lives,
// another unbound client (an unbound caller is listed only its own
// session's tasks, a stateless one none).
func (w Who) Lists(owner runs.Owner) bool {
	return w.Owner.Owns(owner, w.Live)
}

// sameToken reports whether a and b are callers of one kind and device
// presenting one bearer token.
func sameToken(a, b runs.Owner) bool {
	return !a.Desktop && !b.Desktop && a.Token != "" && a.Token == b.Token && a.Kind == b.Kind && a.Device == b.Device
}

func unbound(o runs.Owner) bool { return !o.Desktop && o.Token == "" && o.Device == "" }

// OwnerKey is the key a store lists tasks by (Store.List): the owner's
// bearer token digest, else its device, else "unbound" and its kind.
func OwnerKey(o runs.Owner) string {
	switch {
	case o.Token != "":
		return "token " + o.Token
	case o.Device != "":
		return "device " + o.Device
	}
	return "unbound " + o.Kind
}

// Store keeps tasks. Implementations must be safe for concurrent use.
type Store interface {
	// Create stores a new record; it is durable (visible to Get, from any
	// process or replica sharing the store) when Create returns. An id
	// already stored is an error wrapping ErrExists.
	Create(ctx context.Context, r *Record) error
	// Get returns the record of id, or an error wrapping ErrNotFound.
	Get(ctx context.Context, id string) (*Record, error)
	// Update reads the record of id, lets fn change it and writes it back
	// atomically with respect to other Updates (fn may run more than once
	// when another writer came between); fn's error aborts the update and
	// is returned as is.
	Update(ctx context.Context, id string, fn func(*Record) error) (*Record, error)
	// List returns the records whose OwnerKey is key with an id after
	// after ("" from the start), in id order, at most limit.
	List(ctx context.Context, key, after string, limit int) ([]*Record, error)
	// Live returns the records that are not terminal (for Recover).
	Live(ctx context.Context) ([]*Record, error)
	// Sweep deletes the records whose Expires is before now.
	Sweep(ctx context.Context, now time.Time) (int, error)
}

// Errors of a Store.
var (
	ErrNotFound = errors.New("task not found")
	ErrExists   = errors.New("task exists")
)

// NewID returns a task id for the run runID: the run ID, a dot and 32
// random hex digits (128 bits), so the id is unguessable (the MCP
// specifications ask for that where a task id may act as its own
// credential) while its run is read off it (RunIDOf).
func NewID(runID string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return runID + "." + hex.EncodeToString(b[:])
}

// RunIDOf returns the run ID a task id begins with ("" when id is not a
// task id of NewID's form).
func RunIDOf(id string) string {
	run, secret, ok := strings.Cut(id, ".")
	if !ok || len(secret) != 32 || runs.ValidID(run) != nil {
		return ""
	}
	for _, c := range secret {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return ""
		}
	}
	return run
}
