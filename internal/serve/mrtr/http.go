package mrtr

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StreamableHandler serves one MCP server over Streamable HTTP in both
// protocol eras at one endpoint:
//
//   - requests whose Mcp-Protocol-Version header is 2026-07-28 or later
//     (server/discover and every request after it, SEP-2575) go to the
//     SDK's stateless handler, the only one that speaks that revision: no
//     Mcp-Session-Id, each POST a request of its own; questions travel as
//     input requests (multi-round-trip, Table) or as task input
//     (package tasks);
//   - everything else (initialize, requests of a 2025-11-25 or older
//     session, its GET stream and DELETE) goes to the stateful handler:
//     sessions, server-to-client requests (elicitation, sampling) during a
//     call, list_changed on the GET stream.
//
// The SDK's stateful handler alone answers a 2026-07-28 client's
// server/discover with the older versions only, and the official Go
// client then falls back to initialize at 2025-11-25; its stateless
// handler alone cannot keep a 2025-11-25 session. opts configures both
// (Stateless is set for the one and cleared for the other); a stateless
// call is cancelled when its POST goes away (PropagateRequestCancellation:
// nothing else can cancel it).
func StreamableHandler(getServer func(*http.Request) *mcp.Server, opts *mcp.StreamableHTTPOptions) http.Handler {
	var o mcp.StreamableHTTPOptions
	if opts != nil {
		o = *opts
	}
	stateful, stateless := o, o
	stateful.Stateless, stateless.Stateless = false, true
	stateless.SessionTimeout = 0 // no sessions to time out
	// The POST is the whole request: when it goes away the call is cancelled.
	stateless.PropagateRequestCancellation = true
	return &eraHandler{
		stateful:  mcp.NewStreamableHTTPHandler(getServer, &stateful),
		stateless: mcp.NewStreamableHTTPHandler(getServer, &stateless),
	}
}

type eraHandler struct {
	stateful, stateless http.Handler
}

func (h *eraHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if StatelessRequest(r) {
		h.stateless.ServeHTTP(w, r)
		return
	}
	h.stateful.ServeHTTP(w, r)
}

// StatelessRequest reports whether r is a request of the stateless
// protocol (2026-07-28 and later): a POST whose Mcp-Protocol-Version
// header names such a version. Versions are dates, so they compare as
// strings (as the SDK compares them).
func StatelessRequest(r *http.Request) bool {
	return r.Method == http.MethodPost && r.Header.Get("Mcp-Protocol-Version") >= Protocol
}
