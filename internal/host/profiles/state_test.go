package profiles_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/host/vault"
)

// stateSite sets a script cookie and a local storage item on /?set=1 and
// an HttpOnly cookie from the server, and shows what it finds.
func stateSite(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("set") != "" {
			http.SetCookie(w, &http.Cookie{Name: "hsid", Value: "http-only-789", Path: "/", MaxAge: 3600, HttpOnly: true})
		}
		h := ""
		if c, err := r.Cookie("hsid"); err == nil {
			h = c.Value
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>state</title><p id="srv">hsid=%s</p><p id="js"></p>
<script>
if (location.search.includes("set")) { document.cookie = "sid=cookie-value-123; path=/; max-age=3600"; localStorage.setItem("token", "ls-value-456"); }
document.getElementById("js").textContent = "cookie=" + document.cookie + " ls=" + localStorage.getItem("token");
</script>`, h)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// visit opens url in a browser on dir and returns the page's text.
func visit(t *testing.T, dir, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	br, err := rodd.New().Launch(ctx, drivers.LaunchOptions{UserDataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	pg, err := br.NewPage(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.WaitText(ctx, "ls="); err != nil {
		t.Fatal(err)
	}
	s, err := pg.Text(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestProfileExportImport: a profile's cookies (HttpOnly too) and local
// storage move to another profile through an encrypted file; the origin is
// found in the profile's History.
func TestProfileExportImport(t *testing.T) {
	if _, err := rodd.FindBrowser(""); err != nil {
		t.Skip(err)
	}
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	t.Setenv(vault.EnvExportPassphrase, "moving day 42")
	srv := stateSite(t)
	a, _ := profiles.Dir("a")
	if got := visit(t, a, srv.URL+"/?set=1"); !strings.Contains(got, "ls=ls-value-456") {
		t.Fatalf("site: %q", got)
	}
	ctx := context.Background()
	st, err := profiles.ExportState(ctx, rodd.New(), drivers.LaunchOptions{UserDataDir: a}, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, c := range st.Cookies {
		names[c.Name] = c.Value
	}
	if names["sid"] != "cookie-value-123" || names["hsid"] != "http-only-789" {
		t.Errorf("cookies: %+v", st.Cookies)
	}
	if len(st.Origins) != 1 || st.Origins[0].Origin != srv.URL || len(st.Origins[0].LocalStorage) != 1 || st.Origins[0].LocalStorage[0].Value != "ls-value-456" {
		t.Errorf("origins: %+v (History origins of %s)", st.Origins, srv.URL)
	}

	var out bytes.Buffer
	file := filepath.Join(t.TempDir(), "a.rpaprofile")
	c := &profiles.StateCmd{Driver: rodd.New(), Stdout: &out, Out: file}
	if err := c.Run(ctx, "export", []string{"a"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(file)
	for _, v := range []string{"cookie-value-123", "http-only-789", "ls-value-456"} {
		if bytes.Contains(b, []byte(v)) {
			t.Errorf("the export file holds %q in clear", v)
		}
	}
	c = &profiles.StateCmd{Driver: rodd.New(), Stdout: &out}
	if err := c.Run(ctx, "import", []string{"b", file}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "exported profile a to") || !strings.Contains(out.String(), "imported into profile b: ") {
		t.Errorf("output: %q", out.String())
	}
	bdir, _ := profiles.Dir("b")
	got := visit(t, bdir, srv.URL+"/")
	for _, want := range []string{"hsid=http-only-789", "sid=cookie-value-123", "ls=ls-value-456"} {
		if !strings.Contains(got, want) {
			t.Errorf("profile b shows %q, want %q", got, want)
		}
	}

	// Bad input.
	for _, c := range []struct {
		sub  string
		pos  []string
		out  string
		want string
	}{
		{"export", []string{"a"}, "", "usage"},
		{"export", []string{"nope"}, file, "there is no profile nope"},
		{"import", []string{"b"}, "", "usage"},
		{"frob", []string{"a"}, "", "usage"},
		{"import", []string{"../x", file}, "", `profile "../x"`},
	} {
		err := (&profiles.StateCmd{Driver: rodd.New(), Stdout: &out, Out: c.out}).Run(ctx, c.sub, c.pos)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want %q", c.sub, c.pos, err, c.want)
		}
	}
	t.Setenv(vault.EnvExportPassphrase, "wrong")
	if err := (&profiles.StateCmd{Driver: rodd.New(), Stdout: &out}).Run(ctx, "import", []string{"b", file}); err == nil || !strings.Contains(err.Error(), "the export file's passphrase is wrong") {
		t.Errorf("wrong passphrase: %v", err)
	}
}
