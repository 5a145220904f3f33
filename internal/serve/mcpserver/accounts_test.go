package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/demoapp"
	"github.com/rpa-dev/rpa/internal/host/lease"
	"github.com/rpa-dev/rpa/internal/host/vault"
	"github.com/rpa-dev/rpa/internal/runs"
)

const (
	acctPassword = "Portal-pw-5531"
	acctSeed     = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
)

// The flows of the accounts test: a flow that reads the demo's data as an
// account, signing in with portal_login whenever it lands on the sign-in
// page (the password, then the TOTP code).
var acctFlows = map[string]string{
	"portal_login.flow": `flow portal_login "Sign in to the demo portal"

param account: credential "Portal account"
param base_url: string "Portal address"

open "{{ base_url }}/login"
fill "#username" account.username
fill "#password" account.password
click "#submit"
wait url: "/login/otp"
fill "#otp" totp(account.totp)
click "#verify"
wait url: "/query"
`,
	"portal_usage.flow": `flow portal_usage "Reads two regions' usage as an account"

param account: credential "Portal account"
param base_url: string "Portal address"

defaults login: "portal_login" wait: 5s

open "{{ base_url }}/query"
select "#region" "110000"
click "text=Query"
rows_a = table "#data-table"
open "{{ base_url }}/query"
select "#region" "330100"
click "text=Query"
rows_b = table "#data-table"
return { "first": len(rows_a), "second": len(rows_b) }
`,
}

// acctEnv is the accounts tests' world: $RPA_HOME with a vault holding
// portal/admin (the demo's user, password and TOTP seed) and mail/ops (a
// password only), the demo app, the flows of acctFlows, the run store.
type acctEnv struct {
	home, dir string
	app       *demoapp.Server
	vault     *vault.Store
	store     *runs.Store
}

// newAcctEnv makes an acctEnv whose demo app ends a session after
// sessionRequests requests (0: never).
func newAcctEnv(t *testing.T, sessionRequests int) *acctEnv {
	t.Helper()
	a := &acctEnv{home: t.TempDir(), dir: t.TempDir()}
	t.Setenv("RPA_HOME", a.home)
	t.Setenv(vault.EnvKeyring, "off")
	t.Setenv(vault.EnvPassphrase, "test vault passphrase")
	app, err := demoapp.Start(demoapp.Options{Delay: -1, TOTPSeed: acctSeed, SessionRequests: sessionRequests, Password: acctPassword})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Close() })
	a.app = app
	for name, src := range acctFlows {
		if err := os.WriteFile(filepath.Join(a.dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a.vault = vault.New(a.home, &vault.Keys{KDF: vault.KDF{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
	if err := a.vault.Set("portal/admin", map[string]string{"username": demoapp.DemoUsername, "password": acctPassword, "totp": acctSeed}, false); err != nil {
		t.Fatal(err)
	}
	if err := a.vault.Set("mail/ops", map[string]string{"password": "other-pw-9"}, false); err != nil {
		t.Fatal(err)
	}
	if a.store, err = runs.OpenHome(a.home, 0, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.store.Close() })
	return a
}

// TestAccountFlowAcrossExpiry: an agent names the account, never sends or
// sees its password; the run signs in (password, then the TOTP code) when
// it lands on the sign-in page, again when the session expires mid-flow,
// and completes. The password and the seed are nowhere under $RPA_HOME,
// in no MCP message, and two calls for one account run one after the
// other.
func TestAccountFlowAcrossExpiry(t *testing.T) {
	// The session ends after 4 requests: the sign-in's /query, the first
	// open and query; the second open lands on the sign-in page.
	a := newAcctEnv(t, 3)
	home, app, store := a.home, a.app, a.store
	s, _ := newServer(t, Options{FlowsDir: a.dir, Pool: newPool(t), Runs: store, Vault: a.vault, Leases: lease.NewLocal(home)})

	var wire logBuffer // both directions
	ctx := context.Background()
	sst, cst := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, &mcp.LoggingTransport{Transport: sst, Writer: &wire}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, cst, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	// The schema offers the accounts with the fields the flow reads.
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var schema string
	for _, tl := range tools.Tools {
		if tl.Name == "workflow_portal_usage" {
			b, _ := json.Marshal(tl.InputSchema)
			schema = string(b)
		}
	}
	if !strings.Contains(schema, `"account":{"description":"Portal account","enum":["portal/admin"],"type":"string"}`) {
		t.Errorf("schema: %s", schema)
	}

	call := func(account string) (*mcp.CallToolResult, error) {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		return cs.CallTool(cctx, &mcp.CallToolParams{Name: "workflow_portal_usage",
			Arguments: map[string]any{"account": account, "base_url": app.URL}})
	}
	res, err := call("portal/admin")
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(res.StructuredContent)
	if res.IsError || !strings.Contains(string(out), `"outputs":{"first":50,"second":50}`) {
		t.Fatalf("the run: %s", out)
	}
	if !strings.Contains(string(out), "signing in with portal_login") || strings.Count(string(out), "signed in again") != 2 {
		t.Errorf("the run did not sign in twice (at the start and after the expiry): %s", out)
	}
	// No process's argv holds a value (rpa's, the browser's and its
	// helpers', while the profile's browser is still up).
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, _ := os.ReadFile(p)
		for _, v := range []string{acctPassword, acctSeed} {
			if bytes.Contains(b, []byte(v)) {
				t.Errorf("%s holds %q", p, v)
			}
		}
	}
	// The run used the account's profile, and the lease notes its run.
	var r struct {
		RunID string `json:"runId"`
	}
	_ = json.Unmarshal(out, &r)
	if h, ok := lease.NewLocal(home).Last("portal/admin"); !ok || h.RunID != r.RunID {
		t.Errorf("lease holder %+v, run %s", h, r.RunID)
	}
	if run, err := store.Get(r.RunID); err != nil || run.Profile != vault.ProfileFor("portal/admin") {
		t.Errorf("run profile: %+v %v", run, err)
	}

	// An unknown account and one without the fields the flow reads are
	// refused before anything runs, naming the argument.
	for acct, want := range map[string]string{
		"portal/admn": `no account \"portal/admn\" in the vault; did you mean \"portal/admin\"?`,
		"mail/ops":    "account mail/ops has no field totp, username, which the flow reads",
	} {
		_, err := call(acct)
		if err == nil || !strings.Contains(err.Error(), strings.ReplaceAll(want, `\"`, `"`)) {
			t.Errorf("account %s: %v", acct, err)
		}
	}

	// Two calls for one account: the second starts after the first ends.
	var wg sync.WaitGroup
	results := make([]*mcp.CallToolResult, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); results[i], errs[i] = call("portal/admin") }()
	}
	wg.Wait()
	var spans [][2]time.Time
	for i := range 2 {
		if errs[i] != nil || results[i].IsError {
			t.Fatalf("concurrent call %d: %v", i, errs[i])
		}
		b, _ := json.Marshal(results[i].StructuredContent)
		_ = json.Unmarshal(b, &r)
		run, err := store.Get(r.RunID)
		if err != nil {
			t.Fatal(err)
		}
		spans = append(spans, [2]time.Time{run.Start, run.Start.Add(time.Duration(run.DurationMs) * time.Millisecond)})
	}
	if spans[0][0].Before(spans[1][1]) && spans[1][0].Before(spans[0][1]) {
		t.Errorf("the two runs of one account overlapped: %v", spans)
	}

	// The secrets are nowhere: not on the wire (both ways), not under
	// $RPA_HOME (run store, reports, events, profiles' files).
	for _, v := range []string{acctPassword, acctSeed} {
		if strings.Contains(wire.String(), v) {
			t.Errorf("an MCP message holds %q", v)
		}
	}
	if !strings.Contains(wire.String(), `"portal/admin"`) {
		t.Error("the capture saw no call")
	}
	_ = filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, v := range []string{acctPassword, acctSeed} {
			if bytes.Contains(b, []byte(v)) {
				t.Errorf("%s holds %q", p, v)
			}
		}
		return nil
	})
}

// TestAccountAcrossSessions: two agents (two MCP sessions) on one account,
// without a profileId, run on the account's own profile: its lease, not
// the session that called first, decides who runs. A call after the
// first agent's call ended runs at once (no profile_in_use), two calls at
// once run one after the other, and the second agent's browser_read sees
// the account's page.
func TestAccountAcrossSessions(t *testing.T) {
	a := newAcctEnv(t, 0)
	s, _ := newServer(t, Options{FlowsDir: a.dir, Pool: newPool(t), Runs: a.store, Vault: a.vault,
		Leases: lease.NewLocal(a.home), AccountWait: 2 * time.Minute})
	one, _ := connect(t, s)
	two, _ := connect(t, s)
	profile := vault.ProfileFor("portal/admin")
	call := func(cs *mcp.ClientSession) (*runs.Run, error) {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_portal_usage",
			Arguments: map[string]any{"account": "portal/admin", "base_url": a.app.URL}})
		if err != nil {
			return nil, err
		}
		var r struct {
			RunID   string         `json:"runId"`
			Outputs map[string]any `json:"outputs"`
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &r); err != nil || res.IsError || r.Outputs["first"] != 50.0 {
			t.Errorf("the run failed: %s", b)
		}
		return a.store.Get(r.RunID)
	}

	// One after the other: the second agent is not refused the profile
	// the first one's call left warm.
	for i, cs := range []*mcp.ClientSession{one, two} {
		run, err := call(cs)
		if err != nil {
			t.Fatalf("agent %d: %v", i+1, err)
		}
		if run.Profile != profile {
			t.Errorf("agent %d ran on profile %q, want the account's %q", i+1, run.Profile, profile)
		}
	}
	// The first agent reads the page the second one's run left.
	res, err := one.CallTool(t.Context(), &mcp.CallToolParams{Name: ToolBrowserRead,
		Arguments: map[string]any{"action": "url", "profileId": profile}})
	if err != nil || res.IsError || !strings.Contains(textOf(t, res), a.app.URL+"/query") {
		t.Errorf("browser_read of the account's profile: %v %+v", err, res)
	}

	// At once: both run, one after the other.
	var wg sync.WaitGroup
	got := make([]*runs.Run, 2)
	errs := make([]error, 2)
	for i, cs := range []*mcp.ClientSession{one, two} {
		wg.Add(1)
		go func() { defer wg.Done(); got[i], errs[i] = call(cs) }()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("concurrent agent %d: %v", i+1, err)
		}
	}
	end := func(r *runs.Run) time.Time { return r.Start.Add(time.Duration(r.DurationMs) * time.Millisecond) }
	if got[0].Start.Before(end(got[1])) && got[1].Start.Before(end(got[0])) {
		t.Errorf("the two agents' runs of one account overlapped: %v+%dms, %v+%dms", got[0].Start, got[0].DurationMs, got[1].Start, got[1].DurationMs)
	}
}
