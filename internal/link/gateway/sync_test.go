package gateway

import (
	"fmt"
	"testing"
)

// TestLinksShareRebuilds: desktops that link while the tool list is being rebuilt are added
// together by the next rebuild, not by one rebuild each (each costs in proportion to every
// desktop: hundreds linking at once, when their replica died, took seconds one by one).
func TestLinksShareRebuilds(t *testing.T) {
	x := startGateway(t, "", Options{})
	g := x.g
	const n = 20
	g.syncMu.Lock() // a rebuild in progress
	before := g.builds.Load()
	for i := range n {
		id := fmt.Sprintf("d%02d", i)
		startDesk(t, x.wsURL(), id, deskServer(id, nil), nil)
	}
	// The first link's sync waits for the rebuild; the others wait behind it.
	poll(t, func() bool { // the queue tells nobody when it grows
		g.syncs.mu.Lock()
		defer g.syncs.mu.Unlock()
		return len(g.syncs.pending) == n-1
	}, func() string { return "every link to wait for its sync" })
	g.syncMu.Unlock()
	x.waitDevices(t, n)
	// 2: the first one's, then the others' together (a desktop that registers again meanwhile
	// may add one).
	if got := g.builds.Load() - before; got > 4 {
		t.Errorf("%d desktops linked with %d rebuilds of the tool list, want about 2 (the first one's, then the others' together)", n, got)
	}
	if offers := g.offers("echo"); len(offers) != n {
		t.Errorf("echo is offered by %d desktops, want %d", len(offers), n)
	}
}
