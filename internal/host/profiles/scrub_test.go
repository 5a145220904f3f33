package profiles_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/host/profiles"
)

// grepProfile lists the files of dir holding s in any of its spellings
// (secretSpellings).
func grepProfile(t *testing.T, dir, s string) []string {
	t.Helper()
	spellings := secretSpellings(s)
	var hits []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		for _, sp := range spellings {
			if bytes.Contains(b, sp) {
				rel, _ := filepath.Rel(dir, path)
				hits = append(hits, rel)
				break
			}
		}
		return nil
	})
	return hits
}

// secretSpellings are the byte strings a file may keep s as: written, URL
// escaped (query, path, with %20 for a space), base64 (standard and URL
// alphabets), each of those but base64 also in UTF-16 of either byte
// order (a session file's form state and page addresses).
func secretSpellings(s string) [][]byte {
	var out [][]byte
	for _, v := range []string{s, url.QueryEscape(s), url.PathEscape(s), strings.ReplaceAll(url.QueryEscape(s), "+", "%20")} {
		out = append(out, []byte(v))
		le, be := []byte{}, []byte{}
		for _, u := range utf16.Encode([]rune(v)) {
			le = binary.LittleEndian.AppendUint16(le, u)
			be = binary.BigEndian.AppendUint16(be, u)
		}
		out = append(out, le, be)
	}
	return append(out, []byte(base64.StdEncoding.EncodeToString([]byte(s))), []byte(base64.URLEncoding.EncodeToString([]byte(s))))
}

// secretSite serves cacheable pages with a title and links, and at /form
// a sign-in form whose submission (POST /done) shows #done.
func secretSite(t *testing.T) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(secretPages))
	t.Cleanup(s.Close)
	return s.URL
}

func secretPages(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/form":
		fmt.Fprint(w, `<!doctype html><title>Sign in</title><form method="post" action="/done">`+
			`<input id="user" name="user"><input id="pw" name="pw" type="password"><button id="go">Sign in</button></form>`)
	case "/done":
		fmt.Fprint(w, `<!doctype html><title>Account</title><h1 id="done">signed in</h1>`)
	default:
		w.Header().Set("Cache-Control", "max-age=3600")
		fmt.Fprint(w, `<!doctype html><title>Account</title><h1>page</h1>`)
	}
}

// signIn types secret into the text field of site's /form (where Chromium
// keeps it as an autocomplete entry in Web Data and in the tab's form
// state) and submits it.
func signIn(ctx context.Context, pg drivers.Page, site, secret string) error {
	if err := pg.Navigate(ctx, site+"/form"); err != nil {
		return err
	}
	for _, f := range []struct{ sel, value string }{{"#user", secret}, {"#pw", "pw-" + secret}} {
		el, _, err := pg.Locate(ctx, []string{f.sel}, drivers.ForInput)
		if err != nil {
			return err
		}
		if err := el.Fill(ctx, f.value); err != nil {
			return err
		}
	}
	el, _, err := pg.Locate(ctx, []string{"#go"}, drivers.ForPointer)
	if err != nil {
		return err
	}
	if err := el.Click(ctx, "left", 1); err != nil {
		return err
	}
	_, _, err = pg.Locate(ctx, []string{"#done"}, drivers.ForRead)
	return err
}

// browseWithSecret visits an address whose query holds secret (only with
// inAddress) and types it into a form (signIn) through a pool call that
// records it (Lease.AddSecrets), and closes the pool.
func browseWithSecret(t *testing.T, dir, site, secret string, record, inAddress bool) {
	t.Helper()
	p, err := profiles.New(profiles.Options{
		Driver: rodd.New(), Idle: -1,
		Launch: func(id string) (drivers.LaunchOptions, error) {
			return drivers.LaunchOptions{UserDataDir: dir}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	l, err := p.Acquire(ctx, "work")
	if err != nil {
		t.Fatal(err)
	}
	if record {
		l.AddSecrets(secret)
	}
	pg, err := l.Browser().NewPage(ctx, site+"/start")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{site + "/login?token=" + url.QueryEscape(secret) + "&x=1", site + "/after"} {
		if !inAddress {
			break
		}
		if err := pg.Navigate(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	if err := signIn(ctx, pg, site, secret); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // let Chromium write its history and session files
	l.Release()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSecretURLLeavesNoTrace: after a call that opened an address holding
// a secret and typed it into a form's text field, no file of the profile folder holds the secret once the
// browser closed; without AddSecrets it is found (the test can fail), and
// the profile still works afterwards.
func TestSecretURLLeavesNoTrace(t *testing.T) {
	if _, err := rodd.FindBrowser(""); err != nil {
		t.Skip(err)
	}
	site := secretSite(t)
	const secret = "tok en/Zq8-7f3a9 zebra"
	plain := filepath.Join(t.TempDir(), "plain")
	browseWithSecret(t, plain, site, secret, false, true)
	if hits := grepProfile(t, plain, secret); len(hits) == 0 {
		t.Fatal("an unscrubbed profile holds no trace of the address: the test cannot fail")
	} else {
		t.Logf("unscrubbed profile: the secret is in %v", hits)
	}
	dir := filepath.Join(t.TempDir(), "work")
	browseWithSecret(t, dir, site, secret, true, true)
	if hits := grepProfile(t, dir, secret); len(hits) > 0 {
		t.Fatalf("the secret stayed in the profile: %v", hits)
	}
	if _, err := os.Stat(filepath.Join(dir, "Default", "History")); err != nil {
		t.Errorf("History was deleted instead of cleaned: %v", err)
	}
	// The profile still starts, and keeps what holds no secret.
	browseWithSecret(t, dir, site, "another-secret-42", true, true)
}

// TestSecretTypedLeavesNoTrace: a secret only typed into a form's text
// field (never in an address) is in no file of the profile folder once
// the browser closed: not in Web Data's autocomplete table (turned on
// here, as a person may in a shown browser), not in the session files
// that keep the tab's form state in UTF-16.
func TestSecretTypedLeavesNoTrace(t *testing.T) {
	if _, err := rodd.FindBrowser(""); err != nil {
		t.Skip(err)
	}
	site := secretSite(t)
	const secret = "Typed-Zq8-7f3a9-only"
	autocompleteOn(t)
	plain := filepath.Join(t.TempDir(), "plain")
	browseWithSecret(t, plain, site, secret, false, false)
	if hits := grepProfile(t, plain, secret); len(hits) == 0 {
		t.Fatal("an unscrubbed profile holds no trace of the typed value: the test cannot fail")
	} else {
		t.Logf("unscrubbed profile: the secret is in %v", hits)
	}
	dir := filepath.Join(t.TempDir(), "work")
	browseWithSecret(t, dir, site, secret, true, false)
	if hits := grepProfile(t, dir, secret); len(hits) > 0 {
		t.Fatalf("the secret stayed in the profile: %v", hits)
	}
}

// autocompleteOn launches the browsers of the test with Chromium's
// autocomplete and autofill on (without the driver's SilentPrefs).
func autocompleteOn(t *testing.T) {
	prev := rodd.SilentPrefs
	rodd.SilentPrefs = nil
	t.Cleanup(func() { rodd.SilentPrefs = prev })
}

func TestScrubDatabaseRowsOnly(t *testing.T) {
	if hits := grepProfile(t, t.TempDir(), "x"); len(hits) != 0 {
		t.Fatal(hits)
	}
	// A file without the secret is left alone; a short secret is ignored.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("nothing here"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "drop.bin"), []byte("cache key https://x/?t=Sekr%C3%A9t-99"), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := profiles.Scrub(dir, []string{"abc", "Sekrét-99"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Removed) != 1 || rep.Removed[0] != "drop.bin" {
		t.Fatalf("removed %v, want [drop.bin]", rep.Removed)
	}
	if _, err := os.Stat(filepath.Join(dir, "keep.txt")); err != nil {
		t.Fatal(err)
	}
}
