package mcpserver

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/httpauth"
	"github.com/rpa-dev/rpa/internal/runs"
)

// Caller identities (CallerOf). They never hold a credential: a token or
// session ID appears only as a digest.
const (
	// CallerLocal is the person at this machine: stdio (the client that
	// started `rpa serve --stdio`) and in-process sessions (the console).
	CallerLocal = "local"
	// CallerAnonymous is a Streamable HTTP caller without a bearer token
	// on a stateless (2026-07-28) request: nothing tells two such callers
	// apart.
	CallerAnonymous = "anonymous"
)

// CallerOf names who made a request, for what belongs to a caller (tasks,
// profiles of stateless requests). Whether a caller may list, read or
// resume a run is runs.Owner's rule (runowner.go: Server.ownerOf, owns),
// which also tells a live session from the token it holds:
//
//   - over HTTP with a bearer token: "token-" and the first 16 hex digits
//     of the token's SHA-256, so every session and request presenting the
//     same token is the same caller (a client reconnecting after a restart
//     finds its tasks);
//   - over HTTP without a token: the session ("session-" and its
//     runs.SessionDigest), or CallerAnonymous for a stateless request;
//   - otherwise (stdio, in-process, the link) link: "device-ID" when the
//     server serves a desktop link for device ID (its one caller is the
//     backend), else CallerLocal.
func CallerOf(req mcp.Request, link string) string {
	if req != nil {
		if ex := req.GetExtra(); ex != nil && ex.Header != nil {
			if tok, ok := httpauth.BearerToken(&http.Request{Header: ex.Header}); ok {
				sum := sha256.Sum256([]byte(tok))
				return "token-" + hex.EncodeToString(sum[:8])
			}
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil && ss.ID() != "" {
				return "session-" + runs.SessionDigest(ss.ID())
			}
			return CallerAnonymous
		}
	}
	if link != "" {
		return "device-" + link
	}
	return CallerLocal
}
