package mcpserver

import (
	"fmt"
	"net/http"

	"github.com/rpa-dev/rpa/internal/httpauth"
)

// OriginGuard wraps next so that a request carrying a foreign `Origin`
// header gets HTTP 403 before anything else is looked at (a token does not
// help). The MCP specification (Streamable HTTP, "Security Warning")
// requires servers to validate Origin so that a web page the user visits
// cannot drive a local server (DNS rebinding, cross-site requests).
//
// A request passes when it has no Origin (clients that are not browsers do
// not send one), when its Origin is a loopback origin (localhost,
// 127.0.0.0/8 or [::1], any scheme) on the port the request arrived on, or
// when it equals one of allowed ("https://app.example.com"; scheme, host
// and port compared without case, a default port may be left out). The
// literal Origin "null" (sandboxed frames, file: pages) is foreign.
func OriginGuard(allowed []string, next http.Handler) http.Handler {
	return httpauth.OriginGuard(allowed, next)
}

// ValidOrigin reports whether s is an origin OriginGuard can allow
// (scheme://host[:port], nothing after it).
func ValidOrigin(s string) bool { return httpauth.ValidOrigin(s) }

// BearerToken returns the credentials of an `Authorization: Bearer X`
// header; the scheme is matched without case (RFC 9110 section 11.1). ok
// is false when the header is missing or of another scheme.
func BearerToken(r *http.Request) (string, bool) { return httpauth.BearerToken(r) }

func tokenEqual(got, want string) bool { return httpauth.TokenEqual(got, want) }

// CheckOrigins reports the first of origins that is not ValidOrigin, as
// the error of an --allow-origin flag.
func CheckOrigins(origins []string) error {
	for _, o := range origins {
		if !ValidOrigin(o) {
			return fmt.Errorf("--allow-origin %q: want scheme://host[:port]", o)
		}
	}
	return nil
}
