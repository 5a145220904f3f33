package demoapp

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
)

// client returns an HTTP client with a cookie jar that does not follow
// redirects, so tests see every 303.
func client(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}

func get(t *testing.T, c *http.Client, u string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func login(t *testing.T, c *http.Client, base, user, pass string) (*http.Response, string) {
	t.Helper()
	resp, err := c.PostForm(base+"/login", url.Values{"username": {user}, "password": {pass}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func newServer(t *testing.T, opts Options) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(New(opts))
	t.Cleanup(srv.Close)
	return srv
}

func TestRedirectsWithoutSession(t *testing.T) {
	srv := newServer(t, Options{Delay: -1})
	c := client(t)
	for _, path := range []string{"/", "/query"} {
		resp, _ := get(t, c, srv.URL+path)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
			t.Errorf("GET %s: %d Location %q, want 303 to /login", path, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	resp, body := get(t, c, srv.URL+"/api/data?region=110000")
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "not signed in") {
		t.Errorf("GET /api/data without session: %d %s", resp.StatusCode, body)
	}
}

func TestLoginPageHasForm(t *testing.T) {
	srv := newServer(t, Options{Delay: -1})
	resp, body := get(t, client(t), srv.URL+"/login")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	for _, want := range []string{`id="username"`, `id="password"`, `type="password"`, `id="submit"`, `action="/login"`} {
		if !strings.Contains(body, want) {
			t.Errorf("login page lacks %s", want)
		}
	}
	if strings.Contains(body, `id="error"`) {
		t.Error("fresh login page shows an error")
	}
}

func TestLoginWrongPassword(t *testing.T) {
	srv := newServer(t, Options{Delay: -1})
	c := client(t)
	for _, tc := range []struct{ user, pass string }{
		{DemoUsername, "nope"}, {"root", DemoPassword}, {"", ""},
	} {
		resp, body := login(t, c, srv.URL, tc.user, tc.pass)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "Invalid username or password") {
			t.Errorf("login %q/%q: %d, want 401 with the error", tc.user, tc.pass, resp.StatusCode)
		}
		if len(resp.Cookies()) != 0 {
			t.Errorf("login %q/%q set cookies %v", tc.user, tc.pass, resp.Cookies())
		}
		if strings.Contains(body, tc.pass) && tc.pass != "" {
			t.Errorf("the error page echoes the password")
		}
	}
	// Still not signed in.
	resp, _ := get(t, c, srv.URL+"/query")
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("after failed logins /query answers %d", resp.StatusCode)
	}
}

func TestLoginQueryLogout(t *testing.T) {
	srv := newServer(t, Options{Delay: -1, Username: "u1", Password: "p w 1"})
	c := client(t)
	resp, _ := login(t, c, srv.URL, "u1", "p w 1")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/query" {
		t.Fatalf("login: %d Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	var sess *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == SessionCookie {
			sess = ck
		}
	}
	if sess == nil || len(sess.Value) != 32 || !sess.HttpOnly {
		t.Fatalf("session cookie %+v", sess)
	}
	resp, body := get(t, c, srv.URL+"/query")
	if resp.StatusCode != 200 {
		t.Fatalf("GET /query: %d", resp.StatusCode)
	}
	for _, want := range []string{`<select id="region"`, `value="110000">北京市 Beijing`, `value="330100">杭州市 Hangzhou`,
		`id="query-btn" type="submit" disabled`, `id="next"`, `id="prev"`, `id="logout"`, `<b id="user">u1</b>`} {
		if !strings.Contains(body, want) {
			t.Errorf("query page lacks %s", want)
		}
	}
	if resp, _ := get(t, c, srv.URL+"/"); resp.Header.Get("Location") != "/query" {
		t.Errorf("GET / signed in redirects to %q", resp.Header.Get("Location"))
	}
	resp, _ = get(t, c, srv.URL+"/logout")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login?bye=1" {
		t.Errorf("logout: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// The old token is dead even if a client keeps sending it.
	req, _ := http.NewRequest("GET", srv.URL+"/query", nil)
	req.AddCookie(&http.Cookie{Name: SessionCookie, Value: sess.Value})
	resp2, err := client(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusSeeOther {
		t.Errorf("old session after logout: %d", resp2.StatusCode)
	}
	if _, body := get(t, c, srv.URL+"/login?bye=1"); !strings.Contains(body, "signed out") {
		t.Error("login page after logout lacks the notice")
	}
}

func fetchData(t *testing.T, c *http.Client, base, q string) (int, DataPage) {
	t.Helper()
	resp, body := get(t, c, base+"/api/data?"+q)
	var d DataPage
	if resp.StatusCode == 200 {
		if err := json.Unmarshal([]byte(body), &d); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
	}
	return resp.StatusCode, d
}

func TestDataPagesAndTotals(t *testing.T) {
	srv := newServer(t, Options{Delay: -1})
	c := client(t)
	login(t, c, srv.URL, DemoUsername, DemoPassword)

	tests := []struct {
		q                         string
		status, page, pages, rows int
		first                     string
	}{
		{"region=110000", 200, 1, 3, 50, "2026-06-01"},
		{"region=110000&page=2", 200, 2, 3, 50, "2026-07-21"},
		{"region=110000&page=3", 200, 3, 3, 20, "2026-09-09"},
		{"region=110000&page=9", 200, 3, 3, 20, "2026-09-09"},
		{"region=330100", 200, 1, 2, 50, "2026-06-01"},
		{"region=510100", 200, 1, 1, 30, "2026-06-01"},
		{"region=000000", 200, 1, 1, 0, ""},
		{"region=999999", 400, 0, 0, 0, ""},
		{"region=110000&page=0", 400, 0, 0, 0, ""},
		{"region=110000&page=x", 400, 0, 0, 0, ""},
	}
	for _, tc := range tests {
		status, d := fetchData(t, c, srv.URL, tc.q)
		if status != tc.status {
			t.Errorf("%s: status %d, want %d", tc.q, status, tc.status)
			continue
		}
		if status != 200 {
			continue
		}
		if d.Page != tc.page || d.Pages != tc.pages || len(d.Rows) != tc.rows {
			t.Errorf("%s: page %d/%d with %d rows, want %d/%d with %d", tc.q, d.Page, d.Pages, len(d.Rows), tc.page, tc.pages, tc.rows)
		}
		if tc.rows > 0 && d.Rows[0].Date != tc.first {
			t.Errorf("%s: first date %s, want %s", tc.q, d.Rows[0].Date, tc.first)
		}
		if d.Rows == nil {
			t.Errorf("%s: rows is null, want a list", tc.q)
		}
	}
}

func TestDataDeterministic(t *testing.T) {
	a, b := Records("110000"), Records("110000")
	if len(a) != 120 {
		t.Fatalf("110000 has %d records", len(a))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("record %d differs between calls: %+v vs %+v", i, a[i], b[i])
		}
	}
	if Records("310000")[0].KWh == a[0].KWh {
		t.Error("two regions share their first value")
	}
	if Records("nope") != nil || len(Records("000000")) != 0 {
		t.Error("unknown or empty region has records")
	}
	// Totals adds what the rows show.
	tot := Totals([]Record{{KWh: "1.5", Peak: "3.0", Valley: "0.5", Cost: "1.25"}, {KWh: "2.0", Peak: "4.5", Valley: "1.0", Cost: "0.75"}})
	if tot.KWh != "3.5" || tot.Peak != "4.5" || tot.Valley != "1.5" || tot.Cost != "2.00" {
		t.Errorf("Totals = %+v", tot)
	}
	for _, r := range a {
		if r.Region != "北京市" || r.KWh == "" || r.Peak == "" || r.Valley == "" || r.Cost == "" {
			t.Fatalf("incomplete record %+v", r)
		}
	}
}

func TestDataDelay(t *testing.T) {
	srv := newServer(t, Options{Delay: 120 * time.Millisecond})
	c := client(t)
	login(t, c, srv.URL, DemoUsername, DemoPassword)
	start := time.Now()
	if status, _ := fetchData(t, c, srv.URL, "region=110000"); status != 200 {
		t.Fatalf("status %d", status)
	}
	if el := time.Since(start); el < 120*time.Millisecond {
		t.Errorf("answered after %v, want at least the 120ms delay", el)
	}
}

func TestStaticAndServe(t *testing.T) {
	s, err := Start(Options{Delay: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Errorf("URL %q", s.URL)
	}
	resp, body := get(t, client(t), s.URL+"/static/app.js")
	if resp.StatusCode != 200 || !strings.Contains(body, "data-table") {
		t.Errorf("app.js: %d", resp.StatusCode)
	}
	if resp, _ := get(t, client(t), s.URL+"/static/nope.js"); resp.StatusCode != 404 {
		t.Errorf("missing static file: %d", resp.StatusCode)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// The README documents the demo account; keep it in step with the code.
func TestREADMECredentials(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Skip("no README:", err)
	}
	for _, want := range []string{"user **`" + DemoUsername + "`**", "password **`" + DemoPassword + "`**",
		"--arg username=" + DemoUsername + " --arg password=" + DemoPassword} {
		if !strings.Contains(string(b), want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
}

func postOTP(t *testing.T, c *http.Client, base, code string) (*http.Response, string) {
	t.Helper()
	resp, err := c.PostForm(base+"/login/otp", url.Values{"otp": {code}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestSecondFactor: with a TOTP seed the password leads to /login/otp, and
// only the current code signs in.
func TestSecondFactor(t *testing.T) {
	const seed = "JBSWY3DPEHPK3PXP"
	srv := newServer(t, Options{Delay: -1, TOTPSeed: seed})
	c := client(t)
	if resp, _ := get(t, c, srv.URL+"/login/otp"); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Errorf("otp page without a password first: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, _ := login(t, c, srv.URL, DemoUsername, DemoPassword)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login/otp" {
		t.Fatalf("login: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := get(t, c, srv.URL+"/query"); resp.StatusCode != http.StatusSeeOther {
		t.Fatal("the password alone signed in")
	}
	resp, body := get(t, c, srv.URL+"/login/otp")
	if resp.StatusCode != 200 || !strings.Contains(body, `id="otp"`) || !strings.Contains(body, `id="verify"`) {
		t.Fatalf("otp page: %d %s", resp.StatusCode, body)
	}
	if resp, body := postOTP(t, c, srv.URL, "000000"); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, `id="error"`) {
		t.Fatalf("wrong code: %d", resp.StatusCode)
	}
	code, err := totp.GenerateCode(seed, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	resp, _ = postOTP(t, c, srv.URL, code)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/query" {
		t.Fatalf("right code: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := get(t, c, srv.URL+"/query"); resp.StatusCode != 200 {
		t.Fatalf("signed in: %d", resp.StatusCode)
	}
	// The pending login is used up.
	if resp, _ := postOTP(t, c, srv.URL, code); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Errorf("code again: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// TestSessionExpiresAfterRequests: the session serves SessionRequests
// requests, then pages go to /login?expired=1 and the API answers 401.
func TestSessionExpiresAfterRequests(t *testing.T) {
	srv := newServer(t, Options{Delay: -1, SessionRequests: 3})
	c := client(t)
	login(t, c, srv.URL, DemoUsername, DemoPassword)
	for i, p := range []string{"/query", "/api/data?region=110000", "/query"} {
		if resp, _ := get(t, c, srv.URL+p); resp.StatusCode != 200 {
			t.Fatalf("request %d (%s): %d", i+1, p, resp.StatusCode)
		}
	}
	resp, _ := get(t, c, srv.URL+"/query")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login?expired=1" {
		t.Fatalf("4th request: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	if _, body := get(t, c, srv.URL+"/login?expired=1"); !strings.Contains(body, "session has expired") {
		t.Error("the login page does not say the session expired")
	}
	if resp, _ := get(t, c, srv.URL+"/api/data?region=110000"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("API after expiry: %d", resp.StatusCode)
	}
	// A new login gives a new session of 3 requests.
	login(t, c, srv.URL, DemoUsername, DemoPassword)
	if resp, _ := get(t, c, srv.URL+"/query"); resp.StatusCode != 200 {
		t.Errorf("after a new login: %d", resp.StatusCode)
	}
}
