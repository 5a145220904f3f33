package demoapp

import (
	"strings"
	"testing"
)

// TestV2Pages: Version V2 serves the next version's pages (renamed ids,
// the login form rewrapped, the button reworded, the table's container
// moved) with the same login; the default app serves the documented ones.
func TestV2Pages(t *testing.T) {
	for _, tc := range []struct {
		version   int
		login     []string // in the login page
		query     []string // in the query page
		notInBoth []string
	}{
		{0, []string{`id="username"`, `id="password"`, `id="submit"`},
			[]string{`id="region"`, `Query 查询`, `id="results"`}, []string{`login-user`, `usage-table`, `Search`}},
		{V2, []string{`class="auth-panel"`, `id="login-user"`, `id="login-pass"`, `name="username"`, `name="password"`},
			[]string{`id="area"`, `Search 查询`, `id="report-grid"`, `data-table="usage-table"`},
			[]string{`id="username"`, `id="password"`, `id="region"`, `Query 查询`, `id="results"`}},
	} {
		srv := newServer(t, Options{Delay: -1, Version: tc.version})
		c := client(t)
		_, lp := get(t, c, srv.URL+"/login")
		if resp, _ := login(t, c, srv.URL, DemoUsername, DemoPassword); resp.StatusCode != 303 {
			t.Fatalf("v%d: login: %d", tc.version, resp.StatusCode)
		}
		_, qp := get(t, c, srv.URL+"/query")
		for _, s := range tc.login {
			if !strings.Contains(lp, s) {
				t.Errorf("v%d: login page lacks %s", tc.version, s)
			}
		}
		for _, s := range tc.query {
			if !strings.Contains(qp, s) {
				t.Errorf("v%d: query page lacks %s", tc.version, s)
			}
		}
		for _, s := range tc.notInBoth {
			if strings.Contains(lp, s) || strings.Contains(qp, s) {
				t.Errorf("v%d: a page has %s", tc.version, s)
			}
		}
	}
}
