//go:build linux

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/demoapp"
	"github.com/rpa-dev/rpa/internal/host/lease"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/host/vault"
)

// TestRunWithAccount: `rpa run --arg account=NAME` signs in with the
// vault's account (password, then the TOTP code) and reads the data; argv
// holds only the name. An account another run holds is refused after
// --account-wait with the holder's run ID (exit 1).
func TestRunWithAccount(t *testing.T) {
	const pw, seed = "Run-acct-pw-3390", "JBSWY3DPEHPK3PXP"
	app, err := demoapp.Start(demoapp.Options{Delay: -1, TOTPSeed: seed, Password: pw})
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	home, dir := t.TempDir(), t.TempDir()
	accountSetup(t, home, dir, "run test passphrase", pw, seed)
	run := func(extra ...string) (int, string, string) {
		args := append([]string{"run", filepath.Join(dir, "usage.flow"), "--arg", "account=portal/admin", "--arg", "base_url=" + app.URL, "--json"}, extra...)
		cmd := exec.Command(rpaBin(t), args...)
		cmd.Env = append(os.Environ(), "RPA_HOME="+home)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		for _, a := range cmd.Args {
			if strings.Contains(a, pw) || strings.Contains(a, seed) {
				t.Fatalf("argv holds a value: %q", a)
			}
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r := waitRun(t, cmd, home, &out, &errb)
		return r.code, r.stdout, r.stderr
	}
	code, out, errOut := run()
	if code != 0 || !strings.Contains(out, `"n": 50`) {
		t.Fatalf("rpa run: %d\n%s\n%s", code, out, errOut)
	}
	for _, v := range []string{pw, seed} {
		if strings.Contains(out, v) || strings.Contains(errOut, v) {
			t.Errorf("the output holds %q", v)
		}
	}
	l, err := lease.NewLocal(home).Acquire(context.Background(), lease.Request{Account: "portal/admin", Holder: lease.Holder{RunID: "20261201T125300123-a1b2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	code, _, errOut = run("--account-wait", "0s")
	if code != exitFailed || !strings.Contains(errOut, "account portal/admin is in use by run 20261201T125300123-a1b2") {
		t.Errorf("a held account: %d %s", code, errOut)
	}
}

// TestRunAccountExpiryAfterClick: the session ends at the request a click
// makes (the demo's query fetch gets 401 and its script sends the page to
// /login while the next step, a read, waits for the table). Once signed in
// the run does again what it did to the page since its `open` (the region
// chosen, the click) and then the read: the result is the one of a run
// whose session did not end.
func TestRunAccountExpiryAfterClick(t *testing.T) {
	const pw, seed = "Run-acct-pw-4471", "JBSWY3DPEHPK3PXP"
	home, dir := t.TempDir(), t.TempDir()
	for name, src := range map[string]string{
		"login.flow": "flow login \"Sign in\"\nparam account: credential\nparam base_url: string\n" +
			"open \"{{ base_url }}/login\"\nfill \"#username\" account.username\nfill \"#password\" account.password\nclick \"#submit\"\n" +
			"wait url: \"/login/otp\"\nfill \"#otp\" totp(account.totp)\nclick \"#verify\"\nwait url: \"/query\"\n",
		"usage.flow": "flow usage \"Usage as an account\"\nparam account: credential\nparam base_url: string\n" +
			"defaults login: \"login\" wait: 10s\nopen \"{{ base_url }}/query\"\nselect \"#region\" \"330100\"\nclick \"text=Query\"\n" +
			"rows = table \"#data-table\"\ns = text \"#summary\"\nreturn { \"n\": len(rows), \"summary\": s }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(vault.EnvPassphrase, "run test passphrase")
	t.Setenv(vault.EnvKeyring, "off")
	st := vault.New(home, &vault.Keys{KDF: vault.KDF{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
	if err := st.Set("portal/admin", map[string]string{"username": demoapp.DemoUsername, "password": pw, "totp": seed}, false); err != nil {
		t.Fatal(err)
	}
	run := func(sessionRequests int) (int, string, string) {
		t.Helper()
		// The API answers after 4 s: the page goes to /login after the click's own look
		// (on a machine so loaded that the click's look takes longer, the click finds
		// itself signed out: the select before it is done again, then the click).
		app, err := demoapp.Start(demoapp.Options{Delay: 4 * time.Second, TOTPSeed: seed, Password: pw, SessionRequests: sessionRequests})
		if err != nil {
			t.Fatal(err)
		}
		defer app.Close()
		cmd := exec.Command(rpaBin(t), "run", filepath.Join(dir, "usage.flow"), "--arg", "account=portal/admin", "--arg", "base_url="+app.URL, "--json")
		cmd.Env = append(os.Environ(), "RPA_HOME="+home)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r := waitRun(t, cmd, home, &out, &errb)
		return r.code, r.stdout, r.stderr
	}
	// The sign-in's /query and the flow's open use the session; its query
	// request ends it.
	code, out, errOut := run(2)
	if code != 0 || !strings.Contains(out, "line 8: signed in again; doing lines 6-7 again (the session ended after line 7: click), then table") &&
		!strings.Contains(out, "line 7: signed in again; doing lines 6-6 again, then click once more") {
		t.Fatalf("rpa run with the session ending at the click's request: %d\n%s\n%s", code, out, errOut)
	}
	wcode, want, werr := run(0)
	if wcode != 0 || !strings.Contains(want, "records") || strings.Contains(want, "signed in again; doing") {
		t.Fatalf("rpa run with a lasting session: %d\n%s\n%s", wcode, want, werr)
	}
	summary := func(s string) string {
		_, after, _ := strings.Cut(s, `"outputs": {`)
		outputs, _, _ := strings.Cut(after, "}")
		return strings.Join(strings.Fields(outputs), " ")
	}
	if summary(out) != summary(want) {
		t.Errorf("summary %s, want %s", summary(out), summary(want))
	}
}

// TestRunAccountAfterServe: `rpa run` for an account whose profile a
// running `rpa serve` keeps warm after an agent's call for it runs (the
// server hands over its idle browser of the account's profile, scrubbed)
// and exits 0; the server's next call for the account takes the profile
// back the same way (tester finding: the run failed "profile
// acct-portal_admin-... is in use by rpa (pid N)" for the server's --idle,
// exit 2).
func TestRunAccountAfterServe(t *testing.T) {
	needLinux(t)
	const pw, seed = "Serve-acct-pw-5521", "JBSWY3DPEHPK3PXP"
	app, err := demoapp.Start(demoapp.Options{Delay: -1, TOTPSeed: seed, Password: pw})
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	home, dir := lifeHome(t), t.TempDir()
	accountSetup(t, home, dir, "serve test passphrase", pw, seed)
	server, endpoint := serveHTTP(t, home, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "acct-test", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(what string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_usage", Arguments: map[string]any{"account": "portal/admin", "base_url": app.URL}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", what, err, res)
		}
	}
	call("the server's call")
	profile := filepath.Join(home, "profiles", vault.ProfileFor("portal/admin"))
	if pid, _ := profiles.Holder(profile); pid != server.Process.Pid {
		t.Fatalf("the account's profile is held by pid %d, want the server %d", pid, server.Process.Pid)
	}
	cmd := exec.Command(rpaBin(t), "run", filepath.Join(dir, "usage.flow"), "--arg", "account=portal/admin", "--arg", "base_url="+app.URL, "--json")
	cmd.Env = append(os.Environ(), "RPA_HOME="+home)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"n": 50`) {
		t.Fatalf("rpa run for the account next to the server: %v\n%s", err, out)
	}
	for _, v := range []string{pw, seed} {
		if strings.Contains(string(out), v) {
			t.Errorf("the output holds %q", v)
		}
	}
	call("the server's call after the run")
	if pid, _ := profiles.Holder(profile); pid != server.Process.Pid {
		t.Fatalf("the account's profile is held by pid %d after the server's call, want %d", pid, server.Process.Pid)
	}
}

// accountSetup writes the login and usage flows into dir and the account
// portal/admin (the demo app's user, password pw, TOTP seed) into home's
// vault under passphrase pass (keyring off).
func accountSetup(t *testing.T, home, dir, pass, pw, seed string) {
	t.Helper()
	for name, src := range map[string]string{
		"login.flow": "flow login \"Sign in\"\nparam account: credential\nparam base_url: string\n" +
			"open \"{{ base_url }}/login\"\nfill \"#username\" account.username\nfill \"#password\" account.password\nclick \"#submit\"\n" +
			"wait url: \"/login/otp\"\nfill \"#otp\" totp(account.totp)\nclick \"#verify\"\nwait url: \"/query\"\n",
		"usage.flow": "flow usage \"Usage as an account\"\nparam account: credential\nparam base_url: string\n" +
			"defaults login: \"login\"\nopen \"{{ base_url }}/query\"\nclick \"text=Query\"\nrows = table \"#data-table\"\nreturn { \"n\": len(rows) }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(vault.EnvPassphrase, pass)
	t.Setenv(vault.EnvKeyring, "off")
	st := vault.New(home, &vault.Keys{KDF: vault.KDF{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
	if err := st.Set("portal/admin", map[string]string{"username": demoapp.DemoUsername, "password": pw, "totp": seed}, false); err != nil {
		t.Fatal(err)
	}
}
