package vault

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zalando/go-keyring"
)

const (
	pass     = "correct horse battery staple"
	password = "Hunter2-portal-pw"
	username = "ops-user-7"
	seed     = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
)

// testKDF keeps argon2id cheap in tests (the costs are in the file).
var testKDF = KDF{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}

func TestMain(m *testing.M) {
	switch os.Getenv("VAULT_TEST_HELPER") {
	case "":
		os.Exit(m.Run())
	case "set":
		helperSet()
	case "hang":
		helperHang()
	}
}

// passKeys returns Keys that answer pass when asked and count the asks.
func passKeys(p string, asks *int) *Keys {
	return &Keys{KDF: testKDF, Passphrase: func(prompt string, confirm bool) ([]byte, error) {
		if asks != nil {
			*asks++
		}
		return []byte(p), nil
	}}
}

func newStore(t *testing.T, keys *Keys) *Store {
	t.Helper()
	t.Setenv(EnvPassphrase, "")
	return New(t.TempDir(), keys)
}

func portal() map[string]string {
	return map[string]string{"username": username, "password": password, "totp": seed}
}

func TestSetGetListRemove(t *testing.T) {
	asks := 0
	s := newStore(t, passKeys(pass, &asks))
	if l, err := s.List(); err != nil || len(l) != 0 {
		t.Fatalf("empty List = %v %v", l, err)
	}
	if err := s.Set("portal/admin", portal(), false); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("mail@corp", map[string]string{"password": "x1"}, false); err != nil {
		t.Fatal(err)
	}
	e, err := s.Get("portal/admin")
	if err != nil {
		t.Fatal(err)
	}
	if e.Fields["password"] != password || e.Fields["totp"] != seed || e.Fields["username"] != username || e.Updated.IsZero() {
		t.Errorf("Get = %+v", e)
	}
	if v := e.Values(); strings.Join(v, ",") != "Hunter2-portal-pw,"+seed+","+username {
		t.Errorf("Values = %v", v)
	}
	l, err := s.List()
	if err != nil || len(l) != 2 || l[0].Name != "mail@corp" || l[1].Name != "portal/admin" ||
		strings.Join(l[1].Fields, ",") != "password,totp,username" || !l[1].Has("password", "totp") || l[0].Has("totp") {
		t.Errorf("List = %+v %v", l, err)
	}
	// Merge keeps other fields; a plain set replaces them all.
	if err := s.Set("portal/admin", map[string]string{"password": "new-pw-123"}, true); err != nil {
		t.Fatal(err)
	}
	if e, _ := s.Get("portal/admin"); e.Fields["password"] != "new-pw-123" || e.Fields["username"] != username {
		t.Errorf("after merge: %v", e.Fields)
	}
	if err := s.Set("portal/admin", map[string]string{"password": "only"}, false); err != nil {
		t.Fatal(err)
	}
	if e, _ := s.Get("portal/admin"); len(e.Fields) != 1 {
		t.Errorf("after replace: %v", e.Fields)
	}
	_, err = s.Get("portal/admn")
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.Suggest != "portal/admin" || !errors.Is(err, ErrNotFound) ||
		err.Error() != `no account "portal/admn" in the vault; did you mean "portal/admin"?` {
		t.Errorf("Get unknown = %v", err)
	}
	if err := s.Remove("portal/admin"); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove("portal/admin"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Remove = %v", err)
	}
	if l, _ := s.List(); len(l) != 1 {
		t.Errorf("List after Remove = %+v", l)
	}
	// The passphrase was asked once, for the new vault.
	if asks != 1 {
		t.Errorf("passphrase asked %d times", asks)
	}
	if st, err := os.Stat(s.Path()); err != nil || runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("vault file mode: %v %v", st.Mode(), err)
	}
}

// TestNoValueAtRest: nothing under the vault folder holds a value in
// clear, in any spelling the index could leak.
func TestNoValueAtRest(t *testing.T) {
	s := newStore(t, passKeys(pass, nil))
	if err := s.Set("portal/admin", portal(), false); err != nil {
		t.Fatal(err)
	}
	err := filepath.Walk(s.Dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		for _, v := range []string{password, seed, pass, username} {
			if bytes.Contains(b, []byte(v)) {
				t.Errorf("%s holds %q", p, v)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCheckInput(t *testing.T) {
	s := newStore(t, passKeys(pass, nil))
	for _, c := range []struct {
		name   string
		fields map[string]string
		want   string
	}{
		{"", portal(), "name is empty"},
		{"a//b", portal(), "bad account name"},
		{"../x", portal(), "bad account name"},
		{"a b", portal(), "bad account name"},
		{strings.Repeat("a", 129), portal(), "the account name is too long (129 bytes; at most 128)"},
		{"ok", nil, "no fields"},
		{"ok", map[string]string{"Password": "x"}, `bad field name "Password"`},
		{"ok", map[string]string{"password": ""}, `field "password" is empty`},
		{"ok", map[string]string{"totp": "not a seed!"}, `field "totp": bad TOTP seed`},
		{"ok", map[string]string{"password": "\xff"}, "not UTF-8"},
	} {
		err := s.Set(c.name, c.fields, false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Set(%q, %v) = %v, want %q", c.name, c.fields, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "not a seed!") {
			t.Errorf("the error quotes the value: %v", err)
		}
	}
	if _, err := os.Stat(s.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("refused sets made a vault: %v", err)
	}
}

func TestWrongPassphrase(t *testing.T) {
	home := t.TempDir()
	t.Setenv(EnvPassphrase, "")
	s := New(home, passKeys(pass, nil))
	if err := s.Set("portal/admin", portal(), false); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(s.Path())
	asks := 0
	bad := New(home, passKeys("wrong horse", &asks))
	_, err := bad.Get("portal/admin")
	if !errors.Is(err, ErrWrongKey) || !strings.HasSuffix(err.Error(), ": the vault passphrase is wrong") {
		t.Fatalf("Get with a wrong passphrase = %v", err)
	}
	// A change is refused and the file is left as it was; the wrong
	// passphrase is forgotten, so the next try asks again.
	if err := bad.Set("other", map[string]string{"password": "p"}, false); !errors.Is(err, ErrWrongKey) {
		t.Errorf("Set with a wrong passphrase = %v", err)
	}
	if asks != 2 {
		t.Errorf("asked %d times, want 2 (a wrong one is not kept)", asks)
	}
	after, _ := os.ReadFile(s.Path())
	if !bytes.Equal(before, after) {
		t.Error("the vault changed")
	}
	// The environment variable works as a passphrase.
	t.Setenv(EnvPassphrase, pass)
	if e, err := New(home, &Keys{}).Get("portal/admin"); err != nil || e.Fields["password"] != password {
		t.Errorf("with %s: %v", EnvPassphrase, err)
	}
	t.Setenv(EnvPassphrase, "")
	if _, err := New(home, &Keys{}).Get("portal/admin"); !errors.Is(err, ErrNoPassphrase) {
		t.Errorf("nobody to ask: %v", err)
	}
	// No terminal to ask on (a script's stdin holds the fields): the error says the passphrase
	// was wanted and how to give it, and why nobody was asked.
	noTTY := func(string, bool) (string, bool, error) {
		return "", false, Input(fmt.Errorf("%w: open /dev/tty: no such device", ErrNoTerminal))
	}
	_, err = New(home, &Keys{Passphrase: PassphraseFrom(noTTY)}).Get("portal/admin")
	if !errors.Is(err, ErrNoPassphrase) || !BadInput(err) || !strings.Contains(err.Error(), EnvPassphrase) || !strings.Contains(err.Error(), "open /dev/tty") {
		t.Errorf("no terminal: %v", err)
	}
}

// TestListNeedsKey: the names of the accounts are sealed with their
// values: the file holds none of them, and List refuses a wrong
// passphrase (and no passphrase) as Get does.
func TestListNeedsKey(t *testing.T) {
	home := t.TempDir()
	t.Setenv(EnvPassphrase, "")
	s := New(home, passKeys(pass, nil))
	for _, n := range []string{"portal/admin", "mail@corp"} {
		if err := s.Set(n, portal(), false); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(s.Path())
	for _, v := range []string{"portal", "mail@corp", "username", "totp", "updated"} {
		if bytes.Contains(b, []byte(v)) {
			t.Errorf("the vault file holds %q in clear", v)
		}
	}
	if l, err := New(home, passKeys(pass, nil)).List(); err != nil || len(l) != 2 || l[1].Name != "portal/admin" {
		t.Errorf("List with the passphrase = %+v %v", l, err)
	}
	l, err := New(home, passKeys("wrong horse", nil)).List()
	if !errors.Is(err, ErrWrongKey) || !strings.HasSuffix(err.Error(), ": the vault passphrase is wrong") || l != nil {
		t.Errorf("List with a wrong passphrase = %+v %v", l, err)
	}
	if l, err := New(home, &Keys{}).List(); !errors.Is(err, ErrNoPassphrase) || l != nil {
		t.Errorf("List with no passphrase = %+v %v", l, err)
	}
	if m := New(home, passKeys("wrong horse", nil)).Matching(nil); m != nil {
		t.Errorf("Matching with a wrong passphrase = %v", m)
	}
	if src, err := New(home, &Keys{}).KeySource(); src != SourcePassphrase || err != nil {
		t.Errorf("KeySource without the key = %q %v", src, err)
	}
}

// TestFormat1Migrates: a vault of the format with its index in clear
// (testdata/vault-v1.enc, written by rpa before the index was sealed:
// portal/admin and mail@corp under pass, testKDF) is read with the key
// only, left as it is by reads, and written in the current format by the
// next change, keeping the update times of the accounts not changed.
func TestFormat1Migrates(t *testing.T) {
	old, err := os.ReadFile(filepath.Join("testdata", "vault-v1.enc"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	t.Setenv(EnvPassphrase, "")
	s := New(home, passKeys(pass, nil))
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path(), old, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New(home, passKeys("wrong horse", nil)).List(); !errors.Is(err, ErrWrongKey) {
		t.Errorf("List of a format 1 vault with a wrong passphrase = %v", err)
	}
	l, err := s.List()
	when := time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
	if err != nil || len(l) != 2 || l[1].Name != "portal/admin" || !l[1].Updated.Equal(when) {
		t.Fatalf("List of a format 1 vault = %+v %v", l, err)
	}
	if e, err := s.Get("portal/admin"); err != nil || e.Fields["password"] != password {
		t.Fatalf("Get of a format 1 vault = %v", err)
	}
	if now, _ := os.ReadFile(s.Path()); !bytes.Equal(now, old) {
		t.Error("a read rewrote the vault")
	}
	// The next change writes format 2.
	if err := s.Set("new/one", map[string]string{"password": "p"}, false); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(s.Path())
	if !bytes.HasPrefix(b, []byte("rpa-vault 2 ")) || bytes.Contains(b, []byte("portal")) || bytes.Contains(b, []byte("entries")) {
		t.Errorf("after a change:\n%s", b)
	}
	if tmps, _ := filepath.Glob(filepath.Join(s.Dir, "."+FileName+"-*")); len(tmps) != 0 {
		t.Errorf("temp files left: %v", tmps)
	}
	l, err = New(home, passKeys(pass, nil)).List()
	if err != nil || len(l) != 3 || l[2].Name != "portal/admin" || !l[2].Updated.Equal(when) || l[1].Updated.Equal(when) {
		t.Errorf("List after the change = %+v %v", l, err)
	}
	if e, err := New(home, passKeys(pass, nil)).Get("mail@corp"); err != nil || e.Fields["password"] != "x1" {
		t.Errorf("Get after the change = %v", err)
	}
}

// TestDamagedFiles: a truncated file, every flipped byte, and an altered
// file with its checksum recomputed are refused as damaged, never opened,
// and a change on them leaves them as they are.
func TestDamagedFiles(t *testing.T) {
	home := t.TempDir()
	t.Setenv(EnvPassphrase, "")
	s := New(home, passKeys(pass, nil))
	if err := s.Set("portal/admin", portal(), false); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(s.Path())
	try := func(what string, b []byte, want string) {
		t.Helper()
		if err := os.WriteFile(s.Path(), b, 0o600); err != nil {
			t.Fatal(err)
		}
		fresh := New(home, passKeys(pass, nil))
		_, err := fresh.Get("portal/admin")
		if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: Get = %v, want ErrDamaged %q", what, err, want)
		}
		if err := fresh.Set("x", map[string]string{"password": "p"}, false); !errors.Is(err, ErrDamaged) {
			t.Fatalf("%s: Set = %v", what, err)
		}
		if now, _ := os.ReadFile(s.Path()); !bytes.Equal(now, b) {
			t.Fatalf("%s: the file was rewritten", what)
		}
	}
	try("empty", nil, "empty")
	try("not a vault", []byte("hello\n"), "not an rpa vault file")
	try("newer", []byte("rpa-vault 9 sha256=00\n{}\nAAAA\n"), "written by a newer rpa (format 9")
	for _, n := range []int{len(good) - 1, len(good) - 10, len(good) / 2, 40, 12} {
		try(fmt.Sprintf("truncated to %d", n), good[:n], "truncated")
	}
	for i := range good {
		b := bytes.Clone(good)
		b[i] ^= 0x01
		if b[i] == '\n' || good[i] == '\n' {
			b[i] = good[i] ^ 0x04
		}
		if err := os.WriteFile(s.Path(), b, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := New(home, passKeys(pass, nil)).Get("portal/admin")
		if !errors.Is(err, ErrDamaged) {
			t.Fatalf("byte %d flipped: %v", i, err)
		}
	}
	// Altered and re-summed: the AEAD refuses it.
	lines := strings.SplitAfter(string(good), "\n")
	resum := func(l2, l3 string) []byte {
		sum := sha256.Sum256([]byte(l2 + l3))
		return []byte("rpa-vault 2 sha256=" + hex.EncodeToString(sum[:]) + "\n" + l2 + l3)
	}
	try("header changed", resum(strings.Replace(lines[1], `{"key"`, `{"x":1,"key"`, 1), lines[2]), "fails authentication")
	try("an index in clear added", resum(strings.Replace(lines[1], `{"key"`, `{"entries":[{"name":"a"}],"key"`, 1), lines[2]), "holds an index in clear")
	try("relabelled as format 1", bytes.Replace(resum(lines[1], lines[2]), []byte("rpa-vault 2"), []byte("rpa-vault 1"), 1), "fails authentication")
	ct := []byte(lines[2])
	ct[20] ^= 0x02 // still base64
	if ct[20] == '\n' || !strings.ContainsRune("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", rune(ct[20])) {
		ct[20] = 'A'
	}
	try("sealed part changed", resum(lines[1], string(ct)), "fails authentication")
	// The good file still opens.
	if err := os.WriteFile(s.Path(), good, 0o600); err != nil {
		t.Fatal(err)
	}
	if e, err := New(home, passKeys(pass, nil)).Get("portal/admin"); err != nil || e.Fields["password"] != password {
		t.Fatalf("good file: %v", err)
	}
}

// mapKeyring is an OS keyring in memory.
type mapKeyring struct {
	mu sync.Mutex
	m  map[string]string
}

func (k *mapKeyring) Get(service, user string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	s, ok := k.m[service+"/"+user]
	if !ok {
		return "", keyring.ErrNotFound
	}
	return s, nil
}

func (k *mapKeyring) Set(service, user, secret string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil {
		k.m = map[string]string{}
	}
	k.m[service+"/"+user] = secret
	return nil
}

type brokenKeyring struct{}

func (brokenKeyring) Get(string, string) (string, error) { return "", errors.New("no D-Bus session") }
func (brokenKeyring) Set(string, string, string) error   { return errors.New("no D-Bus session") }

func TestKeyringKey(t *testing.T) {
	home := t.TempDir()
	t.Setenv(EnvPassphrase, "")
	kr := &mapKeyring{}
	asks := 0
	s := New(home, &Keys{Keyring: kr, Passphrase: passKeys(pass, &asks).Passphrase})
	if err := s.Set("portal/admin", portal(), false); err != nil {
		t.Fatal(err)
	}
	if asks != 0 {
		t.Errorf("a keyring vault asked for a passphrase")
	}
	if src, _ := s.KeySource(); src != SourceKeyring || len(kr.m) != 1 {
		t.Errorf("source %q, keyring %v", src, kr.m)
	}
	// Another process (fresh Keys) with the same keyring opens it.
	if e, err := New(home, &Keys{Keyring: kr}).Get("portal/admin"); err != nil || e.Fields["password"] != password {
		t.Fatalf("reopen: %v", err)
	}
	_, err := New(home, &Keys{}).Get("portal/admin")
	if !errors.Is(err, ErrWrongKey) || !strings.Contains(err.Error(), "its key is in the OS keyring, which is not used here") {
		t.Errorf("no keyring: %v", err)
	}
	_, err = New(home, &Keys{Keyring: &mapKeyring{}}).Get("portal/admin")
	if !errors.Is(err, ErrWrongKey) || !strings.Contains(err.Error(), "its key is not in this user's OS keyring") {
		t.Errorf("another keyring: %v", err)
	}
	// A keyring that does not answer: a new vault falls back to a
	// passphrase.
	s2 := New(t.TempDir(), &Keys{Keyring: brokenKeyring{}, KDF: testKDF, Passphrase: passKeys(pass, &asks).Passphrase})
	if err := s2.Set("a", map[string]string{"password": "p"}, false); err != nil {
		t.Fatal(err)
	}
	if src, _ := s2.KeySource(); src != SourcePassphrase || asks != 1 {
		t.Errorf("fallback: source %q, asks %d", src, asks)
	}
}

func TestExportImport(t *testing.T) {
	t.Setenv(EnvPassphrase, "")
	src := New(t.TempDir(), passKeys(pass, nil))
	for _, n := range []string{"portal/admin", "portal/ops", "mail"} {
		if err := src.Set(n, portal(), false); err != nil {
			t.Fatal(err)
		}
	}
	exp, err := src.Export([]string{"portal/admin", "portal/ops"}, []byte("moving day"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(exp, []byte(password)) || bytes.Contains(exp, []byte(seed)) {
		t.Fatal("the export holds a value in clear")
	}
	if _, err := src.Export([]string{"nope"}, []byte("x")); !errors.Is(err, ErrNotFound) {
		t.Errorf("export unknown: %v", err)
	}
	// Another desktop with its vault in the keyring.
	dst := New(t.TempDir(), &Keys{Keyring: &mapKeyring{}, KDF: testKDF})
	if err := dst.Set("portal/ops", map[string]string{"password": "old"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := dst.Import("x.vault", exp, []byte("wrong"), false); !errors.Is(err, ErrWrongKey) {
		t.Errorf("wrong export passphrase: %v", err)
	}
	_, err = dst.Import("x.vault", exp, []byte("moving day"), false)
	var ie *ImportError
	if !errors.As(err, &ie) || strings.Join(ie.Names, ",") != "portal/ops" {
		t.Fatalf("clash: %v", err)
	}
	names, err := dst.Import("x.vault", exp, []byte("moving day"), true)
	if err != nil || strings.Join(names, ",") != "portal/admin,portal/ops" {
		t.Fatalf("Import = %v %v", names, err)
	}
	if e, err := dst.Get("portal/ops"); err != nil || e.Fields["password"] != password {
		t.Errorf("imported: %v %v", e, err)
	}
	if l, _ := dst.List(); len(l) != 2 {
		t.Errorf("List = %+v", l)
	}
	if _, err := dst.Import("x.vault", exp[:len(exp)-5], []byte("moving day"), true); !errors.Is(err, ErrDamaged) {
		t.Errorf("truncated export: %v", err)
	}
}

// helperSet is a process that sets VAULT_TEST_N accounts named
// VAULT_TEST_PREFIX-i in the vault of VAULT_TEST_HOME.
func helperSet() {
	s := New(os.Getenv("VAULT_TEST_HOME"), &Keys{KDF: testKDF})
	var n int
	fmt.Sscan(os.Getenv("VAULT_TEST_N"), &n)
	for i := 0; i < n; i++ {
		if err := s.Set(fmt.Sprintf("%s-%d", os.Getenv("VAULT_TEST_PREFIX"), i), map[string]string{"password": fmt.Sprint("pw", i)}, false); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
	}
	os.Exit(0)
}

// helperHang sets an account but stops half-way through writing the new
// file, as a process killed there would, and waits to be killed.
func helperHang() {
	s := New(os.Getenv("VAULT_TEST_HOME"), &Keys{KDF: testKDF})
	writeFile = func(path string, data []byte) error {
		f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
		if err != nil {
			return err
		}
		_, _ = f.Write(data[:len(data)/2])
		_ = f.Sync()
		fmt.Println("writing")
		select {} // killed here
	}
	_ = s.Set("late", map[string]string{"password": "never"}, false)
}

func helper(t *testing.T, mode, home string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"VAULT_TEST_HELPER=" + mode, "VAULT_TEST_HOME=" + home, EnvPassphrase + "=" + pass}, env...)...)
	return cmd
}

// TestConcurrentSetTwoProcesses: two processes setting at once both land
// (no update lost).
func TestConcurrentSetTwoProcesses(t *testing.T) {
	home := t.TempDir()
	t.Setenv(EnvPassphrase, pass)
	// Make the vault first so both processes open the same key.
	if err := New(home, &Keys{KDF: testKDF}).Set("seed", map[string]string{"password": "p"}, false); err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for _, p := range []string{"a", "b"} {
		c := helper(t, "set", home, "VAULT_TEST_PREFIX="+p, "VAULT_TEST_N=15")
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
		outs = append(outs, &out)
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("process %d: %v %s", i, err, outs[i])
		}
	}
	l, err := New(home, &Keys{}).List()
	if err != nil || len(l) != 31 {
		t.Fatalf("List: %d accounts, %v", len(l), err)
	}
	s := New(home, &Keys{})
	for _, p := range []string{"a", "b"} {
		for i := 0; i < 15; i++ {
			e, err := s.Get(fmt.Sprintf("%s-%d", p, i))
			if err != nil || e.Fields["password"] != fmt.Sprint("pw", i) {
				t.Fatalf("%s-%d: %v", p, i, err)
			}
		}
	}
}

// TestKillDuringSet: a process killed (SIGKILL) while writing leaves the old
// vault intact and its lock free; the next change removes its temp file.
func TestKillDuringSet(t *testing.T) {
	home := t.TempDir()
	t.Setenv(EnvPassphrase, pass)
	s := New(home, &Keys{KDF: testKDF})
	if err := s.Set("portal/admin", portal(), false); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(s.Path())
	c := helper(t, "hang", home)
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Process.Kill(); _ = c.Wait() }()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "writing\n" {
		t.Fatalf("helper: %q", line)
	}
	if err := c.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = c.Wait()
	tmps, _ := filepath.Glob(filepath.Join(s.Dir, "."+FileName+"-*"))
	if len(tmps) != 1 {
		t.Fatalf("temp files: %v", tmps)
	}
	after, _ := os.ReadFile(s.Path())
	if !bytes.Equal(before, after) {
		t.Fatal("the vault changed")
	}
	if e, err := New(home, &Keys{}).Get("portal/admin"); err != nil || e.Fields["password"] != password {
		t.Fatalf("old vault: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Set("next", map[string]string{"password": "p"}, false) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the lock of the killed process is still held")
	}
	if tmps, _ := filepath.Glob(filepath.Join(s.Dir, "."+FileName+"-*")); len(tmps) != 0 {
		t.Errorf("temp files left: %v", tmps)
	}
	if l, _ := s.List(); len(l) != 2 {
		t.Errorf("List = %+v", l)
	}
}

func seedVault(b *testing.B, s *Store, n int) {
	body := map[string]map[string]string{}
	for i := 0; i < n; i++ {
		body[fmt.Sprintf("site%03d/user%d", i/10, i)] = map[string]string{
			"username": fmt.Sprint("user", i), "password": fmt.Sprintf("pw-%d-%x", i, i*7919), "totp": seed,
		}
	}
	ki, key, err := s.Keys.newKey()
	if err != nil {
		b.Fatal(err)
	}
	out, err := seal(header{Key: ki}, key, index(body, nil, nil, time.Now()), body)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(s.Path(), out, 0o600); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkOpen1000 is opening and decrypting a vault of 1,000 accounts to
// get one: "warm" with the key known to the process (every run after the
// first), "cold/keyring" reading the key from a keyring first, and
// "cold/argon2id" deriving it from the passphrase (the first run of a
// process on a vault without a keyring; DefaultKDF).
func BenchmarkOpen1000(b *testing.B) {
	b.Setenv(EnvPassphrase, pass)
	kr := &mapKeyring{}
	ks := New(b.TempDir(), &Keys{Keyring: kr})
	seedVault(b, ks, 1000)
	ps := New(b.TempDir(), &Keys{})
	seedVault(b, ps, 1000)
	st, _ := os.Stat(ps.Path())
	b.Logf("vault of 1000 accounts: %d bytes", st.Size())
	b.Run("warm", func(b *testing.B) {
		for b.Loop() {
			if _, err := ks.Get("site050/user500"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cold/keyring", func(b *testing.B) {
		for b.Loop() {
			if _, err := New(filepath.Dir(ks.Dir), &Keys{Keyring: kr}).Get("site050/user500"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cold/argon2id", func(b *testing.B) {
		for b.Loop() {
			if _, err := New(filepath.Dir(ps.Dir), &Keys{}).Get("site050/user500"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestSealData(t *testing.T) {
	data := []byte(`{"cookies":[{"name":"sid","value":"s3ss10n-value"}]}`)
	b, err := SealData(KindProfile, bytes.Clone(data), []byte("moving day"), testKDF)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("s3ss10n-value")) {
		t.Fatal("sealed data in clear")
	}
	got, err := OpenData("p.rpaprofile", b, KindProfile, []byte("moving day"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("OpenData = %q %v", got, err)
	}
	if _, err := OpenData("p.rpaprofile", b, KindProfile, []byte("wrong")); !errors.Is(err, ErrWrongKey) {
		t.Errorf("wrong passphrase: %v", err)
	}
	if _, err := OpenData("p.rpaprofile", b, "other", []byte("moving day")); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "this is a profile export file, not a other export") {
		t.Errorf("other kind: %v", err)
	}
	b[len(b)-5] ^= 1
	if _, err := OpenData("p.rpaprofile", b, KindProfile, []byte("moving day")); !errors.Is(err, ErrDamaged) {
		t.Errorf("flipped: %v", err)
	}
	// A profile export is not a vault.
	t.Setenv(EnvPassphrase, "")
	s := New(t.TempDir(), &Keys{})
	pf, _ := SealData(KindProfile, []byte("{}"), []byte("moving day"), testKDF)
	if _, err := s.Import("p.rpaprofile", pf, []byte("moving day"), false); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "not a vault but a profile export file") {
		t.Errorf("importing a profile export into the vault: %v", err)
	}
}

// TestNewVaultPassphraseFromEnv: a new vault's passphrase from
// RPA_VAULT_PASSPHRASE has the terminal's rule (at least 8 characters,
// spaces at its ends not counted); a vault created with " " was accepted
// on the old code. An existing vault opens with whatever it has.
func TestNewVaultPassphraseFromEnv(t *testing.T) {
	for _, tc := range []struct {
		pass string
		ok   bool
	}{
		{" ", false},
		{"short", false},
		{"   seven  ", false},
		{"eight ch", true},
		{"correct horse", true},
	} {
		dir := t.TempDir()
		t.Setenv(EnvPassphrase, tc.pass)
		err := New(dir, &Keys{}).Set("portal/admin", portal(), false)
		if tc.ok != (err == nil) {
			t.Errorf("new vault with %q: %v, want ok %v", tc.pass, err, tc.ok)
		}
		if err != nil && (!errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "RPA_VAULT_PASSPHRASE is shorter than 8 characters")) {
			t.Errorf("new vault with %q: %v, want an input error naming the variable", tc.pass, err)
		}
	}
}

// TestExportPassphraseNoTerminal: without a terminal (and without
// EnvExportPassphrase) the error says what to set, for rpa vault export
// and import and rpa profile export and import alike; it is bad input.
func TestExportPassphraseNoTerminal(t *testing.T) {
	t.Setenv(EnvExportPassphrase, "")
	noTTY := func(string, bool) (string, bool, error) {
		return "", false, Input(fmt.Errorf("%w: open /dev/tty: no such device or address", ErrNoTerminal))
	}
	for _, confirm := range []bool{true, false} {
		_, err := ExportPassphrase(noTTY, confirm)
		if err == nil || !strings.Contains(err.Error(), EnvExportPassphrase) || !BadInput(err) {
			t.Errorf("confirm=%v: %v", confirm, err)
		}
	}
}

// TestExportPassphraseFromEnv: a new export file's passphrase from
// RPA_VAULT_EXPORT_PASSPHRASE has the terminal's rule (an export of " "
// or "a" was written on the old code); reading one (confirm false) takes
// what it is given.
func TestExportPassphraseFromEnv(t *testing.T) {
	for _, tc := range []struct {
		pass    string
		confirm bool
		ok      bool
	}{
		{" ", true, false},
		{"a", true, false},
		{"eight ch", true, true},
		{"a", false, true},
	} {
		t.Setenv(EnvExportPassphrase, tc.pass)
		_, err := ExportPassphrase(nil, tc.confirm)
		if tc.ok != (err == nil) || err != nil && (!errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "RPA_VAULT_EXPORT_PASSPHRASE is shorter than 8")) {
			t.Errorf("%q (new %v): %v, want ok %v", tc.pass, tc.confirm, err, tc.ok)
		}
	}
}
