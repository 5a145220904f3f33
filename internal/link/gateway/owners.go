package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/httpauth"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/lang"
)

// Runs through the gateway belong to the agent that made the call (runs.Owner, kind
// "gateway": its session at /mcp and the bearer token it presented). A desktop records every
// link call as its gateway's, so the gateway keeps the rule for its agents: it remembers which
// agent made each call it forwarded (by the gateway's call id, and by the run id the answer
// named), and only that agent lists and reads the run's resources, its kept late answer, or
// resumes it (resumeRunId). An answer kept from a call of an earlier gateway process has no
// known agent: every agent holding the gateway's token may read it.

// ResumeRunArg is the workflow argument that resumes a failed run (PROTOCOL.md, "Resume").
const ResumeRunArg = "resumeRunId"

// maxRunOwners bounds how many calls' owners the gateway remembers (oldest forgotten first).
const maxRunOwners = 8192

// runOwners remembers the agent of each forwarded call, by call id and run id, for LateTTL, and
// the desktop that named each run id.
type runOwners struct {
	ttl   time.Duration
	mu    sync.Mutex
	m     map[string]ownerAt
	order []string
}

type ownerAt struct {
	ownerRec
	at time.Time
}

// ownerRec is what is known of a call or run id: its agent (unless Unowned), and for a run id
// the desktop that named it first. In a cluster it is the value in OwnersBucket.
type ownerRec struct {
	runs.Owner
	// RunDevice is, for a run id, the desktop whose answer named it first: no other desktop's
	// answer can take the run id (and its agent's reading rights) over.
	RunDevice string `json:"runDevice,omitempty"`
	// Unowned: a run id whose agent is not known (named by an answer to an earlier gateway
	// process's call).
	Unowned bool `json:"unowned,omitempty"`
}

func (r *runOwners) set(id string, rec ownerRec, now time.Time) {
	if id == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]ownerAt{}
	}
	if _, ok := r.m[id]; !ok {
		r.order = append(r.order, id)
	}
	r.m[id] = ownerAt{rec, now}
	for len(r.order) > 0 && (len(r.order) > maxRunOwners || now.Sub(r.m[r.order[0]].at) > r.ttl) {
		delete(r.m, r.order[0])
		r.order = r.order[1:]
	}
}

func (r *runOwners) get(id string) (ownerRec, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.m[id]
	if !ok || time.Since(e.at) > r.ttl {
		return ownerRec{}, false
	}
	return e.ownerRec, true
}

// agents knows which agent sessions are open (by digest). In a cluster onOpen (at each request
// of the session) and onClose tell the other replicas (replica_owners.go).
type agents struct {
	mu              sync.Mutex
	open            map[string]bool
	onOpen, onClose func(digest string)
}

func (a *agents) watch(sess *mcp.ServerSession, digest string) {
	if a.onOpen != nil {
		a.onOpen(digest) // (outside a.mu: it may write to the cluster)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.open == nil {
		a.open = map[string]bool{}
	}
	if a.open[digest] {
		return
	}
	a.open[digest] = true
	go func() {
		_ = sess.Wait()
		a.mu.Lock()
		delete(a.open, digest)
		a.mu.Unlock()
		if a.onClose != nil {
			a.onClose(digest)
		}
	}()
}

func (a *agents) live(digest string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.open[digest]
}

// setOwner records o as the agent of call or run id (in a cluster, for every replica).
func (g *Gateway) setOwner(id string, o runs.Owner) { g.setRecord(id, ownerRec{Owner: o}) }

func (g *Gateway) setRecord(id string, rec ownerRec) {
	g.owners.set(id, rec, time.Now())
	if g.rep != nil {
		g.rep.owners.put(id, rec)
	}
}

// record returns what is known of call or run id: recorded here, else (in a cluster) by the
// replica that forwarded it.
func (g *Gateway) record(id string) (ownerRec, bool) {
	if rec, ok := g.owners.get(id); ok {
		return rec, true
	}
	if g.rep != nil {
		return g.rep.owners.get(id)
	}
	return ownerRec{}, false
}

// ownerOf returns the agent of call or run id.
func (g *Gateway) ownerOf(id string) (runs.Owner, bool) {
	rec, ok := g.record(id)
	if !ok || rec.Unowned {
		return runs.Owner{}, false
	}
	return rec.Owner, true
}

// claimRun records run id runID as desktop device's, with agent o (owned: o is known). A run
// id another desktop named first stays that desktop's: false, and nothing is recorded (a
// desktop naming another's run id would otherwise take that run's answer and resources from
// its agent to its own).
func (g *Gateway) claimRun(runID, device string, o runs.Owner, owned bool) bool {
	if prev, ok := g.record(runID); ok && prev.RunDevice != "" && prev.RunDevice != device {
		g.log.Warn("ignoring a run id another desktop named first", "device", device, "run", runID, "first", prev.RunDevice)
		return false
	}
	g.setRecord(runID, ownerRec{Owner: o, RunDevice: device, Unowned: !owned})
	return true
}

// liveAgent reports whether the agent session digest is open: here, or (in a cluster) on any
// replica.
func (g *Gateway) liveAgent(digest string) bool {
	return g.agents.live(digest) || g.rep != nil && g.rep.owners.open(digest)
}

// agentOwner is the owner an agent's request is.
func (g *Gateway) agentOwner(req mcp.Request) runs.Owner {
	o := runs.Owner{Kind: runs.CallerGateway}
	if sess, ok := req.GetSession().(*mcp.ServerSession); ok && sess != nil && sess.ID() != "" {
		// (A stateless request's session ends with it: its token names its agent.)
		o.Session = runs.SessionDigest(sess.ID())
		g.agents.watch(sess, o.Session)
	}
	if ex := req.GetExtra(); ex != nil && ex.Header != nil {
		if tok, ok := httpauth.BearerToken(&http.Request{Header: ex.Header}); ok {
			o.Token = runs.TokenDigest(tok)
		}
	}
	return o
}

// mayUse reports whether the agent of req owns the run or call id: the agent that made the
// call; for an answer kept from an earlier gateway process (no known agent), any agent holding
// the gateway's token.
func (g *Gateway) mayUse(req mcp.Request, id string) bool {
	me := g.agentOwner(req)
	if o, ok := g.ownerOf(id); ok {
		return me.Owns(o, g.liveAgent)
	}
	if _, kept := g.late.get(id); kept {
		return me.Token == runs.TokenDigest(g.opts.Token)
	}
	return false
}

// noteRun records the agent of a call forwarded to desktop device under the run id its answer
// names (claimRun).
func (g *Gateway) noteRun(o runs.Owner, device string, result json.RawMessage) {
	var res struct {
		StructuredContent struct {
			RunID string `json:"runId"`
		} `json:"structuredContent"`
	}
	if json.Unmarshal(result, &res) == nil && validRunID(res.StructuredContent.RunID) {
		g.claimRun(res.StructuredContent.RunID, device, o, true)
	}
}

// checkResume refuses a call resuming a run its agent does not own, in the desktop's words for
// a run that is not held (no existence oracle).
func (g *Gateway) checkResume(req *mcp.CallToolRequest, args map[string]json.RawMessage) error {
	raw, ok := args[ResumeRunArg]
	if !ok {
		return nil
	}
	var id string
	_ = json.Unmarshal(raw, &id)
	if g.mayUse(req, id) {
		return nil
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("invalid argument %q: run %s is not held here: call the tool again without resumeRunId", ResumeRunArg, lang.Echo(id)),
		Data:    json.RawMessage(`{"field":"` + ResumeRunArg + `"}`)}
}

// listOwnRuns keeps, in resources/list, only the run resources the agent owns.
func (g *Gateway) listOwnRuns(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "resources/list" || err != nil {
			return res, err
		}
		lr, ok := res.(*mcp.ListResourcesResult)
		if !ok {
			return res, err
		}
		keep := lr.Resources[:0:0]
		for _, r := range lr.Resources {
			id, isRun := strings.CutPrefix(r.URI, RunURIPrefix)
			if !isRun || g.mayUse(req, id) {
				keep = append(keep, r)
			}
		}
		out := *lr
		out.Resources = keep
		return &out, nil
	}
}
