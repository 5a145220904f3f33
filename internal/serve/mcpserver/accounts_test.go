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

// TestAccountFlowAcrossExpiry: an agent names the account, never sends or
// sees its password; the run signs in (password, then the TOTP code) when
// it lands on the sign-in page, again when the session expires mid-flow,
// and completes. The password and the seed are nowhere under $RPA_HOME,
// in no MCP message, and two calls for one account run one after the
// other.
func TestAccountFlowAcrossExpiry(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	t.Setenv(vault.EnvKeyring, "off")
	t.Setenv(vault.EnvPassphrase, "test vault passphrase")
	// The session ends after 4 requests: the sign-in's /query, the first
	// open and query; the second open lands on the sign-in page.
	app, err := demoapp.Start(demoapp.Options{Delay: -1, TOTPSeed: acctSeed, SessionRequests: 3, Password: acctPassword})
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	dir := t.TempDir()
	for name, src := range acctFlows {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st := vault.New(home, &vault.Keys{KDF: vault.KDF{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
	if err := st.Set("portal/admin", map[string]string{"username": demoapp.DemoUsername, "password": acctPassword, "totp": acctSeed}, false); err != nil {
		t.Fatal(err)
	}
	if err := st.Set("mail/ops", map[string]string{"password": "other-pw-9"}, false); err != nil {
		t.Fatal(err)
	}
	store, err := runs.OpenHome(home, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s, _ := newServer(t, Options{FlowsDir: dir, Pool: newPool(t), Runs: store, Vault: st, Leases: lease.NewLocal(home)})

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
