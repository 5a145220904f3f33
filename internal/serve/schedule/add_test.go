package schedule

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/host/vault"
	"github.com/rpa-dev/rpa/internal/runs"
)

// Bad input is a clear error at add time, naming the flag or argument,
// never a silent skip when the schedule is due.
func TestPrepareErrors(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Dir(e.flow)
	os.WriteFile(filepath.Join(dir, "login.flow"), []byte("flow login \"x\"\nparam user: string\nparam password: secret\n\nopen \"https://example.com/login\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "count.flow"), []byte("flow count \"x\"\nparam n: int\n\nopen \"https://example.com/?n={{ n }}\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "broken.flow"), []byte("flow broken \"x\"\n\nclik \"#a\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "portal.flow"), []byte("flow portal \"x\"\nparam account: credential \"the portal account\"\n\nopen \"https://portal.example.com/\"\n"), 0o644)
	for _, c := range []struct {
		name string
		d    Def
		flow string
		want string
	}{
		{"invalid cron", Def{Cron: "0 25 * * *"}, e.flow, `--cron "0 25 * * *": end of range (25) above maximum (23)`},
		{"unknown zone", Def{Cron: "0 8 * * *", TZ: "Asia/Shanghia"}, e.flow, `--tz "Asia/Shanghia": unknown time zone`},
		{"no timing", Def{}, e.flow, "when? give --cron"},
		{"both timings", Def{Cron: "0 8 * * *", Every: Duration(time.Hour)}, e.flow, "not both"},
		{"tiny every", Def{Every: Duration(time.Millisecond)}, e.flow, "--every 1ms: want at least 1s"},
		{"missing flow file", Def{Cron: "0 8 * * *"}, filepath.Join(dir, "nope.flow"), "nope.flow: no such file"},
		{"unknown flow name", Def{Cron: "0 8 * * *"}, "nope", "flow nope: no such file, and no flow of that name in " + dir},
		{"flow with errors", Def{Cron: "0 8 * * *"}, filepath.Join(dir, "broken.flow"), "has errors"},
		{"missing argument", Def{Cron: "0 8 * * *"}, filepath.Join(dir, "count.flow"), `--arg: argument "n": required`},
		{"ill-typed argument", Def{Cron: "0 8 * * *", Args: map[string]string{"n": "ten"}}, filepath.Join(dir, "count.flow"), `--arg: argument "n": want an integer, got "ten"`},
		{"unknown argument", Def{Cron: "0 8 * * *", Args: map[string]string{"regoin": "1"}}, e.flow, `regoin`},
		{"secret argument", Def{Cron: "0 8 * * *", Args: map[string]string{"user": "a", "password": "p"}}, filepath.Join(dir, "login.flow"), "--arg password: password is a secret param, and a schedule is stored: give it with --secret-env password=ENV_VAR"},
		{"required secret", Def{Cron: "0 8 * * *", Args: map[string]string{"user": "a"}}, filepath.Join(dir, "login.flow"), "needs the secret param password, and a schedule stores no secrets: give it with --secret-env password=ENV_VAR"},
		{"secret-env for a plain param", Def{Cron: "0 8 * * *", Args: map[string]string{"password": "p"}, SecretEnv: map[string]string{"user": "U"}}, filepath.Join(dir, "login.flow"), "--secret-env user=U: user is not a secret param"},
		{"secret-env for no param", Def{Cron: "0 8 * * *", SecretEnv: map[string]string{"pw": "U"}}, filepath.Join(dir, "login.flow"), "flow login has no param pw"},
		{"secret-env bad variable", Def{Cron: "0 8 * * *", Args: map[string]string{"user": "a"}, SecretEnv: map[string]string{"password": "MY-PW"}}, filepath.Join(dir, "login.flow"), `"MY-PW" is not an environment variable name`},
		{"timing first", Def{Cron: "bad"}, filepath.Join(dir, "nope.flow"), `--cron "bad"`},
		{"credential without an account", Def{Cron: "0 8 * * *"}, filepath.Join(dir, "portal.flow"), "flow portal signs in with the credential param account: give --account NAME"},
		{"account for a flow without credentials", Def{Cron: "0 8 * * *", Account: "portal/admin"}, e.flow, "--account portal/admin: flow site_check has no credential param"},
		{"bad policy", Def{Cron: "0 8 * * *", Missed: "all"}, e.flow, `--missed "all"`},
		{"bad webhook scheme", Def{Cron: "0 8 * * *", Notify: "ftp://example.com/x"}, e.flow, "want an http:// or https:// URL"},
		{"webhook with a password", Def{Cron: "0 8 * * *", Notify: "https://u:pw@example.com/x"}, e.flow, "put no user or password in the URL"},
		{"negative retries", Def{Cron: "0 8 * * *", Retries: -1}, e.flow, "--retries -1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.d.Name = "s"
			err := Prepare(&c.d, c.flow, dir, start)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v\nwant %q", err, c.want)
			}
		})
	}
	if err := Prepare(&Def{Name: "Bad Name", Cron: "0 8 * * *"}, e.flow, dir, start); err == nil || !strings.Contains(err.Error(), `schedule name "Bad Name"`) {
		t.Errorf("bad name: %v", err)
	}
	// A secret from the environment: accepted without its value.
	sd := Def{Name: "s2", Cron: "0 8 * * *", Args: map[string]string{"user": "a"}, SecretEnv: map[string]string{"password": "RPA_TEST_PW"}}
	if err := Prepare(&sd, filepath.Join(dir, "login.flow"), dir, start); err != nil {
		t.Fatalf("secret-env: %v", err)
	}
	t.Setenv("RPA_TEST_PW", "")
	os.Unsetenv("RPA_TEST_PW")
	if _, err := withSecrets(&sd); err == nil || !strings.Contains(err.Error(), "RPA_TEST_PW, which is not set in this process") {
		t.Fatalf("unset variable: %v", err)
	}
	t.Setenv("RPA_TEST_PW", "hunter2hunter2")
	if kv, err := withSecrets(&sd); err != nil || kv["password"] != "hunter2hunter2" || kv["user"] != "a" {
		t.Fatalf("withSecrets: %v %v", kv, err)
	}
	// An account fills the credential param, given with --account or --arg.
	for _, ad := range []Def{{Name: "p1", Cron: "0 8 * * *", Account: "portal/admin"}, {Name: "p2", Cron: "0 8 * * *", Args: map[string]string{"account": "portal/admin"}}} {
		if err := Prepare(&ad, filepath.Join(dir, "portal.flow"), dir, start); err != nil || ad.Account != "portal/admin" || AccountKey(&ad) != "portal/admin" {
			t.Fatalf("%s: %v %+v", ad.Name, err, ad)
		}
	}
	// A published flow by its name; a duplicate name.
	d := Def{Name: "s", Cron: "0 8 * * *"}
	if err := Prepare(&d, "site_check", dir, start); err != nil || d.Flow != e.flow || d.FlowName != "site_check" {
		t.Fatalf("by name: %v %+v", err, d)
	}
	if _, err := Add(e.st, &d, start); err != nil {
		t.Fatal(err)
	}
	if _, err := Add(e.st, &d, start); err == nil || !strings.Contains(err.Error(), "schedule s: a schedule of that name exists") {
		t.Fatalf("duplicate: %v", err)
	}
}

// An unreachable webhook is found at add time.
func TestProbeNotifyURL(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := ProbeNotifyURL(context.Background(), "http://"+addr+"/hook?token=abc", 5*time.Second); err != nil {
		t.Fatalf("open port: %v", err)
	}
	l.Close()
	err = ProbeNotifyURL(context.Background(), "http://"+addr+"/hook?token=abc", 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "cannot reach "+addr) || strings.Contains(err.Error(), "abc") {
		t.Fatalf("closed port: %v", err)
	}
}

func TestParseLimit(t *testing.T) {
	var l runs.Limits
	for _, s := range []string{"2", "site=1", "account=3"} {
		if err := ParseLimit(s, &l); err != nil {
			t.Fatal(err)
		}
	}
	if l != (runs.Limits{Flow: 2, Site: 1, Account: 3}) {
		t.Fatalf("limits %+v", l)
	}
	for _, s := range []string{"x", "site=-1", "host=1", "1.5"} {
		if err := ParseLimit(s, &l); err == nil {
			t.Errorf("ParseLimit(%q) = nil", s)
		}
	}
}

// TestAddChecksAccount: `rpa schedule add --account NAME` checks NAME
// against the vault when it is added: an account the vault lacks, or one
// without a field the flow (or its sign-in flow) reads, is refused (exit
// 2) naming the flag and listing the accounts that fit; a wrong
// passphrase is the vault's error (exit 1); a process that cannot get the
// key adds it with a note (it is checked when it fires).
func TestAddChecksAccount(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	t.Setenv("RPA_VAULT_KEYRING", "off")
	t.Setenv("RPA_VAULT_PASSPHRASE", "add checks accounts")
	dir := filepath.Join(home, "flows")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "portal.flow"), []byte("flow portal \"x\"\nparam account: credential \"the portal account\"\ndefaults login: \"portal_login\"\n\nopen \"https://portal.example.com/\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "portal_login.flow"), []byte("flow portal_login \"x\"\nparam account: credential\n\nopen \"https://portal.example.com/login\"\nfill \"#u\" account.username\nfill \"#p\" account.password\n"), 0o644)
	st := vault.New(home, &vault.Keys{KDF: vault.KDF{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}})
	for name, f := range map[string]map[string]string{
		"portal/admin": {"username": "a", "password": "p"},
		"portal/ops":   {"username": "o", "password": "p"},
		"mail":         {"password": "p"},
	} {
		if err := st.Set(name, f, false); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	add := func(args ...string) (int, string) {
		var o, e strings.Builder
		c := &Cmd{Home: home, FlowsDir: dir, Stdout: &o, Stderr: &e}
		n++
		code := c.Run(context.Background(), append([]string{"add", fmt.Sprint("s", n), "portal", "--cron", "0 8 * * *"}, args...))
		return code, e.String()
	}
	for _, c := range []struct {
		name string
		args []string
		code int
		want []string
		not  []string
	}{
		{"no such account", []string{"--account", "portal/admn"}, exitUsage,
			[]string{`--account portal/admn: no account "portal/admn" in the vault; did you mean "portal/admin"?`, "accounts of the vault that fit: portal/admin, portal/ops (fields password, username)"},
			[]string{"mail"}},
		{"by --arg", []string{"--arg", "account=nosuch"}, exitUsage,
			[]string{`--arg account=nosuch: no account "nosuch" in the vault`, "portal/admin, portal/ops"}, nil},
		{"a field the sign-in flow reads is missing", []string{"--account", "mail"}, exitUsage,
			[]string{"--account mail: account mail has no field username, which flow portal reads (it has password); accounts of the vault that fit: portal/admin, portal/ops"}, nil},
		{"a 5 MB name is not echoed", []string{"--account", strings.Repeat("x", 5<<20)}, exitUsage, []string{"--account: the account name is too long (5242880 bytes; at most 128)"}, []string{strings.Repeat("x", 200)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, errs := add(c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d: %s", code, c.code, clipForLog(errs))
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, clipForLog(errs))
				}
			}
			for _, n := range c.not {
				if strings.Contains(errs, n) {
					t.Errorf("stderr holds %q:\n%s", clipForLog(n), clipForLog(errs))
				}
			}
		})
	}
	if code, errs := add("--account", "portal/ops"); code != exitOK {
		t.Fatalf("a good account: %d %s", code, errs)
	}
	t.Setenv("RPA_VAULT_PASSPHRASE", "not the passphrase")
	if code, errs := add("--account", "portal/admin"); code != exitFailed || !strings.Contains(errs, "the vault passphrase is wrong") {
		t.Errorf("wrong passphrase: %d %s", code, errs)
	}
	t.Setenv("RPA_VAULT_PASSPHRASE", "")
	if code, errs := add("--account", "portal/whoever"); code != exitOK || !strings.Contains(errs, "--account portal/whoever is not checked against the vault here") {
		t.Errorf("no key: %d %s", code, errs)
	}
}

func clipForLog(s string) string {
	if len(s) > 500 {
		return s[:500] + "…"
	}
	return s
}
