package mcpserver

import (
	"encoding/json"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/rpa-dev/rpa/internal/serve/mrtr"
)

// The MCP specification (basic/utilities/cancellation) says that a
// receiver of notifications/cancelled SHOULD NOT send a response for the
// cancelled request. The go-sdk cancels the handler's context but still
// writes whatever the handler returns, so each transport drops that
// answer itself: StdioTransport in its connection, Streamable HTTP with
// dropCancelled below, the WebSocket link in package connect.

// cancelKey names one request of one Streamable HTTP session.
func cancelKey(session string, id jsonrpc.ID) string {
	raw, _ := json.Marshal(id.Raw())
	return session + "\x00" + string(raw)
}

// httpCalls tracks the POSTs of calls in flight per session, so that a
// notifications/cancelled arriving in another POST can silence the
// answer of the call it names.
type httpCalls struct {
	mu    sync.Mutex
	calls map[string]*silencer
}

// dropCancelled wraps the SDK's Streamable HTTP handler: a POSTed call
// writes through a silencer, and a POSTed notifications/cancelled
// silences the call it names before the SDK sees it, so nothing more of
// that call (its answer, later progress) reaches the client; its stream
// then ends empty.
func (hc *httpCalls) dropCancelled(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		session := r.Header.Get("Mcp-Session-Id")
		if r.Method != http.MethodPost || r.Body == nil || session == "" {
			next.ServeHTTP(w, r)
			return
		}
		body, ok := mrtr.HoldBody(w, r)
		if !ok {
			return
		}
		msg, derr := jsonrpc.DecodeMessage(body)
		req, ok := msg.(*jsonrpc.Request)
		if derr != nil || !ok {
			next.ServeHTTP(w, r)
			return
		}
		if !req.IsCall() {
			if req.Method == "notifications/cancelled" {
				if id, ok := CancelledID(req.Params); ok {
					hc.mu.Lock()
					sl := hc.calls[cancelKey(session, id)]
					hc.mu.Unlock()
					if sl != nil {
						sl.silence()
					}
				}
			}
			next.ServeHTTP(w, r)
			return
		}
		key := cancelKey(session, req.ID)
		sl := &silencer{ResponseWriter: w}
		hc.mu.Lock()
		if hc.calls == nil {
			hc.calls = map[string]*silencer{}
		}
		hc.calls[key] = sl
		hc.mu.Unlock()
		defer func() {
			hc.mu.Lock()
			if hc.calls[key] == sl {
				delete(hc.calls, key)
			}
			hc.mu.Unlock()
		}()
		next.ServeHTTP(sl, r)
	})
}

// silencer passes writes through until silenced, then swallows them.
type silencer struct {
	http.ResponseWriter
	mu     sync.Mutex
	silent bool
}

func (s *silencer) silence() {
	s.mu.Lock()
	s.silent = true
	s.mu.Unlock()
}

func (s *silencer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.silent {
		return len(p), nil
	}
	return s.ResponseWriter.Write(p)
}

// Flush passes through (the SDK streams SSE events).
func (s *silencer) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.ResponseWriter.(http.Flusher); ok && !s.silent {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (s *silencer) Unwrap() http.ResponseWriter { return s.ResponseWriter }
