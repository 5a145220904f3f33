package httpauth

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"sync"
)

// Sessions ties every Streamable HTTP session to the bearer token of the
// request that opened it (the initialize whose answer carried its
// Mcp-Session-Id header): a request naming the session with any other
// token, or none, is answered exactly as a request naming a session that
// does not exist, HTTP 404 "session not found" (MCP Streamable HTTP,
// "Session Management"), before any handler behind it looks at the
// session. Sessions are thus not shared between callers even when one
// caller learns another's session ID (from a log, a proxy, a shared
// screen): it can neither call in it, nor read its event stream, nor
// cancel its calls, nor end it, nor learn that it exists.
//
// go-sdk's StreamableHTTPHandler binds sessions to auth.TokenInfo.UserID
// itself, but answers a mismatch with 403 "session user mismatch" (which
// tells that the session exists) and only after the handlers wrapped
// around it have acted on the request. Sessions answers first and as the
// SDK answers an unknown session.
//
// Only tokens are compared (as SHA-256 digests, in constant time), so
// without tokens every caller is one and Sessions only answers 404 for
// IDs it never saw. The zero value is ready to use.
type Sessions struct {
	// Live reports whether the session with this ID still exists (the MCP
	// server's sessions); sessions that no longer do are forgotten now and
	// then. Nil: none is forgotten.
	Live func(id string) bool
	// Stateless reports whether a request belongs to a protocol without
	// sessions (MCP 2026-07-28): its Mcp-Session-Id header, if any, is
	// dropped instead of checked (the SDK ignores it on such requests; the
	// handlers around it must not act on it either). Nil: none does.
	Stateless func(r *http.Request) bool

	mu    sync.Mutex
	m     map[string][sha256.Size]byte // session ID → digest of its token
	added int
}

// sessionHeader is the Streamable HTTP session header.
const sessionHeader = "Mcp-Session-Id"

// sweepEvery is how many new sessions pass between two sweeps of ended
// ones.
const sweepEvery = 64

// Guard wraps next (the Streamable HTTP endpoint, behind the check of the
// token itself): a request with an Mcp-Session-Id header passes only when
// that session was opened through Guard with the same bearer token;
// otherwise it gets 404.
func (s *Sessions) Guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, _ := BearerToken(r)
		sum := sha256.Sum256([]byte(tok))
		if s.Stateless != nil && s.Stateless(r) {
			if r.Header.Get(sessionHeader) != "" {
				r = r.Clone(r.Context())
				r.Header.Del(sessionHeader)
			}
			next.ServeHTTP(w, r)
			return
		}
		if id := r.Header.Get(sessionHeader); id != "" {
			s.mu.Lock()
			want, known := s.m[id]
			s.mu.Unlock()
			if !known || subtle.ConstantTimeCompare(want[:], sum[:]) != 1 {
				// The SDK's own answer to an unknown session, word for word.
				http.Error(w, "session not found", http.StatusNotFound)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		// An initialize that opens a session: its ID is in the answer's
		// header, recorded as the header goes out (the client may use it
		// before the handler returns).
		ow := &openWriter{ResponseWriter: w, open: func(id string) { s.add(id, sum) }}
		next.ServeHTTP(ow, r)
		ow.opened() // a handler that wrote nothing: net/http sends the header now
	})
}

// openWriter calls open with the session ID of an answer's header, once,
// before the header is sent.
type openWriter struct {
	http.ResponseWriter
	open func(id string)
	sent bool
}

func (w *openWriter) opened() {
	if w.sent {
		return
	}
	w.sent = true
	if id := w.Header().Get(sessionHeader); id != "" {
		w.open(id)
	}
}

func (w *openWriter) WriteHeader(code int) {
	w.opened()
	w.ResponseWriter.WriteHeader(code)
}

func (w *openWriter) Write(p []byte) (int, error) {
	w.opened()
	return w.ResponseWriter.Write(p)
}

// Flush passes through (the SDK streams SSE events).
func (w *openWriter) Flush() {
	w.opened()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *openWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// add records the session id as opened with the token whose digest is
// sum, and every sweepEvery sessions forgets the ended ones.
func (s *Sessions) add(id string, sum [sha256.Size]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][sha256.Size]byte{}
	}
	if _, ok := s.m[id]; ok {
		return // an ID is never given twice; keep the first owner
	}
	s.m[id] = sum
	if s.added++; s.added%sweepEvery != 0 || s.Live == nil {
		return
	}
	for k := range s.m {
		if k != id && !s.Live(k) {
			delete(s.m, k)
		}
	}
}

// Len is the number of sessions Sessions knows now (ended ones not yet
// forgotten included).
func (s *Sessions) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}
