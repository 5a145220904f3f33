package rod_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
)

// TestPresetPrefs: SilentPrefs are written into a missing Preferences
// file, merged into an existing one keeping every other preference (big
// integers as written), not rewritten when already set, and a file that is
// not a JSON object is left alone.
func TestPresetPrefs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "Default", "Preferences")
	read := func() map[string]any {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return m
	}
	wantSilent := func(m map[string]any) {
		t.Helper()
		af, _ := m["autofill"].(map[string]any)
		if af["profile_enabled"] != false || af["credit_card_enabled"] != false || m["credentials_enable_service"] != false {
			t.Fatalf("prefs %v: SilentPrefs not set", m)
		}
	}
	if err := rodd.PresetPrefs(dir); err != nil {
		t.Fatal(err)
	}
	wantSilent(read())

	const existing = `{"autofill":{"profile_enabled":true,"last_version_deduped":148},"profile":{"name":"Work <&>"},"big":13440732836063407123}`
	if err := os.WriteFile(path, []byte(existing), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := rodd.PresetPrefs(dir); err != nil {
		t.Fatal(err)
	}
	m := read()
	wantSilent(m)
	b, _ := os.ReadFile(path)
	if af := m["autofill"].(map[string]any); af["last_version_deduped"] != 148.0 ||
		m["profile"].(map[string]any)["name"] != "Work <&>" || !bytes.Contains(b, []byte("13440732836063407123")) {
		t.Fatalf("other preferences changed: %s", b)
	}
	st, _ := os.Stat(path)
	if err := rodd.PresetPrefs(dir); err != nil {
		t.Fatal(err)
	}
	if b2, _ := os.ReadFile(path); !bytes.Equal(b, b2) {
		t.Fatalf("rewritten although set: %s", b2)
	}
	if st2, _ := os.Stat(path); !os.SameFile(st, st2) {
		t.Fatal("replaced although set")
	}

	for _, bad := range []string{"{not json", "[1,2]", "null"} {
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := rodd.PresetPrefs(dir); err != nil {
			t.Fatalf("%q: %v", bad, err)
		}
		if b, _ := os.ReadFile(path); string(b) != bad {
			t.Fatalf("%q became %q", bad, b)
		}
	}
}

// TestTypedValueNotKeptForAutocomplete: a value typed into a form's text
// field and submitted is not kept in the profile's Web Data (Chromium's
// autocomplete, off by SilentPrefs) once the browser has closed; nor is
// the password in Login Data.
func TestTypedValueNotKeptForAutocomplete(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			fmt.Fprint(w, `<!doctype html><h1 id="done">signed in</h1>`)
			return
		}
		fmt.Fprint(w, `<!doctype html><form method="post" action="/done"><input id="user" name="user">`+
			`<input id="pw" name="pw" type="password"><button id="go">Sign in</button></form>`)
	}))
	defer s.Close()
	const typed = "Typed-Zq8-7f3a9-autofill"
	dir := filepath.Join(t.TempDir(), "profile")
	ctx := tctx(t, 60*time.Second)
	b, err := rodd.New().Launch(ctx, drivers.LaunchOptions{UserDataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := b.NewPage(ctx, s.URL+"/form")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ sel, v string }{{"#user", typed}, {"#pw", "pw-" + typed}} {
		el, _, err := p.Locate(ctx, []string{f.sel}, drivers.ForInput)
		if err != nil {
			t.Fatal(err)
		}
		if err := el.Fill(ctx, f.v); err != nil {
			t.Fatal(err)
		}
	}
	el, _, err := p.Locate(ctx, []string{"#go"}, drivers.ForPointer)
	if err != nil {
		t.Fatal(err)
	}
	if err := el.Click(ctx, "left", 1); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.Locate(ctx, []string{"#done"}, drivers.ForRead); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil { // Chromium writes its databases as it closes
		t.Fatal(err)
	}
	for _, name := range []string{"Web Data", "Account Web Data", "Login Data", "Login Data For Account"} {
		data, err := os.ReadFile(filepath.Join(dir, "Default", name))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(typed)) {
			t.Errorf("%s keeps the typed value", name)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "Default", "Web Data")); err != nil || st.Size() == 0 {
		t.Fatalf("no Web Data written (%v): the test cannot fail", err)
	}
}
