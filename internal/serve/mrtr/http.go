package mrtr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/lang"
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
// nothing else can cancel it). A request that needs a session sent without
// one (before initialize) is answered -32600 (BeforeInitialize).
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
	if BeforeInitialize(w, r) {
		return
	}
	h.stateful.ServeHTTP(w, r)
}

// BeforeInitialize answers a POST of a 2025-11-25 (or older) request that
// needs a session but has no Mcp-Session-Id (a tools/list before
// initialize) and reports whether it did: HTTP 400 (the transport's
// answer to a request without its session) with the JSON-RPC error -32600
// Invalid Request, "method M is invalid during session initialization".
// The SDK's stateful handler made a session for such a request, kept it,
// and answered with a plain error, which went out as code 0, a code
// JSON-RPC 2.0 (section 5.1) does not define; over stdio the same request
// gets the same -32600 (mcpserver.WithErrorCode). What MCP's lifecycle
// allows before initialize (initialize, ping, notifications, what the
// SDK's session lets through) and a request carrying the 2026-07-28
// per-request _meta go on; so does a body that is not JSON-RPC or is past
// the SDK's size limit (the SDK answers those). A JSON-RPC batch without a
// session is answered the same -32600 (id null): initialize may not be
// part of a batch, and stdio refuses batches with it too; the SDK answered
// it 200 with code 0. The method name is quoted with lang.Echo. r's body
// is left readable.
func BeforeInitialize(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodPost || r.Body == nil || r.Header.Get("Mcp-Session-Id") != "" {
		return false
	}
	body, fits := PeekBody(r)
	if !fits {
		return false
	}
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' && json.Valid(t) {
		// initialize may not be part of a batch (MCP 2025-03-26), so a batch
		// without a session is never served: the SDK answered 200, code 0
		return refuse(w, jsonrpc.ID{}, "Invalid Request: a JSON-RPC batch cannot open a session; send initialize alone first (its answer's Mcp-Session-Id header names the session)")
	}
	msg, err := jsonrpc.DecodeMessage(body)
	req, ok := msg.(*jsonrpc.Request)
	if err != nil || !ok || !req.IsCall() {
		return false
	}
	switch req.Method {
	case "initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "server/discover":
		return false
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(req.Params, &p) == nil && p.Meta["io.modelcontextprotocol/protocolVersion"] != nil {
		return false // the SDK's session lets a request of the per-request protocol through
	}
	return refuse(w, req.ID, fmt.Sprintf("method %s is invalid during session initialization (send initialize first; its answer's Mcp-Session-Id header names the session)", lang.Echo(req.Method)))
}

// refuse answers HTTP 400 with the JSON-RPC error -32600 Invalid Request
// carrying msg for the request id (null when id is the zero ID: a batch
// has none of its own) and reports whether it could.
func refuse(w http.ResponseWriter, id jsonrpc.ID, msg string) bool {
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg}})
	if err != nil {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(b)
	return true
}

// StatelessRequest reports whether r is a request of the stateless
// protocol (2026-07-28 and later): a POST whose Mcp-Protocol-Version
// header names such a version. Versions are dates, so they compare as
// strings (as the SDK compares them).
func StatelessRequest(r *http.Request) bool {
	return r.Method == http.MethodPost && r.Header.Get("Mcp-Protocol-Version") >= Protocol
}

// PeekBody reads r's body up to the SDK's size limit and one byte more, and
// leaves r.Body readable as it was (the bytes read, then the rest): a body
// past the limit still reaches the SDK as such, which answers HTTP 413
// naming the bound, rather than cut at the bound (which the SDK took for a
// malformed message). fits reports a body read whole within the limit (body
// is then all of it). BeforeInitialize and the gateway's session sharing
// look into a POST this way.
func PeekBody(r *http.Request) (body []byte, fits bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxHeldBody+1))
	rest := r.Body
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), rest), rest}
	return body, err == nil && len(body) <= maxHeldBody
}
