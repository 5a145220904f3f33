package ui

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// newTestServer mounts a console on an httptest server.
func newTestServer(t testing.TB, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	if opts.FlowsDir == "" {
		opts.FlowsDir = t.TempDir()
	}
	if opts.Home == "" {
		opts.Home = t.TempDir()
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, ts
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func TestGuard(t *testing.T) {
	s, ts := newTestServer(t, Options{})
	u, _ := url.Parse(ts.URL)
	port := u.Port()
	cookie := "rpa_ui_" + port + "=" + s.Token()
	cases := []struct {
		name, method, path, host, origin, cookie, header, site string
		want                                                   int
	}{
		{name: "no token", method: "GET", path: "/flows", want: 401},
		{name: "wrong token in URL", method: "GET", path: "/flows?t=nope", want: 401},
		{name: "wrong cookie", method: "GET", path: "/flows", cookie: "rpa_ui_" + port + "=nope", want: 401},
		{name: "other port's cookie", method: "GET", path: "/flows", cookie: "rpa_ui_1=" + s.Token(), want: 401},
		{name: "token in URL", method: "GET", path: "/flows?t=" + s.Token(), want: 303},
		{name: "cookie", method: "GET", path: "/flows", cookie: cookie, want: 200},
		{name: "header", method: "GET", path: "/flows", header: s.Token(), want: 200},
		{name: "foreign host", method: "GET", path: "/flows", cookie: cookie, host: "evil.example:" + port, want: 421},
		{name: "rebinding host", method: "GET", path: "/flows", cookie: cookie, host: "rebind.example", want: 421},
		{name: "loopback host other port", method: "GET", path: "/flows", cookie: cookie, host: "127.0.0.1:1", want: 421},
		{name: "localhost host", method: "GET", path: "/flows", cookie: cookie, host: "localhost:" + port, want: 200},
		{name: "ipv6 host", method: "GET", path: "/flows", cookie: cookie, host: "[::1]:" + port, want: 200},
		{name: "foreign origin GET", method: "GET", path: "/flows", cookie: cookie, origin: "http://evil.example", want: 403},
		{name: "foreign origin POST", method: "POST", path: "/lang", cookie: cookie, origin: "http://evil.example", want: 403},
		{name: "foreign origin with header token", method: "POST", path: "/lang", header: s.Token(), origin: "http://evil.example", want: 403},
		{name: "https origin", method: "POST", path: "/lang", cookie: cookie, origin: "https://127.0.0.1:" + port, want: 403},
		{name: "null origin", method: "POST", path: "/lang", cookie: cookie, origin: "null", want: 403},
		{name: "POST without origin", method: "POST", path: "/lang", cookie: cookie, want: 403},
		{name: "cross-site fetch", method: "GET", path: "/flows", cookie: cookie, site: "cross-site", want: 403},
		{name: "POST same origin", method: "POST", path: "/lang", cookie: cookie, origin: "http://127.0.0.1:" + port, want: 303},
		{name: "POST with header token", method: "POST", path: "/lang", header: s.Token(), want: 303},
	}
	c := &http.Client{CheckRedirect: noRedirect}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body io.Reader
			if tc.method == "POST" {
				body = strings.NewReader("lang=zh&back=/flows")
			}
			req, _ := http.NewRequest(tc.method, ts.URL+tc.path, body)
			if body != nil {
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.cookie != "" {
				req.Header.Set("Cookie", tc.cookie)
			}
			if tc.header != "" {
				req.Header.Set(TokenHeader, tc.header)
			}
			if tc.site != "" {
				req.Header.Set("Sec-Fetch-Site", tc.site)
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
			}
			for k := range resp.Header {
				if strings.HasPrefix(strings.ToLower(k), "access-control-") {
					t.Errorf("CORS header %s sent", k)
				}
			}
			if tc.want == 303 && strings.Contains(tc.path, "?t=") {
				sc := resp.Header.Get("Set-Cookie")
				for _, want := range []string{"rpa_ui_" + port + "=" + s.Token(), "HttpOnly", "SameSite=Strict"} {
					if !strings.Contains(sc, want) {
						t.Errorf("Set-Cookie %q lacks %q", sc, want)
					}
				}
				if loc := resp.Header.Get("Location"); strings.Contains(loc, s.Token()) {
					t.Errorf("redirect keeps the token: %s", loc)
				}
			}
		})
	}
}

func TestCheckListen(t *testing.T) {
	for _, a := range []string{"127.0.0.1:0", "127.0.0.1:7788", "[::1]:80", "localhost:9000", "127.1.2.3:1"} {
		if err := CheckListen(a); err != nil {
			t.Errorf("%s: %v", a, err)
		}
	}
	for _, a := range []string{":8080", "0.0.0.0:8080", "192.168.1.2:80", "[::]:80", "example.com:80", "127.0.0.1", "127.0.0.1:99999"} {
		err := CheckListen(a)
		if err == nil {
			t.Errorf("%s accepted", a)
			continue
		}
		if !strings.Contains(err.Error(), "--listen") {
			t.Errorf("%s: error does not name the flag: %v", a, err)
		}
	}
	if _, err := New(Options{Listen: "0.0.0.0:1"}); err == nil {
		t.Error("New accepted a non-loopback address")
	}
}

func TestAcceptLang(t *testing.T) {
	for h, want := range map[string]string{
		"":                           "en",
		"zh-CN,zh;q=0.9,en;q=0.8":    "zh",
		"en-US,en;q=0.9,zh-CN;q=0.8": "en",
		"fr-FR,zh-TW;q=0.5,en;q=0.4": "zh",
		"de":                         "en",
		"en;q=0.2, zh;q=0.7":         "zh",
	} {
		if got := acceptLang(h); got != want {
			t.Errorf("%q: %s, want %s", h, got, want)
		}
	}
}
