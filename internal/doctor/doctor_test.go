package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/link/mcpws"
	"github.com/rpa-dev/rpa/internal/runs"
)

// find returns the check named name in r.
func find(t *testing.T, r Report, name string) Check {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, r.Checks)
	return Check{}
}

func wantStatus(t *testing.T, c Check, want Status, detail string) {
	t.Helper()
	if c.Status != want {
		t.Errorf("%s: status %s, want %s (detail %q, fix %q)", c.Name, c.Status, want, c.Detail, c.Fix)
	}
	if detail != "" && !strings.Contains(c.Detail, detail) {
		t.Errorf("%s: detail %q does not contain %q", c.Name, c.Detail, detail)
	}
	if c.Status == Fail && c.Fix == "" {
		t.Errorf("%s: a failing check without a fix line", c.Name)
	}
}

func noEnv(string) string { return "" }

func noTools(string) (string, error) { return "", exec.ErrNotFound }

// TestNoBrowser: with no browser anywhere, the browser check fails with an
// install line, the launch is skipped as failed, and the report fails.
func TestNoBrowser(t *testing.T) {
	t.Setenv("ROD_BROWSER", "")
	t.Setenv("PATH", t.TempDir())
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		// FindBrowser always tries /usr/bin/chromium; an explicit missing
		// binary is the same failure from the user's side.
		r := Run(context.Background(), Options{Home: t.TempDir(), BrowserBin: "/nonexistent/chromium", ConnectEnv: "-", Getenv: noEnv, LookPath: noTools})
		checkNoBrowser(t, r)
		return
	}
	r := Run(context.Background(), Options{Home: t.TempDir(), ConnectEnv: "-", Getenv: noEnv, LookPath: noTools})
	checkNoBrowser(t, r)
}

func checkNoBrowser(t *testing.T, r Report) {
	t.Helper()
	b := find(t, r, "browser")
	wantStatus(t, b, Fail, "not found")
	if !strings.Contains(b.Fix, "apt-get install chromium") {
		t.Errorf("fix %q does not say how to install Chromium", b.Fix)
	}
	wantStatus(t, find(t, r, "browser launch"), Fail, "skipped")
	if r.OK {
		t.Error("report OK without a browser")
	}
	// Headless items are notes, not failures.
	wantStatus(t, find(t, r, "display"), Note, "")
	wantStatus(t, find(t, r, "dialogs"), Note, "")
}

// TestUnwritableHome: a home below a regular file cannot be created (this
// holds for root too, unlike a chmod'ed folder).
func TestUnwritableHome(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(file, "rpa")
	c := CheckHome(home)
	wantStatus(t, c, Fail, home)
	if !strings.Contains(c.Fix, "RPA_HOME") {
		t.Errorf("fix %q does not mention RPA_HOME", c.Fix)
	}
	r := Run(context.Background(), Options{Home: home, NoLaunch: true, ConnectEnv: "-", Getenv: noEnv, LookPath: noTools})
	if r.OK {
		t.Error("report OK with an unwritable home")
	}
	wantStatus(t, find(t, r, "home"), Fail, "")

	ok := CheckHome(filepath.Join(t.TempDir(), "new", "home"))
	wantStatus(t, ok, OK, "writable")
}

// fakeBrowser starts a process whose executable is named chromium (a copy
// of sleep) and returns its pid; it is killed at the end of the test.
func fakeBrowser(t *testing.T) int {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep program")
	}
	src, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "chromium")
	if err := os.WriteFile(bin, src, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd.Process.Pid
}

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true program")
	}
	return cmd.Process.Pid
}

func lockProfile(t *testing.T, home, id, owner string) {
	t.Helper()
	dir := filepath.Join(home, "profiles", id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(owner, filepath.Join(dir, "SingletonLock")); err != nil {
		t.Fatal(err)
	}
}

// TestLockedProfile: a SingletonLock naming a live Chromium fails with its
// pid; locks of dead processes, of live non-browsers (a reused pid) and
// malformed ones are notes; no profiles is ok.
func TestLockedProfile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SingletonLock is the Unix lock")
	}
	host, _ := os.Hostname()
	wantStatus(t, CheckProfiles(t.TempDir()), OK, "no profiles yet")

	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "profiles", "unlocked"), 0o700); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, CheckProfiles(home), OK, "1 profile(s), none in use")

	lockProfile(t, home, "stale", host+"-"+itoa(deadPID(t)))
	lockProfile(t, home, "reused", host+"-"+itoa(os.Getpid())) // alive, but a test binary, not a browser
	lockProfile(t, home, "junk", "not-a-lock")
	c := CheckProfiles(home)
	wantStatus(t, c, Note, "stale lock")
	for _, id := range []string{"stale", "reused", "junk"} {
		if !strings.Contains(c.Detail, id) {
			t.Errorf("detail %q does not name profile %s", c.Detail, id)
		}
	}

	pid := fakeBrowser(t)
	lockProfile(t, home, "work", host+"-"+itoa(pid))
	c = CheckProfiles(home)
	wantStatus(t, c, Fail, "work (pid "+itoa(pid))
	if !strings.Contains(c.Fix, "kill "+itoa(pid)) {
		t.Errorf("fix %q does not name the pid", c.Fix)
	}
	l, err := ProfileLock(filepath.Join(home, "profiles", "work"))
	if err != nil || l == nil || !l.Live || l.PID != pid || l.Host != host {
		t.Errorf("ProfileLock = %+v, %v", l, err)
	}

	// A lock held on another host (a profile on a shared disk) cannot be
	// checked: it counts as in use, without a pid to kill.
	home2 := t.TempDir()
	lockProfile(t, home2, "shared", "some-other-host-42")
	c = CheckProfiles(home2)
	wantStatus(t, c, Fail, "some-other-host-42")
	if strings.Contains(c.Fix, "kill") {
		t.Errorf("fix %q offers to kill a process of another host", c.Fix)
	}

	r := Run(context.Background(), Options{Home: home, NoLaunch: true, ConnectEnv: "-", Getenv: noEnv, LookPath: noTools})
	if r.OK {
		t.Error("report OK with a locked profile")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestParseOwner(t *testing.T) {
	tests := []struct {
		in   string
		host string
		pid  int
		ok   bool
	}{
		{"desk-01-1234", "desk-01", 1234, true},
		{"h-1", "h", 1, true},
		{"-1", "", 0, false},
		{"host-", "", 0, false},
		{"host-x", "", 0, false},
		{"host-0", "", 0, false},
		{"nodash", "", 0, false},
	}
	for _, tt := range tests {
		h, p, ok := parseOwner(tt.in)
		if h != tt.host || p != tt.pid || ok != tt.ok {
			t.Errorf("parseOwner(%q) = %q, %d, %v", tt.in, h, p, ok)
		}
	}
}

func TestDisplayAndDialogs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the display rule is the Linux/BSD one")
	}
	wantStatus(t, CheckDisplay(noEnv), Note, "headless")
	env := func(k string) string {
		if k == "DISPLAY" {
			return ":99"
		}
		return ""
	}
	wantStatus(t, CheckDisplay(env), OK, "DISPLAY=:99")
	wantStatus(t, CheckDialogs(noTools), Note, "no dialog program")
	zen := func(n string) (string, error) {
		if n == "zenity" {
			return "/usr/bin/zenity", nil
		}
		return "", exec.ErrNotFound
	}
	wantStatus(t, CheckDialogs(zen), OK, "/usr/bin/zenity")
}

const goodFlow = `flow hello "Say hello"

param name: string "Who"

log "hello " + name
`

const badFlow = `flow broken "Broken"

clik "#x"
`

func TestFlows(t *testing.T) {
	wantStatus(t, CheckFlows(filepath.Join(t.TempDir(), "none")), Note, "does not exist")
	dir := t.TempDir()
	wantStatus(t, CheckFlows(dir), Note, "no flow files")
	if err := os.WriteFile(filepath.Join(dir, "hello.flow"), []byte(goodFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, CheckFlows(dir), OK, "1 flow(s)")
	if err := os.WriteFile(filepath.Join(dir, "broken.flow"), []byte(badFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	c := CheckFlows(dir)
	wantStatus(t, c, Fail, "1 of 2 flow file(s)")
	if !strings.Contains(c.Detail, "broken.flow:3") || !strings.Contains(c.Fix, "rpa check "+dir) {
		t.Errorf("detail %q / fix %q: want the first error's position and the check command", c.Detail, c.Fix)
	}
}

func TestParseEnvFile(t *testing.T) {
	env, err := ParseEnvFile([]byte("# comment\n; also\n\nRPA_URL=wss://h/ws\nexport RPA_DEVICE_ID = \"desk 1\"\nRPA_TOKEN='t=1'\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"RPA_URL": "wss://h/ws", "RPA_DEVICE_ID": "desk 1", "RPA_TOKEN": "t=1"}
	if len(env) != len(want) {
		t.Errorf("env = %v", env)
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	if _, err := ParseEnvFile([]byte("RPA_URL=x\nnot a pair\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad line: err = %v", err)
	}
}

func TestConnectEnv(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "connect.env")
	wantStatus(t, CheckConnectEnv(p), Note, "not set up")
	write := func(s string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	write("RPA_URL=http://h/ws\n", 0o600)
	c := CheckConnectEnv(p)
	wantStatus(t, c, Fail, "is not ws://")
	if !strings.Contains(c.Detail, "RPA_DEVICE_ID is not set") {
		t.Errorf("detail %q", c.Detail)
	}
	write("RPA_URL=wss://h/ws?key=s3cret\nRPA_DEVICE_ID=desk1\nRPA_TOKEN=s3cret\n", 0o600)
	c = CheckConnectEnv(p)
	wantStatus(t, c, OK, `as device "desk1", token set`)
	if strings.Contains(c.Detail, "s3cret") {
		t.Errorf("detail %q shows the secret", c.Detail)
	}
	// The replicas of a gateway cluster: several addresses, each checked.
	write("RPA_URL=\"wss://g1/ws wss://g2/ws\"\nRPA_DEVICE_ID=desk1\n", 0o600)
	wantStatus(t, CheckConnectEnv(p), OK, "wss://g1/ws wss://g2/ws as device")
	write("RPA_URL=\"wss://g1/ws http://g2/ws\"\nRPA_DEVICE_ID=desk1\n", 0o600)
	wantStatus(t, CheckConnectEnv(p), Fail, "http://g2/ws is not ws://")
	if runtime.GOOS != "windows" {
		write("RPA_URL=wss://h/ws\nRPA_DEVICE_ID=desk1\nRPA_TOKEN=s3cret\n", 0o644)
		c = CheckConnectEnv(p)
		wantStatus(t, c, Fail, "other users can read the token")
		if !strings.Contains(c.Fix, "chmod 600") || strings.Contains(c.Detail+c.Fix, "s3cret") {
			t.Errorf("detail %q fix %q", c.Detail, c.Fix)
		}
	}
}

// backend is a minimal link backend: it checks the token, reads the
// register message and either answers with an initialize request (as rpa
// gateway does) or closes the link.
func backend(t *testing.T, accept bool) (url string, got chan mcpws.Register) {
	t.Helper()
	got = make(chan mcpws.Register, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "bad token", http.StatusUnauthorized)
			return
		}
		link, err := mcpws.Upgrade(w, r, mcpws.Options{})
		if err != nil {
			return
		}
		defer link.Close()
		f, err := link.ReadFrame()
		if err != nil {
			return
		}
		var reg mcpws.Register
		_ = json.Unmarshal(f, &reg)
		got <- reg
		if !accept {
			link.CloseWith(1008, "device not allowed")
			return
		}
		_ = link.WriteFrame([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
		_, _ = link.ReadFrame() // until the doctor closes
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws", got
}

func TestConnect(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only catches a hang
	defer cancel()
	u, got := backend(t, true)
	c := CheckConnect(ctx, u, "doctor-test", "tok")
	wantStatus(t, c, OK, `registered at`)
	if !strings.Contains(c.Detail, "initialize") {
		t.Errorf("detail %q", c.Detail)
	}
	if reg := <-got; reg.Type != mcpws.TypeRegister || reg.DeviceID != "doctor-test" {
		t.Errorf("register = %+v", reg)
	}

	c = CheckConnect(ctx, u, "doctor-test", "wrong")
	wantStatus(t, c, Fail, "401")
	if !strings.Contains(c.Fix, "token") || strings.Contains(c.Detail+c.Fix, "wrong") {
		t.Errorf("detail %q fix %q", c.Detail, c.Fix)
	}

	u2, _ := backend(t, false)
	wantStatus(t, CheckConnect(ctx, u2, "doctor-test", "tok"), Fail, "closed the link")

	wantStatus(t, CheckConnect(ctx, "http://h/ws", "d", ""), Fail, "is not ws://")

	// The whole Run: --connect given, default device id.
	r := Run(ctx, Options{Home: t.TempDir(), NoLaunch: true, ConnectEnv: "-", ConnectURL: u, Token: "tok", Getenv: noEnv, LookPath: noTools})
	host, _ := os.Hostname()
	wantStatus(t, find(t, r, "connect"), OK, `"doctor-`+host+`"`)
}

func TestPrint(t *testing.T) {
	r := Report{Checks: []Check{
		{Name: "browser", Status: Fail, Detail: "none", Fix: "install it"},
		{Name: "display", Status: Note, Detail: "none"},
		{Name: "home", Status: OK, Detail: "/h is writable"},
	}}
	var b bytes.Buffer
	Print(&b, r)
	want := "fail  browser  none\n" +
		"               fix: install it\n" +
		"note  display  none\n" +
		"ok    home     /h is writable\n" +
		"\n1 item(s) failed; fix them as shown above.\n"
	if b.String() != want {
		t.Errorf("Print:\n%s\nwant:\n%s", b.String(), want)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatal(err)
	}
}

// TestLaunch drives the real browser once (skipped when there is none).
func TestLaunch(t *testing.T) {
	b := CheckBrowser(context.Background(), "")
	if b.Status != OK {
		t.Skip("no Chromium: " + b.Detail)
	}
	if !strings.Contains(b.Detail, b.Path) {
		t.Errorf("browser detail %q", b.Detail)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // only catches a hang
	defer cancel()
	c := CheckLaunch(ctx, b.Path, t.TempDir())
	wantStatus(t, c, OK, "Chrome/")
	iso := CheckIsolation()
	if !strings.Contains(iso.Detail, "DevTools over a pipe only rpa holds (no TCP port)") ||
		os.Geteuid() == 0 && (iso.Status != Note || !strings.Contains(iso.Detail, "sandbox off: running as root")) ||
		os.Geteuid() != 0 && !strings.Contains(iso.Detail, "sandbox") {
		t.Errorf("isolation: %+v", iso)
	}

	// A "browser" that exits at once fails the launch with a fix line.
	bad := filepath.Join(t.TempDir(), "chromium")
	if err := os.WriteFile(bad, []byte("#!/bin/sh\necho broken >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c = CheckLaunch(ctx, bad, t.TempDir())
	wantStatus(t, c, Fail, "")
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatal("hang")
	}
}

// TestCheckRunStore: a damaged run store fails the doctor (it said ready
// while rpa serve could not start); a sound or missing one is ok.
func TestCheckRunStore(t *testing.T) {
	home := t.TempDir()
	if c := CheckRunStore(home); c.Status != OK {
		t.Errorf("no store yet: %+v", c)
	}
	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if c := CheckRunStore(home); c.Status != OK {
		t.Errorf("a fresh store: %+v", c)
	}
	if err := os.WriteFile(filepath.Join(home, "runs", runs.DBName), []byte(strings.Repeat("junk", 4096)), 0o600); err != nil {
		t.Fatal(err)
	}
	if c := CheckRunStore(home); c.Status != Fail || !strings.Contains(c.Detail, "not a database") || !strings.Contains(c.Fix, "moves it aside") {
		t.Errorf("a damaged store: %+v", c)
	}
}
