package gateway

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RunURIPrefix starts the URI of a kept answer (the run resources of PROTOCOL.md use the same
// scheme): rpa://runs/ID, where ID is the run id the desktop's result names (structuredContent
// "runId") or else the gateway's request id of the call ("gw-…").
const RunURIPrefix = "rpa://runs/"

// RunURI is the resource URI of a kept answer.
func RunURI(id string) string { return RunURIPrefix + id }

// LateResult is one kept answer: a desktop answered a call after the agent that made it was
// gone (its session was lost, or the gateway restarted in between), so the agent can fetch it
// later as the resource RunURI(ID) (listed by resources/list; read with resources/read).
type LateResult struct {
	ID     string          `json:"id"`               // run id, else CallID
	CallID string          `json:"callId"`           // the gateway's request id
	Device string          `json:"deviceId"`         // the desktop that answered
	Tool   string          `json:"tool,omitempty"`   // unknown after a gateway restart
	At     time.Time       `json:"at"`               // when the answer arrived
	Result json.RawMessage `json:"result,omitempty"` // the CallToolResult, as sent
	Error  *jsonrpc.Error  `json:"error,omitempty"`  // or the JSON-RPC error
}

// lateStore keeps at most max LateResults for at most ttl, oldest evicted first.
type lateStore struct {
	max int
	ttl time.Duration

	mu    sync.Mutex
	order []string // ids, oldest first
	byID  map[string]*LateResult
	alias map[string]string // call id → id
}

func newLateStore(max int, ttl time.Duration) *lateStore {
	return &lateStore{max: max, ttl: ttl, byID: map[string]*LateResult{}, alias: map[string]string{}}
}

// put stores r and returns the ids evicted to make room (or expired).
func (s *lateStore) put(r *LateResult, now time.Time) (evicted []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.byID[r.ID]; dup {
		return nil
	}
	for len(s.order) > 0 && (len(s.order) >= s.max || now.Sub(s.byID[s.order[0]].At) > s.ttl) {
		old := s.byID[s.order[0]]
		delete(s.byID, old.ID)
		delete(s.alias, old.CallID)
		evicted = append(evicted, old.ID)
		s.order = s.order[1:]
	}
	s.byID[r.ID] = r
	s.alias[r.CallID] = r.ID
	s.order = append(s.order, r.ID)
	return evicted
}

// get finds a kept answer by run id or call id.
func (s *lateStore) get(id string) (*LateResult, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.byID[id]; ok {
		return r, true
	}
	if real, ok := s.alias[id]; ok {
		return s.byID[real], true
	}
	return nil, false
}

// Late returns the kept answer with this run id or call id.
func (g *Gateway) Late(id string) (LateResult, bool) {
	r, ok := g.late.get(id)
	if !ok {
		return LateResult{}, false
	}
	return *r, true
}

// keepLate stores a desktop's answer nobody is waiting for and lists it as a resource: only for
// a call id this gateway (an earlier process of it, or a replica of its cluster) issued
// (callids.go), and only the call's first answer (answered.go: an answer its caller got, or one
// kept already, makes this one a second). The answer is listed under the run id it names when
// that run id is its desktop's (claimRun: another desktop cannot take it over), else under the
// call id.
func (g *Gateway) keepLate(device, tool, callID string, resp *jsonrpc.Response) {
	if !g.ids.valid(callID) {
		g.log.Warn("dropping an answer to a call id this gateway never issued", "device", device, "id", fmt.Sprintf("%.100q", callID))
		return
	}
	if !g.answered.first(callID) {
		g.log.Warn("dropping a second answer to a call (the first one counts)", "device", device, "id", callID)
		return
	}
	g.keepAnswer(device, tool, callID, resp)
}

// keepAnswer is keepLate for the first answer of a call, taken by the code that made it or held
// it, which keeps it because its agent is gone.
func (g *Gateway) keepAnswer(device, tool, callID string, resp *jsonrpc.Response) {
	g.answered.first(callID)
	if _, dup := g.late.get(callID); dup {
		g.log.Debug("dropping a second answer to a call (kept already)", "device", device, "id", callID)
		return
	}
	r := &LateResult{ID: callID, CallID: callID, Device: device, Tool: tool, At: time.Now().UTC(), Result: resp.Result}
	if resp.Error != nil {
		var we *jsonrpc.Error
		if e, ok := resp.Error.(*jsonrpc.Error); ok {
			we = e
		} else {
			we = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: resp.Error.Error()}
		}
		r.Error = we
	}
	var res struct {
		StructuredContent struct {
			RunID string `json:"runId"`
		} `json:"structuredContent"`
	}
	o, owned := g.ownerOf(callID)
	if json.Unmarshal(resp.Result, &res) == nil && validRunID(res.StructuredContent.RunID) && device != "" {
		// The run id names the same agent's call, if it is this desktop's.
		if g.claimRun(res.StructuredContent.RunID, device, o, owned) {
			r.ID = res.StructuredContent.RunID
		}
	}
	g.storeLate(r, true)
}

// storeLate keeps r in memory and lists it as a resource; with share, in a cluster, it also goes
// to the bucket the other replicas read it from.
func (g *Gateway) storeLate(r *LateResult, share bool) {
	evicted := g.late.put(r, time.Now())
	uris := make([]string, len(evicted))
	for i, id := range evicted {
		uris[i] = RunURI(id)
	}
	if len(uris) > 0 {
		g.srv.RemoveResources(uris...)
	}
	name := "late answer of " + r.CallID
	if r.Tool != "" {
		name = "late answer of " + r.Tool + " on " + r.Device
	}
	g.srv.AddResource(&mcp.Resource{URI: RunURI(r.ID), Name: r.ID, Title: name, MIMEType: "application/json",
		Description: "A desktop's answer that arrived after its agent's session was gone (kept in memory for a while)."}, g.readLate)
	if share {
		g.log.Info("kept a late answer", "device", r.Device, "id", r.ID)
		if g.rep != nil {
			go g.rep.late.put(r)
		}
	}
	g.stateChanged()
}

// validRunID accepts a run id fit for a URI path segment.
func validRunID(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// addLateResources serves rpa://runs/... : a kept answer by run id or call id, else the run
// resources of the desktops (PROTOCOL.md, "Runs"), read from the desktop that ran the call when
// the gateway knows it, else from the first connected desktop that has the resource; only to
// the agent that made the call (owners.go).
func (g *Gateway) addLateResources() {
	g.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: RunURIPrefix + "{+path}", Name: "runs",
		MIMEType: "application/json", Description: "Runs of the connected desktops (record, report, screenshots), and answers of calls whose agent was gone when the desktop answered, by run id or the gateway's call id."}, g.readLate)
}

func (g *Gateway) readLate(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	path, ok := strings.CutPrefix(req.Params.URI, RunURIPrefix)
	if !ok {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	id, _, _ := strings.Cut(path, "/")
	if !g.mayUse(req, id) { // owners.go: another agent's run reads as one that does not exist
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	r, found := g.late.get(id)
	if found && !strings.Contains(path, "/") && (id == r.CallID || r.ID == r.CallID) {
		raw, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(raw)}}}, nil
	}
	// A run of a desktop: ask the one that ran it first, then the others.
	var ds []*device
	g.mu.Lock()
	if found {
		if d := g.devices[r.Device]; d != nil {
			ds = append(ds, d)
		}
	}
	ids := make([]string, 0, len(g.devices))
	for did := range g.devices {
		ids = append(ids, did)
	}
	sort.Strings(ids)
	for _, did := range ids {
		if d := g.devices[did]; len(ds) == 0 || d != ds[0] {
			ds = append(ds, d)
		}
	}
	g.mu.Unlock()
	for _, d := range ds {
		resp, err := d.request(ctx, "resources/read", map[string]any{"uri": req.Params.URI}, nil)
		if err != nil || resp.Error != nil {
			continue
		}
		var res mcp.ReadResourceResult
		if json.Unmarshal(resp.Result, &res) == nil && len(res.Contents) > 0 {
			return &res, nil
		}
	}
	if found { // the desktop is gone: the kept answer is all there is
		raw, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(raw)}}}, nil
	}
	return nil, mcp.ResourceNotFoundError(req.Params.URI)
}

// postHeader carries, from the /mcp wrapper to the tool handler (through the SDK's
// RequestExtra.Header), the key of the HTTP POST a call came in; a client's own value is
// replaced.
const postHeader = "X-Rpa-Gateway-Post"

// posts maps POST keys to their request contexts, so that an answer arriving after its POST went
// away (the agent's connection dropped) is known to be undeliverable and is kept instead.
type posts struct{ m sync.Map } // key → context.Context

// bind gives every POST a fresh key in postHeader for as long as it is served (plus a minute:
// a call may start a moment after its POST ended).
func (p *posts) bind(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(postHeader)
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		key := rand.Text()
		r = r.Clone(r.Context())
		r.Header.Set(postHeader, key)
		p.m.Store(key, r.Context())
		defer time.AfterFunc(time.Minute, func() { p.m.Delete(key) })
		next.ServeHTTP(w, r)
	})
}

// gone reports whether the POST a call came in has ended (false when unknown).
func (p *posts) gone(req *mcp.CallToolRequest) bool {
	if req == nil || req.Extra == nil || req.Extra.Header == nil {
		return false
	}
	v, ok := p.m.Load(req.Extra.Header.Get(postHeader))
	return ok && v.(context.Context).Err() != nil
}

// cancelledIDs remembers (the last 1024) request ids the gateway cancelled for their agent, so
// that an answer still sent for one is dropped rather than kept as a late answer.
type cancelledIDs struct {
	mu    sync.Mutex
	set   map[string]bool
	order []string
}

func (s *cancelledIDs) add(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.set == nil {
		s.set = map[string]bool{}
	}
	if s.set[id] {
		return
	}
	if len(s.order) >= 1024 {
		delete(s.set, s.order[0])
		s.order = s.order[1:]
	}
	s.set[id] = true
	s.order = append(s.order, id)
}

func (s *cancelledIDs) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set[id]
}
