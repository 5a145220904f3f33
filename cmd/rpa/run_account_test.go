package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/demoapp"
	"github.com/rpa-dev/rpa/internal/host/lease"
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
	t.Setenv(vault.EnvPassphrase, "run test passphrase")
	t.Setenv(vault.EnvKeyring, "off")
	st := vault.New(home, &vault.Keys{KDF: vault.KDF{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
	if err := st.Set("portal/admin", map[string]string{"username": demoapp.DemoUsername, "password": pw, "totp": seed}, false); err != nil {
		t.Fatal(err)
	}
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
