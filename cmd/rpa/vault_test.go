package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/host/vault"
)

// vaultEnv is a fresh $RPA_HOME whose vault takes its key from a
// passphrase (no OS keyring in tests).
func vaultEnv(t *testing.T, passphrase string) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	t.Setenv("RPA_VAULT_KEYRING", "off")
	t.Setenv("RPA_VAULT_PASSPHRASE", passphrase)
	return home
}

// vaultIn runs `rpa vault ARGS` with stdin.
func vaultIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	old := vaultStdin
	vaultStdin = strings.NewReader(stdin)
	defer func() { vaultStdin = old }()
	return capture(t, append([]string{"vault"}, args...)...)
}

func TestVaultCommand(t *testing.T) {
	home := vaultEnv(t, "vault pass phrase")
	const pw, seed = "s3cret-Portal-pw", "JBSWY3DPEHPK3PXP"
	code, out, errOut := vaultIn(t, `{"username":"admin","password":"`+pw+`","totp":"`+seed+`"}`, "set", "portal/admin")
	if code != 0 || !strings.Contains(out, "stored portal/admin (3 fields)") {
		t.Fatalf("set: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := vaultIn(t, `{"password":"x-other"}`, "set", "mail"); code != 0 {
		t.Fatalf("set mail: %s", errOut)
	}
	code, out, _ = vaultIn(t, "", "list")
	if code != 0 || !strings.Contains(out, "NAME") || !strings.Contains(out, "portal/admin  password,totp,username") || !strings.Contains(out, "mail ") {
		t.Errorf("list: %d\n%s", code, out)
	}
	code, out, _ = vaultIn(t, "", "list", "--json")
	var l []struct {
		Name   string   `json:"name"`
		Fields []string `json:"fields"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil || len(l) != 2 || l[1].Name != "portal/admin" || len(l[1].Fields) != 3 {
		t.Errorf("list --json: %d %s", code, out)
	}
	for _, o := range []string{out} {
		if strings.Contains(o, pw) || strings.Contains(o, seed) {
			t.Error("list shows a value")
		}
	}
	// Bad input: exit 2, the field named, the value never shown.
	for _, c := range []struct{ stdin, want string }{
		{`{"totp":"bad seed value!"}`, `field "totp": bad TOTP seed`},
		{`not json`, "want one JSON object of strings"},
		{`{"password": 3}`, `field "password" is not a string`},
		// valid JSON, 40 MB: the bound is named, not "want one JSON object"
		{`{"password":"` + strings.Repeat("a", 40<<20) + `"}`, "stdin: too large: more than 2099200 bytes"},
	} {
		code, _, errOut := vaultIn(t, c.stdin, "set", "x")
		if code != exitUsage || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "bad seed value!") {
			t.Errorf("set %.40s: %d %q", c.stdin, code, errOut)
		}
	}
	// No such account: bad input, exit 2 (README), as `rpa schedule rm`.
	if code, _, errOut := vaultIn(t, "", "rm", "portal/admn"); code != exitUsage || !strings.Contains(errOut, `did you mean "portal/admin"?`) {
		t.Errorf("rm unknown: %d %q", code, errOut)
	}
	// A wrong passphrase: exit 1, a clear message, the vault unchanged.
	before, _ := os.ReadFile(filepath.Join(home, "vault", "vault.enc"))
	t.Setenv("RPA_VAULT_PASSPHRASE", "not the one")
	if code, _, errOut := vaultIn(t, `{"password":"p"}`, "set", "y"); code != exitFailed || !strings.Contains(errOut, "the vault passphrase is wrong") {
		t.Errorf("wrong passphrase: %d %q", code, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(home, "vault", "vault.enc")); string(after) != string(before) {
		t.Error("the vault changed")
	}
	// list too: the names are sealed with the values.
	if code, out, errOut := vaultIn(t, "", "list"); code != exitFailed || out != "" || !strings.Contains(errOut, "the vault passphrase is wrong") {
		t.Errorf("list with a wrong passphrase: %d %q %q", code, out, errOut)
	}
	// rpa run too (README: a vault that would not open is exit 1), before
	// any browser starts.
	fl := filepath.Join(t.TempDir(), "acct.flow")
	if err := os.WriteFile(fl, []byte("flow acct \"Account\"\nparam account: credential\nopen \"http://127.0.0.1:9/\"\nfill \"#u\" account.username\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := capture(t, "run", fl, "--arg", "account=portal/admin"); code != exitFailed || !strings.Contains(errOut, "the vault passphrase is wrong") {
		t.Errorf("run with a wrong passphrase: %d %q", code, errOut)
	}
	if bytes.Contains(before, []byte("portal/admin")) {
		t.Error("the vault file holds an account name in clear")
	}
	t.Setenv("RPA_VAULT_PASSPHRASE", "vault pass phrase")

	// Export, then import on another desktop.
	exp := filepath.Join(t.TempDir(), "accounts.vault")
	t.Setenv("RPA_VAULT_EXPORT_PASSPHRASE", "moving-day-2")
	if code, _, errOut := vaultIn(t, "", "export", "portal/admn", "-o", filepath.Join(t.TempDir(), "x.vault")); code != exitUsage || !strings.Contains(errOut, `did you mean "portal/admin"?`) {
		t.Errorf("export unknown: %d %q", code, errOut)
	}
	if code, out, errOut := vaultIn(t, "", "export", "portal/admin", "-o", exp); code != 0 || !strings.Contains(out, "exported to") {
		t.Fatalf("export: %d %q %q", code, out, errOut)
	}
	if b, _ := os.ReadFile(exp); strings.Contains(string(b), pw) || strings.Contains(string(b), seed) {
		t.Fatal("the export file holds a value")
	}
	vaultEnv(t, "another desktop's passphrase")
	if code, out, errOut := vaultIn(t, "", "import", exp); code != 0 || !strings.Contains(out, "imported 1 accounts: portal/admin") {
		t.Fatalf("import: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := vaultIn(t, "", "import", exp); code != exitUsage || !strings.Contains(errOut, "--overwrite") {
		t.Errorf("import again: %d %q", code, errOut)
	}
	// An export file's wrong passphrase: it would not open, exit 1.
	t.Setenv("RPA_VAULT_EXPORT_PASSPHRASE", "not-moving-day")
	if code, _, errOut := vaultIn(t, "", "import", exp, "--overwrite"); code != exitFailed {
		t.Errorf("import with a wrong passphrase: %d %q", code, errOut)
	}
	t.Setenv("RPA_VAULT_EXPORT_PASSPHRASE", "moving-day-2")
	if code, _, _ := vaultIn(t, "", "import", exp, "--overwrite"); code != 0 {
		t.Errorf("import --overwrite: %d", code)
	}
	if code, _, _ := vaultIn(t, "", "rm", "portal/admin"); code != 0 {
		t.Errorf("rm: %d", code)
	}
	// Usage.
	for _, args := range [][]string{{}, {"frob"}, {"set"}, {"export"}, {"list", "x"}} {
		if code, _, _ := vaultIn(t, "", args...); code != exitUsage {
			t.Errorf("vault %v: %d", args, code)
		}
	}
}

// TestVaultProfileExitCodes: README's exit codes hold for rpa vault and
// rpa profile: 2 only for bad input (nothing changed), 1 for a failure
// that is not the input's (a file that cannot be written, an export file
// that does not open or holds no profile, a browser that does not start):
// those exited 2 through runSub's default.
func TestVaultProfileExitCodes(t *testing.T) {
	vaultEnv(t, "test vault passphrase")
	t.Setenv("RPA_VAULT_EXPORT_PASSPHRASE", "export passphrase")
	if code, _, errOut := vaultIn(t, `{"password":"p"}`, "set", "a"); code != 0 {
		t.Fatalf("set: %d %s", code, errOut)
	}
	dir := t.TempDir()
	sealed := func(data string) string {
		t.Helper()
		b, err := vault.SealData(vault.KindProfile, []byte(data), []byte("export passphrase"), vault.KDF{Time: 1, MemoryKiB: 8 * 1024, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("p%d.rpaprofile", len(data)))
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notProfile := sealed(`[1,2]`)
	good := sealed(`{"cookies":[],"origins":[]}`)
	for _, c := range []struct {
		name string
		args []string
		want int
	}{
		{"vault export to a folder that does not exist", []string{"vault", "export", "a", "-o", filepath.Join(dir, "no", "such", "x.vault")}, exitFailed},
		{"vault import of a file that does not exist", []string{"vault", "import", filepath.Join(dir, "missing.vault")}, exitUsage},
		{"vault import of a folder", []string{"vault", "import", dir}, exitUsage},
		{"profile export of a bad name", []string{"profile", "export", "../x", "-o", filepath.Join(dir, "x")}, exitUsage},
		{"profile export of a profile that does not exist", []string{"profile", "export", "nosuch", "-o", filepath.Join(dir, "x")}, exitUsage},
		{"profile import of a file that does not exist", []string{"profile", "import", "p", filepath.Join(dir, "missing")}, exitUsage},
		{"profile import of a file that holds no profile", []string{"profile", "import", "p", notProfile}, exitFailed},
		{"profile import without a browser", []string{"profile", "import", "p", good}, exitFailed},
	} {
		t.Setenv("ROD_BROWSER", filepath.Join(dir, "no-browser")) // no browser starts
		code, _, errOut := capture(t, c.args...)
		if code != c.want {
			t.Errorf("%s: exit %d, want %d (%s)", c.name, code, c.want, strings.TrimSpace(errOut))
		}
	}
}
