package mcpserver

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestOriginValidation: a foreign Origin is refused with 403 whether or not
// the token is right; loopback origins of the server's own port and named
// origins pass; the Bearer scheme is matched without case.
func TestOriginValidation(t *testing.T) {
	s, _ := newServer(t, Options{AllowOrigins: []string{"https://App.Example.com:443"}})
	hs := httptest.NewServer(s.HTTPHandler("tok-1"))
	t.Cleanup(hs.Close)
	port := hs.Listener.Addr().String()
	port = port[strings.LastIndexByte(port, ':')+1:]
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"o","version":"1"}}}`
	post := func(origin, auth string) (int, string) {
		req, _ := http.NewRequest("POST", hs.URL, bytes.NewReader([]byte(init)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, c := range []struct {
		origin, auth string
		want         int
	}{
		{"https://evil.example", "Bearer tok-1", 403},
		{"https://evil.example", "", 403},
		{"https://evil.example", "Bearer wrong", 403},
		{"null", "Bearer tok-1", 403},
		{"http://localhost:1", "Bearer tok-1", 403},                    // loopback, another port
		{"http://127.0.0.1.evil.example:" + port, "Bearer tok-1", 403}, // looks loopback, is not
		{"http://localhost:" + port, "Bearer tok-1", 200},
		{"http://127.0.0.1:" + port, "Bearer tok-1", 200},
		{"http://[::1]:" + port, "Bearer tok-1", 200},
		{"https://app.example.com", "Bearer tok-1", 200}, // named by AllowOrigins
		{"https://app.example.com:8443", "Bearer tok-1", 403},
		{"", "Bearer tok-1", 200},
		{"", "bearer tok-1", 200}, // the scheme is case-insensitive (RFC 9110)
		{"", "BEARER  tok-1", 200},
		{"", "Basic tok-1", 401},
		{"", "", 401},
		{"http://localhost:" + port, "", 401},
	} {
		code, body := post(c.origin, c.auth)
		if code != c.want {
			t.Errorf("Origin %q, Authorization %q: HTTP %d, want %d (%s)", c.origin, c.auth, code, c.want, strings.TrimSpace(body))
		}
		if c.want == 403 && !strings.Contains(body, "origin") {
			t.Errorf("403 body does not say why: %q", body)
		}
	}
}

func TestCheckOrigins(t *testing.T) {
	if err := CheckOrigins([]string{"https://a.example", "http://127.0.0.1:8080"}); err != nil {
		t.Error(err)
	}
	if err := CheckOrigins([]string{"https://a.example", "a.example/x"}); err == nil || !strings.Contains(err.Error(), `--allow-origin "a.example/x"`) {
		t.Errorf("bad origin: %v", err)
	}
}
