package ui

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/internal/httpauth"
)

// TokenHeader is the request header a script may present the start token in (instead of the
// cookie the browser gets on first load).
const TokenHeader = "X-RPA-Token"

// cookieName is per port: cookies are not isolated by port, and two consoles on one desktop must
// not overwrite each other's token.
func cookieName(port string) string { return "rpa_ui_" + port }

// arrivalPort is the local port r arrived on (the listener's), else the Host header's.
func arrivalPort(r *http.Request) string {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if _, p, err := net.SplitHostPort(a.String()); err == nil {
			return p
		}
	}
	return ""
}

// loopbackHost reports whether hostport is 127.0.0.1:port, localhost:port or [::1]:port.
func loopbackHost(hostport, port string) bool {
	h, p, err := net.SplitHostPort(hostport)
	if err != nil || p != port || port == "" {
		return false
	}
	return h == "127.0.0.1" || strings.EqualFold(h, "localhost") || h == "::1"
}

// sameOrigin reports whether origin is http://<loopback host>:port.
func sameOrigin(origin, port string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" || u.Path != "" || u.RawQuery != "" || u.User != nil {
		return false
	}
	return loopbackHost(u.Host, port)
}

// statusWriter remembers the status for the access log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets server-sent events through the wrapper.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// guard applies the package doc's security model, sets the security headers and writes the
// access log (method, path, status: never the query, which may hold the token).
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		start := time.Now()
		w := &statusWriter{ResponseWriter: rw}
		defer func() {
			s.Logf("ui: %s %s %d %s", r.Method, r.URL.Path, w.status, time.Since(start).Round(time.Microsecond))
		}()
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin") // not no-referrer: Chromium then sends "Origin: null" with a form POST
		h.Set("Cache-Control", "no-store")

		port := arrivalPort(r)
		if port == "" {
			port = s.port
		}
		if !loopbackHost(r.Host, port) {
			http.Error(w, "misdirected request: the console answers only to 127.0.0.1:"+port+", localhost:"+port+" or [::1]:"+port, http.StatusMisdirectedRequest)
			return
		}
		headerTok := r.Header.Get(TokenHeader)
		if bt, ok := httpauth.BearerToken(r); ok && headerTok == "" {
			headerTok = bt
		}
		origin := r.Header.Get("Origin")
		if origin != "" && !sameOrigin(origin, port) {
			http.Error(w, "forbidden: requests from another origin are not accepted", http.StatusForbidden)
			return
		}
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			http.Error(w, "forbidden: cross-site request", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && origin == "" && headerTok == "" {
			http.Error(w, "forbidden: a request that changes something must carry an Origin header (or the token in "+TokenHeader+")", http.StatusForbidden)
			return
		}
		if headerTok != "" {
			if !httpauth.TokenEqual(headerTok, s.token) {
				http.Error(w, "unauthorized: wrong console token", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if q := r.URL.Query(); q.Has("t") && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			if !httpauth.TokenEqual(q.Get("t"), s.token) {
				http.Error(w, "unauthorized: wrong console token; open the address `rpa ui` printed", http.StatusUnauthorized)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: cookieName(port), Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q.Del("t")
			u := *r.URL
			u.RawQuery = q.Encode()
			u.Scheme, u.Host = "", ""
			http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
			return
		}
		c, err := r.Cookie(cookieName(port))
		if err != nil || !httpauth.TokenEqual(c.Value, s.token) {
			http.Error(w, "unauthorized: open the console with the address `rpa ui` printed (it holds the start token)", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
