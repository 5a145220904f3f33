package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"time"
)

// Status is GET /status (behind the agents' token) and `rpa gateway status`: this replica and,
// in a cluster, every replica alive with the desktops linked to each.
type Status struct {
	Replica   string          `json:"replica,omitempty"`   // this replica's name (cluster)
	Mode      string          `json:"mode"`                // "alone", "embedded" (NATS in the replicas) or "nats" (the site's NATS)
	Ready     bool            `json:"ready"`               // as /readyz
	Reason    string          `json:"reason,omitempty"`    // why not ready
	Draining  bool            `json:"draining"`            // shutting down
	InFlight  int             `json:"inFlight"`            // agent calls this replica is serving
	Devices   int             `json:"devices"`             // desktops linked to this replica
	JetStream string          `json:"jetstream,omitempty"` // "ok", or why the cluster state is not usable
	Peers     []string        `json:"peers,omitempty"`     // NATS servers routed to (embedded) or known (nats)
	Replicas  []ReplicaStatus `json:"replicas,omitempty"`  // every replica alive (alone: none, there are no replicas)
	Total     int             `json:"totalDevices"`        // desktops linked anywhere
}

// ReplicaStatus is one replica in Status.
type ReplicaStatus struct {
	Name     string    `json:"name"`
	Devices  int       `json:"devices"`  // desktops linked to it
	InFlight int       `json:"inFlight"` // agent calls it serves (as of its last heartbeat)
	Draining bool      `json:"draining,omitempty"`
	Started  time.Time `json:"started"` // its own clock
	Self     bool      `json:"self,omitempty"`
}

// Status reports this replica's state (see Status).
func (g *Gateway) Status(ctx context.Context) Status {
	g.mu.Lock()
	local := len(g.devices)
	g.mu.Unlock()
	st := Status{Mode: "alone", Ready: true, Draining: g.drain.draining(), InFlight: g.drain.inFlight(), Devices: local, Total: local}
	if st.Draining {
		st.Ready, st.Reason = false, "draining"
	}
	if g.rep == nil {
		return st
	}
	r := g.rep
	st.Replica = r.name
	st.Mode = "nats"
	if r.n.Embedded() {
		st.Mode = "embedded"
	}
	st.Peers = r.n.Peers()
	st.JetStream = "ok"
	if err := r.n.Ready(ctx); err != nil {
		st.JetStream = err.Error()
	}
	reg := r.reg.Load()
	switch {
	case reg == nil:
		st.Ready, st.Reason = false, "the cluster state is not available yet (JetStream: "+st.JetStream+")"
	case st.JetStream != "ok" && st.Ready:
		st.Ready, st.Reason = false, "JetStream: "+st.JetStream
	case !r.owners.started() && st.Ready:
		// Until then an agent session open on another replica would read as closed here.
		st.Ready, st.Reason = false, "the cluster's agent sessions are not read yet"
	}
	if reg == nil {
		st.Replicas = []ReplicaStatus{{Name: r.name, Devices: local, InFlight: st.InFlight, Draining: st.Draining, Started: r.started, Self: true}}
		return st
	}
	// Other replicas' desktops as the presence bucket has them; this replica's own as it
	// holds them (its records reach its own copy of the bucket a moment after the link, or
	// later when the cluster came after the desktop).
	count := map[string]int{}
	present := reg.Present()
	for _, p := range present {
		count[p.Replica]++
	}
	st.Total = len(present) - count[r.name] + local
	count[r.name] = local
	self := false
	for _, rec := range reg.Replicas() {
		rs := ReplicaStatus{Name: rec.Name, Devices: count[rec.Name], InFlight: rec.InFlight, Draining: rec.Draining, Started: rec.Started}
		if rec.Name == r.name {
			rs.Self, rs.InFlight, rs.Draining, self = true, st.InFlight, st.Draining, true
		}
		st.Replicas = append(st.Replicas, rs)
	}
	if !self {
		st.Replicas = append(st.Replicas, ReplicaStatus{Name: r.name, Devices: local, InFlight: st.InFlight, Draining: st.Draining, Started: r.started, Self: true})
		sort.Slice(st.Replicas, func(i, j int) bool { return st.Replicas[i].Name < st.Replicas[j].Name })
	}
	return st
}

// serveHealth is GET /healthz: 200 while the process serves HTTP (no token: for load
// balancers and supervisors).
func (g *Gateway) serveHealth(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

// serveReady is GET /readyz: 200 when the replica takes desktops and calls (not draining; in a
// cluster, its cluster state is attached and JetStream answers), else 503 with the reason (no
// token: for load balancers).
func (g *Gateway) serveReady(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	st := g.Status(ctx)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if !st.Ready {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("not ready: " + st.Reason + "\n"))
		return
	}
	_, _ = w.Write([]byte("ready\n"))
}

// serveStatus is GET /status (agents' token): Status as JSON.
func (g *Gateway) serveStatus(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "GET only", http.StatusMethodNotAllowed)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(g.Status(ctx))
}
