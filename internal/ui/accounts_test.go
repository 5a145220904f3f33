package ui

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/host/lease"
	"github.com/rpa-dev/rpa/internal/host/vault"
)

// TestAccountsPage: a person adds an account with hidden inputs (a new
// vault whose key comes from a passphrase: no keyring here), sees it
// listed with its fields and last use, changes its password, removes it;
// a console that was not given the passphrase asks for it first. No value
// ever shows in a page, the log or the vault folder in clear.
func TestAccountsPage(t *testing.T) {
	t.Setenv(vault.EnvKeyring, "off")
	t.Setenv(vault.EnvPassphrase, "")
	const pw, pw2, seed, pass = "Portal-pw-8841", "Portal-pw-9952", "JBSWY3DPEHPK3PXP", "vault passphrase 1"
	c := newConsole(t, nil)
	// Another console (another process) on the same folder; made before
	// the page so the page closes first at the end.
	c2 := newConsoleIn(t, c.home, nil)
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/accounts?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	waitText(t, pg, "The vault holds no account yet.")
	uibCheck(t, c, pg, "accounts_empty")

	fill(t, pg, "textbox", "Name", "portal/admin")
	fill(t, pg, "textbox", "Username", "ops-7")
	fill(t, pg, "textbox", "Password", pw)
	fill(t, pg, "textbox", "TOTP seed", seed)
	fill(t, pg, "textbox", "New vault passphrase (at least 8 characters; it cannot be recovered)", pass)
	fill(t, pg, "textbox", "The new passphrase again", pass+"x")
	click(t, pg, "button", "Save")
	waitText(t, pg, "The two passphrases differ.")
	// Nothing typed comes back into the form.
	if v, _ := el(t, pg, "textbox", "Password").Value(step(t)); v != "" {
		t.Errorf("the password input was filled back: %q", v)
	}
	fill(t, pg, "textbox", "Name", "portal/admin")
	fill(t, pg, "textbox", "Username", "ops-7")
	fill(t, pg, "textbox", "Password", pw)
	fill(t, pg, "textbox", "TOTP seed", seed)
	fill(t, pg, "textbox", "New vault passphrase (at least 8 characters; it cannot be recovered)", pass)
	fill(t, pg, "textbox", "The new passphrase again", pass)
	click(t, pg, "button", "Save")
	waitText(t, pg, "Saved portal/admin.")

	// A run held its lease: the page says when and links the run.
	l, err := lease.NewLocal(c.home).Acquire(context.Background(), lease.Request{Account: "portal/admin", Holder: lease.Holder{RunID: "20261201T125300123-a1b2"}})
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	if err := pg.Navigate(step(t), c.ts.URL+"/accounts"); err != nil {
		t.Fatal(err)
	}
	el(t, pg, "link", "20261201T125300123-a1b2")
	uibCheck(t, c, pg, "accounts_list")
	click(t, pg, "button", "中文")
	waitText(t, pg, "账号库中的账号")
	el(t, pg, "button", "删除 portal/admin")
	uibCheck(t, c, pg, "accounts_zh")
	click(t, pg, "button", "English")
	waitText(t, pg, "Accounts in the vault")

	st := vault.New(c.home, &vault.Keys{})
	st.Keys.Give([]byte(pass))
	e, err := st.Get("portal/admin")
	if err != nil || e.Fields["password"] != pw || e.Fields["totp"] != seed || e.Fields["username"] != "ops-7" {
		t.Fatalf("vault: %+v %v", e, err)
	}

	// Change the password: the empty inputs keep their values.
	click(t, pg, "link", "Edit portal/admin")
	waitText(t, pg, "Change portal/admin")
	uibCheck(t, c, pg, "accounts_edit")
	fill(t, pg, "textbox", "Password", pw2)
	click(t, pg, "button", "Save")
	waitText(t, pg, "Saved portal/admin.")
	st = vault.New(c.home, &vault.Keys{})
	st.Keys.Give([]byte(pass))
	if e, err := st.Get("portal/admin"); err != nil || e.Fields["password"] != pw2 || e.Fields["totp"] != seed || e.Fields["username"] != "ops-7" {
		t.Fatalf("after the change: %+v %v", e, err)
	}

	// A bad seed is refused, naming the field and not the value.
	click(t, pg, "link", "Edit portal/admin")
	fill(t, pg, "textbox", "TOTP seed", "no-such-seed!")
	click(t, pg, "button", "Save")
	waitText(t, pg, `field "totp": bad TOTP seed`)

	for what, body := range map[string]string{
		"accounts page": c.get(t, "/accounts"),
		"edit page":     c.get(t, "/accounts?edit=portal/admin"),
		"console log":   c.log.String(),
	} {
		for _, v := range []string{pw, pw2, seed, pass, "no-such-seed!"} {
			if strings.Contains(body, v) {
				t.Errorf("the %s shows %q", what, v)
			}
		}
	}
	if zh := c.getLang(t, "/accounts", "zh-CN,zh;q=0.9"); !strings.Contains(zh, "账号库中的账号") || !strings.Contains(zh, "添加账号") {
		t.Error("the page in Chinese lacks its texts")
	}

	// The other console: the vault is locked until the passphrase is
	// given.
	if err := pg.Navigate(step(t), c2.ts.URL+"/accounts?t="+c2.ui.Token()); err != nil {
		t.Fatal(err)
	}
	waitText(t, pg, "The vault's key comes from a passphrase this console has not been given yet")
	uibCheck(t, c2, pg, "accounts_locked")
	fill(t, pg, "textbox", "Vault passphrase", "wrong passphrase")
	click(t, pg, "button", "Unlock")
	waitText(t, pg, "the vault passphrase is wrong")
	fill(t, pg, "textbox", "Vault passphrase", pass)
	click(t, pg, "button", "Unlock")
	waitText(t, pg, "The vault is unlocked for this console.")
	click(t, pg, "button", "Remove portal/admin")
	waitText(t, pg, "Removed portal/admin.")
	waitText(t, pg, "The vault holds no account yet.")
	if _, err := st.Get("portal/admin"); err == nil {
		t.Error("the account is still in the vault")
	}
	if c2.get(t, "/accounts") == "" {
		t.Fatal("no page")
	}
	// Nothing in clear under the vault folder.
	b, _ := os.ReadFile(st.Path())
	for _, v := range []string{pw, pw2, seed} {
		if strings.Contains(string(b), v) {
			t.Errorf("the vault file holds %q", v)
		}
	}
}

// getLang is get with an Accept-Language header.
func (c *console) getLang(t testing.TB, path, lang string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", c.ts.URL+path, nil)
	req.Header.Set(TokenHeader, c.ui.Token())
	req.Header.Set("Accept-Language", lang)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
