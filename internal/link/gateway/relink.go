package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/rpa-dev/rpa/internal/link/mcpws"
)

// DefaultRelinkWait is how long a call waits for a desktop whose link dropped to link again
// (Options.RelinkWait, `rpa gateway --relink-wait`): a call made meanwhile for one of its tools
// waits for it instead of failing with -32003, and a call cut by the drop is asked for again on
// the new link (same request id: the desktop runs it once and sends the answer it kept).
const DefaultRelinkWait = 10 * time.Second

// KindDisconnected is the error data "kind" of a call whose desktop dropped during it and did not
// link again within the relink wait; the data's "callId" names the call and "resource" the URI
// (rpa://runs/CALLID) its answer will be readable under, by its agent, once the desktop sends it.
const KindDisconnected = "disconnected"

// relinking is a desktop whose link dropped: the tools it offered, until when calls wait for it.
type relinking struct {
	tools []string
	until time.Time
}

// relinkWait is the wait of Options.RelinkWait (0: none).
func (g *Gateway) relinkWait() time.Duration {
	switch {
	case g.opts.RelinkWait < 0:
		return 0
	case g.opts.RelinkWait == 0:
		return DefaultRelinkWait
	}
	return g.opts.RelinkWait
}

// dropped notes that d's link ended (not replaced, not revoked): calls for its tools wait for it
// to link again for relinkWait.
func (g *Gateway) dropped(d *device) {
	wait := g.relinkWait()
	d.mu.Lock()
	revoked := d.wasRevoked
	tools := make([]string, 0, len(d.tools))
	for n := range d.tools {
		tools = append(tools, n)
	}
	d.mu.Unlock()
	if wait <= 0 || revoked || g.drain.draining() {
		return
	}
	g.mu.Lock()
	if g.relinks == nil {
		g.relinks = map[string]relinking{}
	}
	now := time.Now()
	for id, r := range g.relinks {
		if now.After(r.until) {
			delete(g.relinks, id)
		}
	}
	g.relinks[d.id] = relinking{tools: tools, until: now.Add(wait)}
	g.mu.Unlock()
}

// signal wakes whoever waits for a change: fire closes the channel wait returned.
type signal struct {
	mu sync.Mutex
	ch chan struct{}
}

func (s *signal) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

func (s *signal) fire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}

// recheck bounds how long a wait for the gateway's state goes without looking again when no
// change is announced (stateChanged is called for every change these waits are for; this only
// bounds the cost of one that is missed).
const recheck = time.Second

// awaitState waits until cond holds, ctx ends or until (when not zero) passes, looking again at
// every change of the gateway's state; until returns the deadline (zero: none any more: give
// up at once). It reports whether cond holds.
func (g *Gateway) awaitState(ctx context.Context, cond func() bool, until func() time.Time) bool {
	for {
		ch := g.changes.wait() // before looking: a change after the look wakes the wait
		if cond() {
			return true
		}
		left := time.Until(until())
		if left <= 0 {
			return false
		}
		t := time.NewTimer(min(recheck, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-ch:
			t.Stop()
		case <-t.C:
		}
	}
}

// awaitOffer waits, while a desktop that offered tool name (device want, when not "") is
// relinking, for some desktop (want) to offer it again. It reports whether one does; false at
// once when no such desktop is relinking.
func (g *Gateway) awaitOffer(ctx context.Context, name, want string) bool {
	offered := func() bool {
		for _, o := range g.offers(name) {
			if want == "" || o.id == want {
				return true
			}
		}
		return false
	}
	relinking := func() (until time.Time) {
		now := time.Now()
		g.mu.Lock()
		defer g.mu.Unlock()
		for id, r := range g.relinks {
			if (want == "" || id == want) && now.Before(r.until) && slices.Contains(r.tools, name) && r.until.After(until) {
				until = r.until
			}
		}
		return until
	}
	return g.awaitState(ctx, offered, relinking)
}

// linkedAgain returns device id's link once it is ready and is not old, waiting until deadline.
func (g *Gateway) linkedAgain(ctx context.Context, id string, old *device, deadline time.Time) *device {
	var d *device
	back := func() bool {
		g.mu.Lock()
		d = g.devices[id]
		g.mu.Unlock()
		if d == nil || d == old {
			return false
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.ready && !d.gone
	}
	if !g.awaitState(ctx, back, func() time.Time { return deadline }) {
		return nil
	}
	return d
}

// reask follows a call cut by its desktop's link drop (single gateway; a cluster has its own
// way, replica.go): it waits for the desktop to link again and asks for the call again with the
// same request id, so the desktop, which runs an id once, either sends the answer it kept or
// the answer of the run still going. An answer the desktop sent on the new link before the call
// was asked for again is taken from the kept answers. It gives up (returning the first error)
// after the relink wait.
func (g *Gateway) reask(ctx context.Context, first *device, params map[string]any, c *call, err error) (*jsonrpc.Response, error) {
	deadline := time.Now().Add(g.relinkWait())
	for {
		var gone errGone
		if !errors.As(err, &gone) || gone.revoked || g.drain.draining() || ctx.Err() != nil {
			return nil, err
		}
		d := g.linkedAgain(ctx, first.id, first, deadline)
		if d == nil {
			return nil, err
		}
		g.log.Info("asking a desktop that linked again for a call its old link cut", "device", d.id, "id", c.id)
		stop := g.watchKept(d, c.id)
		resp, rerr := d.request(ctx, "tools/call", params, c)
		stop()
		if rerr == nil {
			return resp, nil
		}
		first, err = d, rerr
	}
}

// watchKept delivers to the call id, while it waits on d, an answer that reached the kept
// answers instead (it came on d's link in the moment before the call was asked for again).
func (g *Gateway) watchKept(d *device, id string) (stop func()) {
	done := make(chan struct{})
	go func() {
		for {
			ch := g.changes.wait() // (storeLate announces every kept answer)
			if r, ok := g.late.get(id); ok && r.CallID == id {
				rid, _ := jsonrpc.MakeID(id)
				resp := &jsonrpc.Response{ID: rid, Result: r.Result}
				if r.Error != nil {
					resp.Error = r.Error
				}
				d.mu.Lock()
				c := d.pending[mcpws.IDKey(rid)]
				d.mu.Unlock()
				if c != nil {
					select {
					case c.resp <- resp:
					default:
					}
				}
			}
			t := time.NewTimer(recheck)
			select {
			case <-done:
				t.Stop()
				return
			case <-ch:
				t.Stop()
			case <-t.C:
			}
		}
	}()
	return func() { close(done) }
}

// disconnected is the agent's error for a call whose desktop dropped during it and did not link
// again in time: -32004 naming the resource its answer will be kept under (KindDisconnected).
// A revoked desktop's call did not run: its error says so and names no resource.
func disconnected(gone errGone, callID string, wait time.Duration) *jsonrpc.Error {
	if gone.revoked {
		return &jsonrpc.Error{Code: CodeUnreachable, Message: gone.Error()}
	}
	data, _ := json.Marshal(map[string]string{"kind": KindDisconnected, "deviceId": gone.id, "callId": callID, "resource": RunURI(callID)})
	return &jsonrpc.Error{Code: CodeUnreachable, Data: data, Message: fmt.Sprintf(
		"%s and did not link again within %s; it may still finish the call: its answer will be kept as resource %s", gone.Error(), wait, RunURI(callID))}
}
