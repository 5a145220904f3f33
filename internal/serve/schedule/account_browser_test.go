package schedule

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/host/lease"
	"github.com/rpa-dev/rpa/internal/host/vault"
	"github.com/rpa-dev/rpa/internal/runs"
)

const portalFlow = `flow portal "sign in and read the balance"
param base: string
param account: credential "the portal account"

defaults wait: 2s retries: 0

open "{{ base }}/login"
fill "#user" account.username
fill "#pw" account.password
click "#go"
b = text "#balance"
return {"balance": b}
`

// TestScheduledAccount: a schedule with --account signs in with the
// vault's account in Chromium (the password never reaches the run store);
// while another run holds the account's lease the fire waits, saying so,
// without using an attempt, and runs once the account is free.
func TestScheduledAccount(t *testing.T) {
	if os.Getenv("RPA_SKIP_BROWSER") != "" {
		t.Skip("RPA_SKIP_BROWSER set")
	}
	e := newEnv(t)
	t.Setenv(vault.EnvKeyring, "off")
	t.Setenv(vault.EnvPassphrase, "vault passphrase for the test")
	const pw = "Portal-Pw-55173"
	if err := vault.Default(e.home, nil).Set("portal/admin", map[string]string{"username": "ops-1", "password": pw}, false); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login":
			fmt.Fprint(w, `<!doctype html><form action="/home" method="post"><input id="user" name="u"><input id="pw" name="p" type="password"><button id="go">Sign in</button></form>`)
		case "/home":
			r.ParseForm()
			if r.PostForm.Get("u") != "ops-1" || r.PostForm.Get("p") != pw {
				http.Error(w, "refused", http.StatusForbidden)
				return
			}
			fmt.Fprint(w, `<!doctype html><p id="balance">42.00</p>`)
		}
	}))
	defer srv.Close()
	flow := filepath.Join(filepath.Dir(e.flow), "portal.flow")
	os.WriteFile(flow, []byte(portalFlow), 0o644)
	d := Def{Name: "balance", Cron: "0 8 1 1 *", TZ: "UTC", Account: "portal/admin", Args: map[string]string{"base": srv.URL}}
	if err := Prepare(&d, flow, "", e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := Add(e.st, &d, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	// Another run holds the account.
	held, err := lease.NewLocal(e.home).Acquire(context.Background(), lease.Request{Account: "portal/admin", Holder: lease.Holder{RunID: "20261201T125300123-a1b2"}})
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{Store: e.st, Runner: &LocalRunner{}, Clock: e.clock, Program: "test", Notify: &Notifier{Desktop: func(string, string) error { return nil }}})
	id, _ := RunNow(e.st, "balance", e.clock.Now())
	tick(s)
	f, _ := e.st.Fire(id)
	if f.State != runs.FireQueued || f.Attempt != 0 || !strings.Contains(f.Waiting, "account portal/admin is in use by run 20261201T125300123-a1b2") || f.Account != "portal/admin" {
		t.Fatalf("fire while the account is held: %+v", f)
	}
	held.Release()
	e.clock.Advance(BusyWait)
	tick(s)
	f, _ = e.st.Fire(id)
	if f.State != runs.FireOK || f.Attempt != 1 || f.RunID == "" {
		t.Fatalf("fire: %+v", f)
	}
	r, _ := e.st.Get(f.RunID)
	if r.Status != runs.StatusOK || r.Args["account"] == nil || r.Schedule != "balance" {
		t.Fatalf("run %+v", r)
	}
	filepath.WalkDir(filepath.Join(e.home, "runs"), func(p string, de os.DirEntry, err error) error {
		if err == nil && de.Type().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), pw) {
				t.Errorf("%s holds the account's password", p)
			}
		}
		return nil
	})
}
