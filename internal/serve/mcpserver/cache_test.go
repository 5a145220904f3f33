package mcpserver

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/testutil/rawmcp"
)

// TestCacheScope: over Streamable HTTP, on 2026-07-28 and on 2025-11-25, every result that
// carries cacheScope says "private" when it depends on its caller (resources/list lists the
// caller's runs; rpa://runs/ID only its token reads) and "public" only when it is the same for
// every caller (server/discover, tools/list, resources/templates/list, a flow's healing
// proposals). The run and the listing said "public" before.
func TestCacheScope(t *testing.T) {
	st, err := runs.Open(t.TempDir(), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	run := &runs.Run{Flow: "hit", Caller: runs.Caller{Kind: runs.CallerMCP, Token: runs.TokenDigest("token-of-a")}}
	if _, err := st.Begin(run); err != nil {
		t.Fatal(err)
	}
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "hit.flow"), NoWatch: true, Runs: st})
	hs := httptest.NewServer(s.HTTPHandler("token-of-a", "token-of-b"))
	t.Cleanup(hs.Close)

	cases := []struct {
		method string
		params map[string]any
		want   string
		check  func(result map[string]any) string // what is wrong with the result ("" fine)
		only   string                             // the one protocol version of the method ("": both)
	}{
		{method: "tools/list", want: "public"},
		{method: "resources/templates/list", want: "public"},
		{method: "resources/list", want: "private", check: func(r map[string]any) string {
			if !strings.Contains(mustJSON(r), "rpa://runs/"+run.ID) {
				return "the caller's run is not listed"
			}
			return ""
		}},
		{method: "resources/read", params: map[string]any{"uri": "rpa://runs/" + run.ID}, want: "private"},
		{method: "resources/read", params: map[string]any{"uri": "rpa://flows/hit/heal"}, want: "public"},
		{method: "server/discover", want: "public", only: "2026-07-28"},
	}
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			c := rawmcp.DialHTTP(t, hs.URL, "token-of-a", version)
			for _, tc := range cases {
				if tc.only != "" && tc.only != version {
					continue
				}
				name := tc.method
				if u, ok := tc.params["uri"]; ok {
					name += " " + u.(string)
				}
				m := c.Call(tc.method, tc.params)
				res, _ := m["result"].(map[string]any)
				if res == nil {
					t.Errorf("%s: %v", name, m)
					continue
				}
				if got := res["cacheScope"]; got != tc.want {
					t.Errorf("%s: cacheScope %v, want %q", name, got, tc.want)
				}
				if tc.check != nil {
					if why := tc.check(res); why != "" {
						t.Errorf("%s: %s: %v", name, why, res)
					}
				}
			}
		})
	}
}
