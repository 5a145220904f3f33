// Package httpauth holds the HTTP checks shared by rpa's Streamable HTTP endpoints (`rpa serve
// --http` and `rpa gateway`'s /mcp): Origin validation and the bearer token.
package httpauth

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strings"
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
	names := map[string]bool{}
	for _, a := range allowed {
		if n, ok := normalOrigin(a); ok {
			names[n] = true
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" || originAllowed(origin, names, requestPort(r)) {
			next.ServeHTTP(w, r)
			return
		}
		http.Error(w, "forbidden: requests from origin "+quoteOrigin(origin)+" are not accepted (allow it with --allow-origin)", http.StatusForbidden)
	})
}

// ValidOrigin reports whether s is an origin OriginGuard can allow
// (scheme://host[:port], nothing after it).
func ValidOrigin(s string) bool {
	_, ok := normalOrigin(s)
	return ok
}

// quoteOrigin keeps a hostile header short and printable in the 403 text.
func quoteOrigin(s string) string {
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, `"`+s+`"`)
}

func originAllowed(origin string, names map[string]bool, port string) bool {
	n, ok := normalOrigin(origin)
	if !ok {
		return false
	}
	if names[n] {
		return true
	}
	u, _ := url.Parse(n)
	host := u.Hostname()
	if !(host == "localhost" || isLoopback(host)) {
		return false
	}
	p := u.Port()
	if p == "" {
		p = defaultPort(u.Scheme)
	}
	return port != "" && p == port
}

// normalOrigin lower-cases scheme and host and drops a default port; ok is
// false for anything that is not scheme://host[:port].
func normalOrigin(s string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if port == defaultPort(scheme) {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, true
}

func defaultPort(scheme string) string {
	switch scheme {
	case "http", "ws":
		return "80"
	case "https", "wss":
		return "443"
	}
	return ""
}

// requestPort is the local port the request arrived on (from the
// listener), else the port of its Host header.
func requestPort(r *http.Request) string {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if _, p, err := net.SplitHostPort(a.String()); err == nil {
			return p
		}
	}
	if _, p, err := net.SplitHostPort(r.Host); err == nil {
		return p
	}
	return ""
}

// BearerToken returns the credentials of an `Authorization: Bearer X`
// header. The scheme is matched without case (RFC 9110 section 11.1:
// "It uses a case-insensitive token to identify the authentication
// scheme"); ok is false when the header is missing or of another scheme.
func BearerToken(r *http.Request) (string, bool) {
	scheme, cred, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	cred = strings.TrimSpace(cred)
	return cred, cred != ""
}

// TokenEqual compares a presented token with the expected one in
// constant time.
func TokenEqual(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

func isLoopback(host string) bool {
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
