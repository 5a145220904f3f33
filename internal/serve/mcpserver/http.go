package mcpserver

import (
	"context"
	"crypto/rand"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/httpauth"
	"github.com/rpa-dev/rpa/internal/serve/mrtr"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
)

// DefaultHTTPAddr is where `rpa serve --http` listens when given only a
// port or nothing: loopback.
const DefaultHTTPAddr = "127.0.0.1:8765"

// HTTPHandler returns the Streamable HTTP endpoint of the server, in both
// protocol eras (mrtr.StreamableHandler): stateful sessions for 2025-11-25 and
// older clients (list_changed and progress reach them, elicitation during
// a call), stateless requests for 2026-07-28 clients. With tokens, every
// request must carry `Authorization: Bearer TOKEN` with one of them or
// gets 401 with a WWW-Authenticate challenge; each token is one caller
// (runs.Owner), and a session belongs to the token that opened it: a
// request naming it with another token gets 404, as a session that does
// not exist (httpauth.Sessions). The SDK's DNS-rebinding
// protection (a loopback request with a foreign Host header gets 403)
// stays on. A session ends after Options.SessionIdle without a request in
// flight. A call whose POST goes away before its answer (the client
// disconnected) is cancelled: its flow stops and its profile is freed
// (the SDK ties handlers to HTTP requests only for 2026-07-28 sessions,
// and without an event store such a stream cannot be resumed anyway). A
// call of a method the server does not have gets a JSON-RPC -32601 answer
// (HTTP 200), as over stdio, where the SDK would answer HTTP 400 with the
// text "JSON RPC not handled". A request with a foreign Origin header gets
// 403 whatever its token (see OriginGuard; Options.AllowOrigins names more
// origins). A call the client cancelled (notifications/cancelled) gets no
// answer: its event stream ends empty (MCP: SHOULD NOT respond).
func (s *Server) HTTPHandler(tokens ...string) http.Handler {
	// tasks.LiftHTTP: a tools/call's 2025-11-25 `task` param reaches the
	// tasks middleware (the SDK's params type has no field for it).
	// listenHTTP: a session's GET stream carries its tasks' status
	// (tasknotify.go).
	var h = s.listenHTTP(tasks.LiftHTTP(mrtr.StreamableHandler(func(*http.Request) *mcp.Server { return s.srv }, &mcp.StreamableHTTPOptions{
		Logger:         s.log,
		SessionTimeout: max(s.opts.SessionIdle, 0),
	})))
	h = s.httpPeers.track(h) // owner.go: a reconnecting client finds its profile
	h = s.httpCalls.dropCancelled(h)
	h = s.httpReqs.bind(h)
	h = mrtr.MethodNotFound(h)
	h = mrtr.CheckHTTP(h) // params the SDK cannot decode: -32602 naming the field, not quoted back
	// A session answers only the token that opened it (404 to any other),
	// before any wrapper above acts on its ID.
	sessions := &httpauth.Sessions{Live: s.liveSession, Stateless: mrtr.StatelessRequest}
	h = sessions.Guard(h)
	if tokens = slices.DeleteFunc(slices.Clone(tokens), func(t string) bool { return t == "" }); len(tokens) > 0 {
		h = requireBearers(tokens, h)
	}
	return OriginGuard(s.opts.AllowOrigins, h)
}

// RequireBearer wraps next so that only requests carrying `Authorization:
// Bearer token` pass (constant-time comparison; the scheme is matched
// without case, see BearerToken); others get 401.
func RequireBearer(token string, next http.Handler) http.Handler {
	return requireBearers([]string{token}, next)
}

// requireBearers is RequireBearer for any of tokens (each compared in
// constant time, all of them always).
func requireBearers(tokens []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := BearerToken(r)
		match := false
		for _, t := range tokens {
			match = tokenEqual(got, t) || match
		}
		if !ok || !match {
			w.Header().Set("WWW-Authenticate", `Bearer realm="rpa"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// liveSession reports whether the MCP session with this ID still exists.
func (s *Server) liveSession(id string) bool {
	for ss := range s.srv.Sessions() {
		if ss.ID() == id {
			return true
		}
	}
	return false
}

// HTTPAddr completes a --http value: "" is DefaultHTTPAddr, ":PORT" or
// "PORT" binds loopback on that port (pass "0.0.0.0:PORT" to listen on
// every interface), and anything else is kept.
func HTTPAddr(v string) string {
	switch {
	case v == "":
		return DefaultHTTPAddr
	case strings.HasPrefix(v, ":"):
		return "127.0.0.1" + v
	case !strings.Contains(v, ":"):
		return net.JoinHostPort("127.0.0.1", v)
	}
	return v
}

// IsLoopback reports whether addr's host is a loopback address or
// "localhost".
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// httpRequestHeader carries, from our HTTP wrapper to the tool handler
// (through the SDK's RequestExtra.Header), the key of the POST a call
// came in. A client's own value is replaced.
const httpRequestHeader = "X-Rpa-Request"

// httpRequests maps the keys of POST requests to their contexts, so a
// call can stop when its request goes away.
type httpRequests struct{ m sync.Map } // key → context.Context

// keepRequest is how long a finished POST stays known: a call published
// by it may start a moment after the POST ended (the client dropped it
// at once).
const keepRequest = time.Minute

// bind wraps next so that every POST carries a fresh key in
// httpRequestHeader.
func (rs *httpRequests) bind(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(httpRequestHeader)
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		key := rand.Text()
		r = r.Clone(r.Context())
		r.Header.Set(httpRequestHeader, key)
		rs.m.Store(key, r.Context())
		defer time.AfterFunc(keepRequest, func() { rs.m.Delete(key) })
		next.ServeHTTP(w, r)
	})
}

// onGone calls stop when the HTTP request a call came in ends (the client
// went away, or the answer was sent); the returned function unbinds it.
// Calls that did not come over HTTP are left alone.
func (rs *httpRequests) onGone(req *mcp.CallToolRequest, stop func()) func() bool {
	if req == nil || req.Extra == nil || req.Extra.Header == nil {
		return func() bool { return false }
	}
	v, ok := rs.m.Load(req.Extra.Header.Get(httpRequestHeader))
	if !ok {
		return func() bool { return false }
	}
	return context.AfterFunc(v.(context.Context), stop)
}
