package profiles_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/host/profiles"
)

// grepProfile lists the files of dir holding s (as written or
// query-escaped).
func grepProfile(t *testing.T, dir, s string) []string {
	t.Helper()
	var hits []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err == nil && (bytes.Contains(b, []byte(s)) || bytes.Contains(b, []byte(url.QueryEscape(s)))) {
			rel, _ := filepath.Rel(dir, path)
			hits = append(hits, rel)
		}
		return nil
	})
	return hits
}

// secretSite serves cacheable pages with a title and links.
func secretSite(t *testing.T) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		fmt.Fprint(w, `<!doctype html><title>Account</title><h1>page</h1>`)
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// browseWithSecret visits an address whose query holds secret through a
// pool call that records it (Lease.AddSecrets) and closes the pool.
func browseWithSecret(t *testing.T, dir, site, secret string, record bool) {
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
		if err := pg.Navigate(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Second) // let Chromium write its history and session files
	l.Release()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSecretURLLeavesNoTrace: after a call that opened an address holding
// a secret, no file of the profile folder holds the secret once the
// browser closed; without AddSecrets it is found (the test can fail), and
// the profile still works afterwards.
func TestSecretURLLeavesNoTrace(t *testing.T) {
	if _, err := rodd.FindBrowser(""); err != nil {
		t.Skip(err)
	}
	site := secretSite(t)
	const secret = "tok en/Zq8-7f3a9 zebra"
	plain := filepath.Join(t.TempDir(), "plain")
	browseWithSecret(t, plain, site, secret, false)
	if hits := grepProfile(t, plain, secret); len(hits) == 0 {
		t.Fatal("an unscrubbed profile holds no trace of the address: the test cannot fail")
	} else {
		t.Logf("unscrubbed profile: the secret is in %v", hits)
	}
	dir := filepath.Join(t.TempDir(), "work")
	browseWithSecret(t, dir, site, secret, true)
	if hits := grepProfile(t, dir, secret); len(hits) > 0 {
		t.Fatalf("the secret stayed in the profile: %v", hits)
	}
	if _, err := os.Stat(filepath.Join(dir, "Default", "History")); err != nil {
		t.Errorf("History was deleted instead of cleaned: %v", err)
	}
	// The profile still starts, and keeps what holds no secret.
	browseWithSecret(t, dir, site, "another-secret-42", true)
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
