package gateway

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/internal/link/connect"
)

// msgRestarting is what an agent is told when its call cannot go on because the gateway is
// shutting down (not "desktop disconnected": the desktop is fine).
const msgRestarting = "the gateway is restarting"

// drainState counts agent calls in flight and stops new ones during Shutdown.
type drainState struct {
	mu   sync.Mutex
	on   bool
	n    int
	zero chan struct{} // closed when n reaches 0 while on
}

// enter admits a call unless draining.
func (s *drainState) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.on {
		return false
	}
	s.n++
	return true
}

// leave ends an admitted call.
func (s *drainState) leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n--
	if s.on && s.n == 0 && s.zero != nil {
		close(s.zero)
		s.zero = nil
	}
}

func (s *drainState) draining() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.on
}

// start begins draining and returns a channel closed once no call is in flight.
func (s *drainState) start() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = true
	ch := make(chan struct{})
	if s.n == 0 {
		close(ch)
	} else {
		s.zero = ch
	}
	return ch
}

// refuse stops admitting calls (the gateway is closing), without a drain to wait for.
func (s *drainState) refuse() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = true
}

func (s *drainState) inFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// CloseWait bounds what a gateway does after its drain (Shutdown, Serve): closing the links,
// telling the cluster it leaves (one write, never tried again), stopping its cluster work and
// the HTTP server. A cluster that lost its majority (every replica stopped at once) answers
// no write: nothing waits for one beyond this.
const CloseWait = 3 * time.Second

// Shutdown drains the gateway (on SIGTERM): new agent calls get -32004 "the gateway is
// restarting" and new desktop links HTTP 503 at once, while the calls in flight are waited for
// until ctx ends; then every link is closed (Close) and, in a cluster, the replica leaves it
// (within CloseWait). Calls still running then get "the gateway is restarting" with the
// resource their answer will be kept under; the desktop keeps the answer and delivers it when
// it reconnects (to this gateway's successor). The HTTP server is left to the caller (shut it
// down after Shutdown returns, as Serve does). The error says how many calls were still in
// flight when ctx ended.
//
// In a cluster with another replica alive, the desktops are told at once to link to another
// replica (close 1012, which `rpa connect` acts on at once, with jitter); their calls in flight
// keep running there and their answers come back to the replica of the agent that made them
// (this one too, until the drain ends).
func (g *Gateway) Shutdown(ctx context.Context) error {
	err := g.drainCalls(ctx)
	cctx, cancel := context.WithTimeout(context.Background(), CloseWait)
	defer cancel()
	g.closeAll(cctx)
	return err
}

// drainCalls is Shutdown's drain: new calls refused, the desktops moved to another replica,
// the calls in flight waited for until ctx ends.
func (g *Gateway) drainCalls(ctx context.Context) error {
	idle := g.drain.start()
	g.log.Info("draining: new calls are refused", "in_flight", g.drain.inFlight())
	if g.rep != nil && g.rep.othersAlive() {
		g.rep.leave(ctx)
		n := g.relinkAll()
		g.log.Info("draining: desktops told to link to another replica", "desktops", n)
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("gateway: %d calls still in flight when the drain ended", g.drain.inFlight())
	}
}

// closeAll is Shutdown after the drain: the links closed, the agents' open streams ended, the
// replica gone from the cluster, within ctx.
func (g *Gateway) closeAll(ctx context.Context) {
	_ = g.Close()
	if g.rep != nil {
		g.rep.close(ctx)
	}
}

// relinkAll closes every desktop link with 1012 (connect.CloseRestart): the desktops link to
// another replica. It returns how many there were.
func (g *Gateway) relinkAll() int {
	g.mu.Lock()
	all := make([]*device, 0, len(g.devices))
	for _, d := range g.devices {
		all = append(all, d)
	}
	g.mu.Unlock()
	for _, d := range all {
		d.link.CloseWith(connect.CloseRestart, "this gateway replica is draining: link to another one")
		d.drop()
	}
	return len(all)
}
