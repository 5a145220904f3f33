package gateway

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rpa-dev/rpa/internal/link/cluster"
	"github.com/rpa-dev/rpa/internal/serve/mrtr"
)

// SessionBucket is the key-value bucket of agent sessions in a cluster: for each 2025-11-25
// Streamable HTTP session (Mcp-Session-Id) started on any replica, what its initialize said
// (protocol version, the client's capabilities and info), keyed by the SHA-256 of the session
// id: the id itself, a credential, is never stored. A request of that session landing on
// another replica (a load balancer without stickiness) continues the session there: the
// replica opens it with that state. Entries expire AgentIdle after their last use.
const SessionBucket = "rpa_sessions"

// sessionRecord is what SessionBucket keeps of a session.
type sessionRecord struct {
	Initialize *mcp.InitializeParams `json:"initialize"`
	Version    string                `json:"protocolVersion"`
	Replica    string                `json:"replica"` // where it started (shown only)
}

// sessionShare carries 2025-11-25 sessions across replicas (cluster only).
type sessionShare struct {
	r  *replica
	kv atomic.Pointer[jetstream.KeyValue]

	next http.Handler // the SDK's handlers (set by wrap)

	// gate keeps new sessions from being opened while a session of another replica is (adopt):
	// the SDK takes a new session's id from the server's one GetSessionID, which gives the
	// adopted session's id (pending) only then.
	gate    sync.RWMutex
	pending atomic.Pointer[adoption]

	mu      sync.Mutex
	touched map[string]time.Time // last write of each local session's record
}

// adoption is a session being adopted: its id, and the replica it started on (its record keeps
// that one, not the adopting replica).
type adoption struct{ id, origin string }

func sessionKey(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

func (s *sessionShare) bucket(ctx context.Context) jetstream.KeyValue {
	if kv := s.kv.Load(); kv != nil {
		return *kv
	}
	if s.r.reg.Load() == nil {
		return nil
	}
	ttl := s.r.g.opts.AgentIdle
	if ttl <= 0 {
		ttl = 24 * time.Hour
	}
	kv, err := s.r.n.Bucket(ctx, SessionBucket, cluster.BucketOptions{TTL: ttl, Description: "rpa gateway: agent sessions (by digest)"})
	if err != nil {
		s.r.log.Warn("agent sessions stay on their replica: their bucket is not available", "err", err)
		return nil
	}
	s.kv.Store(&kv)
	return kv
}

// record is a receiving middleware: it stores a session's state when its initialize succeeds,
// and refreshes it (at most every quarter of its TTL) as the session is used.
func (s *sessionShare) record(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if err != nil || !ok || ss.ID() == "" {
			return res, err
		}
		id := ss.ID()
		s.mu.Lock()
		last, seen := s.touched[id]
		refresh := method == "initialize" || time.Since(last) > max(s.r.g.opts.AgentIdle/4, time.Minute)
		if refresh {
			s.touched[id] = time.Now()
		}
		s.mu.Unlock()
		if refresh && !seen {
			go func() { // forgotten when the session ends here
				_ = ss.Wait()
				s.mu.Lock()
				delete(s.touched, id)
				s.mu.Unlock()
			}()
		}
		if !refresh || ss.InitializeParams() == nil {
			return res, err
		}
		version := ""
		if method == "initialize" {
			// The version agreed (the result may be wrapped: tasks adds its capability).
			var ir struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if b, err := json.Marshal(res); err == nil && json.Unmarshal(b, &ir) == nil {
				version = ir.ProtocolVersion
			}
		}
		rec := sessionRecord{Initialize: ss.InitializeParams(), Version: version, Replica: s.r.name}
		if p := s.pending.Load(); p != nil && p.id == id && p.origin != "" {
			rec.Replica = p.origin // adopt's replayed initialize: the session started there
		}
		if method == "initialize" {
			// Stored before the client has the answer: its next request may land anywhere.
			s.put(id, rec)
		} else {
			go s.put(id, rec)
		}
		return res, err
	}
}

func (s *sessionShare) put(id string, rec sessionRecord) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kv := s.bucket(ctx)
	if kv == nil {
		return
	}
	if rec.Version == "" {
		// A later request: keep the version the first write stored.
		if e, err := kv.Get(ctx, sessionKey(id)); err == nil {
			var old sessionRecord
			if json.Unmarshal(e.Value(), &old) == nil {
				rec.Version, rec.Replica = old.Version, old.Replica
			}
		}
	}
	b, _ := json.Marshal(rec)
	if _, err := kv.Put(ctx, sessionKey(id), b); err != nil {
		s.r.log.Debug("cannot share an agent session", "err", err)
	}
}

// wrap serves requests of sessions this replica does not hold (started on another replica)
// by continuing them here (adopt); everything goes to next (the SDK's handlers).
func (s *sessionShare) wrap(next http.Handler) http.Handler {
	s.next = next
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("Mcp-Session-Id")
		if mrtr.StatelessRequest(r) {
			next.ServeHTTP(w, r)
			return
		}
		if id == "" {
			if r.Method == http.MethodPost { // it may open a session: not while one is adopted
				s.gate.RLock()
				defer s.gate.RUnlock()
			}
			next.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodPost && !s.shareAnswers(w, r, id) {
			return // every answer in it was for another replica (sessions_ids.go)
		}
		w = &tagWriter{ResponseWriter: w, tag: s.r.name} // requests to the client carry our tag
		if !s.held(id) {
			s.adopt(r.Context(), id)
		}
		next.ServeHTTP(w, r) // ours (or adopted), or unknown: the SDK answers (404 for unknown)
		if r.Method == http.MethodDelete {
			go s.forget(id)
		}
	})
}

// held reports whether the SDK's handler here holds the session.
func (s *sessionShare) held(id string) bool {
	for ss := range s.r.g.srv.Sessions() {
		if ss.ID() == id {
			return true
		}
	}
	return false
}

// sessionID is the server's GetSessionID: the id of the session being adopted, else a new one.
func (s *sessionShare) sessionID() string {
	if p := s.pending.Load(); p != nil {
		return p.id
	}
	return rand.Text()
}

// adopt opens, here, a session another replica started (nothing when the cluster does not know
// it), through the SDK's own handler: an initialize with the params the client sent at its start
// and its notifications/initialized, answered to nobody, under the session's id. The session is
// then the SDK's as one started here: every method of the server (tasks/*), its idle timeout,
// DELETE.
func (s *sessionShare) adopt(ctx context.Context, id string) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	kv := s.bucket(ctx)
	if kv == nil {
		return
	}
	e, err := kv.Get(ctx, sessionKey(id))
	if err != nil {
		if !errors.Is(err, jetstream.ErrKeyNotFound) {
			s.r.log.Debug("cannot look an agent session up", "err", err)
		}
		return
	}
	var rec sessionRecord
	if json.Unmarshal(e.Value(), &rec) != nil || rec.Initialize == nil {
		return
	}
	init := *rec.Initialize
	init.ProtocolVersion = cmp.Or(rec.Version, init.ProtocolVersion)
	s.gate.Lock()
	defer s.gate.Unlock()
	if s.held(id) { // adopted meanwhile
		return
	}
	s.pending.Store(&adoption{id: id, origin: rec.Replica})
	defer s.pending.Store(nil)
	post := func(sid string, msg any) *httptest.ResponseRecorder {
		body, _ := json.Marshal(msg)
		req, _ := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", init.ProtocolVersion)
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		w := httptest.NewRecorder()
		s.next.ServeHTTP(w, req)
		return w
	}
	w := post("", map[string]any{"jsonrpc": "2.0", "id": "rpa-adopt", "method": "initialize", "params": &init})
	if got := w.Header().Get("Mcp-Session-Id"); w.Code != http.StatusOK || got != id {
		s.r.log.Warn("cannot continue an agent session started on another replica", "status", w.Code, "answer", strings.TrimSpace(w.Body.String()))
		return
	}
	post(id, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	s.r.log.Info("continuing an agent session started on another replica", "started_on", rec.Replica)
}

// forget removes a session the client ended (DELETE) from the cluster.
func (s *sessionShare) forget(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if kv := s.bucket(ctx); kv != nil {
		_ = kv.Delete(ctx, sessionKey(id))
	}
}

// answersSubject carries, to every replica, the client's answers to requests a session sent
// (elicitation, sampling during a call): the request may have gone out from another replica
// than the one the answer's POST reached. Only the session's digest travels.
const answersSubject = "rpa.sess."

// shareAnswers routes a POST that holds only JSON-RPC responses (the client's answers to the
// session's requests): each goes to the replica whose request it answers, named in its id
// (sessions_ids.go); the ones for this replica go on in the POST. It reports false, having
// answered 202, when none is left for this replica.
func (s *sessionShare) shareAnswers(w http.ResponseWriter, r *http.Request, id string) bool {
	// A body past the SDK's bound reaches the SDK as such (HTTP 413 naming the bound).
	body, fits := mrtr.PeekBody(r)
	if !fits || !onlyResponses(body) {
		return true
	}
	left, any := s.routeAnswers(body, id)
	if !any {
		w.WriteHeader(http.StatusAccepted)
		return false
	}
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(left)), int64(len(left))
	return true
}

// onlyResponses reports whether a POST body is JSON-RPC responses only (one, or a batch).
func onlyResponses(body []byte) bool {
	body = bytes.TrimSpace(body)
	var raws []json.RawMessage
	if len(body) > 0 && body[0] == '[' {
		if json.Unmarshal(body, &raws) != nil {
			return false
		}
	} else {
		raws = []json.RawMessage{body}
	}
	for _, raw := range raws {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return false
		}
		if _, ok := msg.(*jsonrpc.Response); !ok {
			return false
		}
	}
	return len(raws) > 0
}

// onAnswers delivers another replica's shared answers to the session here, if any holds it.
func (s *sessionShare) onAnswers(m *nats.Msg) {
	if m.Header.Get(hdrReplica) == s.r.name || s.next == nil {
		return
	}
	if to := m.Header.Get(hdrTarget); to != "" && to != s.r.name {
		return
	}
	key := strings.TrimPrefix(m.Subject, answersSubject)
	id := ""
	for ss := range s.r.g.srv.Sessions() {
		if ss.ID() != "" && sessionKey(ss.ID()) == key {
			id = ss.ID()
			break
		}
	}
	if id == "" {
		return
	}
	req, err := http.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(m.Data))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	s.next.ServeHTTP(httptest.NewRecorder(), req)
}
