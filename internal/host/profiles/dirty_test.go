package profiles_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/host/profiles"
)

// The owner process of TestKilledOwnerLeavesNoSecret (this test binary run
// again): it opens an address holding a secret through a pool call that
// records it (Lease.AddSecrets), types it into a form's text field and
// submits it with Chromium's autocomplete on, waits until the secret is in History and Web Data (the
// autocomplete entry), says READY and waits to be killed.
const (
	envOwnerDir    = "RPA_TEST_DIRTY_OWNER_DIR"
	envOwnerSite   = "RPA_TEST_DIRTY_OWNER_SITE"
	envOwnerSecret = "RPA_TEST_DIRTY_OWNER_SECRET"
)

func TestDirtyOwnerProcess(t *testing.T) {
	dir := os.Getenv(envOwnerDir)
	if dir == "" {
		t.Skip("the owner process of TestKilledOwnerLeavesNoSecret")
	}
	site, secret := os.Getenv(envOwnerSite), os.Getenv(envOwnerSecret)
	// Chromium's autocomplete on (the driver turns it off; a person may
	// turn it on in a shown browser): the wipe must not rely on it.
	rodd.SilentPrefs = nil
	p, err := profiles.New(profiles.Options{
		Driver: rodd.New(), Idle: -1,
		Launch: func(id string) (drivers.LaunchOptions, error) {
			return drivers.LaunchOptions{UserDataDir: dir}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	l, err := p.Acquire(ctx, "work")
	if err != nil {
		t.Fatal(err)
	}
	l.AddSecrets(secret)
	pg, err := l.Browser().NewPage(ctx, site+"/start")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{site + "/login?tok=" + url.QueryEscape(secret), site + "/after"} {
		if err := pg.Navigate(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	if err := signIn(ctx, pg, site, secret); err != nil {
		t.Fatal(err)
	}
	l.Release() // idle, as a served profile between calls
	// Until History holds it (Chromium commits it on a timer while idle),
	// as in a served profile left idle, and Web Data the autocomplete entry
	// of the form's text field.
	for hits := grepProfile(t, dir, secret); !slices.Contains(hits, filepath.Join("Default", "History")) ||
		!slices.Contains(hits, filepath.Join("Default", "Web Data")); hits = grepProfile(t, dir, secret) {
		if ctx.Err() != nil {
			t.Fatal("the secret never reached the profile folder")
		}
		time.Sleep(200 * time.Millisecond)
	}
	fmt.Println("READY")
	<-ctx.Done()
}

// TestKilledOwnerLeavesNoSecret: the process whose browser was given a
// secret (an address holding it, a form field typed with it) is killed
// (kill -9) before it could scrub; the next claim of the profile finds the
// marker and wipes the history-like files, so no file of the profile holds
// the secret in any spelling (secretSpellings: Web Data's autocomplete
// entry included); the profile still works.
func TestKilledOwnerLeavesNoSecret(t *testing.T) {
	if _, err := rodd.FindBrowser(""); err != nil {
		t.Skip(err)
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "kept", MaxAge: 3600})
		secretPages(w, r)
	}))
	defer site.Close()
	const secret = "Zq8-7f3a9-kill9-secret"
	dir := filepath.Join(t.TempDir(), "work")
	cmd := exec.Command(os.Args[0], "-test.run=^TestDirtyOwnerProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), envOwnerDir+"="+dir, envOwnerSite+"="+site.URL, envOwnerSecret+"="+secret)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == "READY" {
				ready <- true
				return
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatal("the owner process ended before READY")
		}
	case <-time.After(150 * time.Second): // a hang guard only
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatal("the owner process never got ready")
	}
	_ = cmd.Process.Kill() // kill -9
	_ = cmd.Wait()
	if !profiles.IsDirty(dir) {
		t.Fatal("no dirty marker in the profile of a browser given a secret")
	}
	if hits := grepProfile(t, dir, secret); len(hits) == 0 {
		t.Fatal("the secret is not in the killed owner's profile: the test cannot fail")
	} else {
		t.Logf("after kill -9 the secret is in %v", hits)
	}
	lock, err := profiles.Claim(dir)
	if err != nil {
		t.Fatal(err)
	}
	if hits := grepProfile(t, dir, secret); len(hits) > 0 {
		t.Errorf("the secret stayed in the profile after the claim: %v", hits)
	}
	if profiles.IsDirty(dir) {
		t.Error("the marker stayed after the wipe")
	}
	lock.Unlock()
	// The profile still starts and works.
	browseWithSecret(t, dir, site.URL, "another-secret-42", true, true)
	if profiles.IsDirty(dir) {
		t.Error("the marker stayed after a clean scrub")
	}
}
