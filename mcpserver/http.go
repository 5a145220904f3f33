package mcpserver

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultHTTPAddr is where `rpa serve --http` listens when given only a
// port or nothing: loopback.
const DefaultHTTPAddr = "127.0.0.1:8765"

// HTTPHandler returns the Streamable HTTP endpoint of the server (stateful
// sessions, so list_changed and progress reach the client). With a
// non-empty token every request must carry `Authorization: Bearer TOKEN`
// or gets 401 with a WWW-Authenticate challenge. The SDK's DNS-rebinding
// protection (a loopback request with a foreign Host header gets 403)
// stays on.
func (s *Server) HTTPHandler(token string) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv }, &mcp.StreamableHTTPOptions{
		Logger: s.log,
	})
	if token == "" {
		return h
	}
	return RequireBearer(token, h)
}

// RequireBearer wraps next so that only requests carrying `Authorization:
// Bearer token` pass (constant-time comparison); others get 401.
func RequireBearer(token string, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="rpa"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
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
