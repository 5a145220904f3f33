//go:build linux

// Package exposure tests, with a second OS user, that a browser rpa
// launches cannot be driven by another local user: no DevTools port, a
// pipe only rpa holds, and Chromium's sandbox kept on unless it cannot
// work. Run as root (the test adds a user with useradd and removes it);
// skipped with a message otherwise.
package exposure_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
)

// roleEnv makes the test binary, run as the second user, play a role
// instead of running the tests.
const roleEnv = "RPA_EXPOSURE_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "attacker":
		os.Exit(attack(os.Getenv("RPA_EXPOSURE_PIDS"), os.Getenv("RPA_EXPOSURE_PORTS")))
	case "launch":
		os.Exit(launchAsUser(os.Getenv("RPA_EXPOSURE_BIN")))
	}
	os.Exit(m.Run())
}

const sessionCookie = "sid-Secr3t-9f41a7"

// TestOtherUserCannotDriveTheBrowser: a profile signs in (an HttpOnly
// session cookie); the browser listens on no TCP port, and a second,
// unprivileged user finds nothing to connect to and cannot open the
// DevTools pipe, so it cannot read the cookie.
func TestOtherUserCannotDriveTheBrowser(t *testing.T) {
	user := secondUser(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: sessionCookie, HttpOnly: true, Path: "/"})
		fmt.Fprint(w, "<title>signed in</title>")
	}))
	defer site.Close()
	dir := filepath.Join(t.TempDir(), "profile")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := rodd.New().Launch(ctx, drivers.LaunchOptions{UserDataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.NewPage(ctx, site.URL+"/login"); err != nil {
		t.Fatal(err)
	}
	pids := browserPIDs(dir)
	if len(pids) == 0 {
		t.Fatal("no browser process found")
	}
	for _, pid := range pids {
		if cl, _ := os.ReadFile("/proc/" + pid + "/cmdline"); strings.Contains(string(cl), "remote-debugging-port") {
			t.Errorf("browser process %s was started with a DevTools port: %s", pid, strings.ReplaceAll(string(cl), "\x00", " "))
		}
	}
	ports := listeningPorts(pids)
	if len(ports) > 0 {
		t.Errorf("the browser listens on TCP ports %v", ports)
	}
	out := user.run(t, "attacker", "RPA_EXPOSURE_PIDS="+strings.Join(pids, ","), "RPA_EXPOSURE_PORTS="+strings.Join(ports, ","))
	t.Logf("the second user tried:\n%s", out)
	if strings.Contains(out, sessionCookie) {
		t.Fatalf("the second user read the session cookie:\n%s", out)
	}
	if !strings.Contains(out, "pipe: denied") {
		t.Errorf("the second user's attempt on the DevTools pipe did not report a refusal:\n%s", out)
	}
}

// TestSandboxKeptForUsers: launched by an unprivileged user the browser
// keeps Chromium's sandbox (no --no-sandbox); when the kernel refuses the
// sandbox (a browser that says "No usable sandbox" without the flag), rpa
// detects it, says why and starts the browser without it.
func TestSandboxKeptForUsers(t *testing.T) {
	user := secondUser(t)
	bin, err := rodd.FindBrowser("")
	if err != nil {
		t.Skip(err)
	}
	out := user.run(t, "launch", "RPA_EXPOSURE_BIN="+bin)
	if !strings.Contains(out, "sandbox: on") || !strings.Contains(out, "page: ok") || strings.Contains(out, "runs with --no-sandbox") {
		t.Errorf("as a user:\n%s", out)
	}
	// A browser whose kernel refuses the sandbox.
	refusing := filepath.Join(user.dir, "refusing-chromium")
	script := "#!/bin/sh\ncase \" $* \" in *\" --no-sandbox \"*) exec " + bin + " \"$@\";; esac\n" +
		"echo '[1:1:0101/000000.000000:FATAL:zygote_host_impl_linux.cc(128)] No usable sandbox! If you are running on Ubuntu 23.10+ ...' >&2\nexit 1\n"
	if err := os.WriteFile(refusing, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out = user.run(t, "launch", "RPA_EXPOSURE_BIN="+refusing)
	if !strings.Contains(out, "sandbox: off: the kernel refuses Chromium's sandbox (No usable sandbox!") || !strings.Contains(out, "page: ok") ||
		strings.Count(out, "browsers run without Chromium's sandbox") != 1 {
		t.Errorf("with a refusing kernel:\n%s", out)
	}
}

// ---- the second user ----

type osUser struct {
	name     string
	uid, gid uint32
	dir      string // a folder of its own, with a copy of this test binary
	bin      string
}

// secondUser adds an unprivileged user for the test (root only) and
// removes it afterwards.
func secondUser(t *testing.T) *osUser {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to add a second OS user (useradd); run the test as root to check what another local user can reach")
	}
	if _, err := exec.LookPath("useradd"); err != nil {
		t.Skip("useradd not found: cannot add a second OS user")
	}
	name := fmt.Sprintf("rpax%d", os.Getpid()%100000)
	if out, err := exec.Command("useradd", "-M", "-s", "/bin/sh", name).CombinedOutput(); err != nil {
		t.Fatalf("useradd: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("userdel", name).Run() })
	uid, gid := lookupIDs(t, name)
	dir, err := os.MkdirTemp("", "rpa-exposure-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chown(dir, int(uid), int(gid)); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "exposure.test")
	if err := os.WriteFile(bin, src, 0o755); err != nil {
		t.Fatal(err)
	}
	return &osUser{name: name, uid: uid, gid: gid, dir: dir, bin: bin}
}

func lookupIDs(t *testing.T, name string) (uint32, uint32) {
	b, err := os.ReadFile("/etc/passwd")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, ":")
		if len(f) > 3 && f[0] == name {
			u, _ := strconv.Atoi(f[2])
			g, _ := strconv.Atoi(f[3])
			return uint32(u), uint32(g)
		}
	}
	t.Fatalf("user %s not in /etc/passwd", name)
	return 0, 0
}

// run runs this test binary as the user in role, and returns its output.
func (u *osUser) run(t *testing.T, role string, env ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, u.bin)
	cmd.Dir = u.dir
	cmd.Env = append([]string{roleEnv + "=" + role, "HOME=" + u.dir, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + u.dir}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: u.uid, Gid: u.gid}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Logf("%s as %s: %v", role, u.name, err)
	}
	return string(out)
}

// ---- what the roles do ----

// attack is what a second user tries: every TCP port the browser listens
// on (its DevTools HTTP endpoint, then the cookies over CDP), and the
// browser's DevTools pipe through /proc.
func attack(pids, ports string) int {
	for _, p := range strings.Split(ports, ",") {
		if p == "" {
			continue
		}
		fmt.Printf("port %s: %s\n", p, cookiesOverPort(p))
	}
	for _, pid := range strings.Split(pids, ",") {
		for _, fd := range []string{"3", "4"} {
			f, err := os.OpenFile("/proc/"+pid+"/fd/"+fd, os.O_RDWR, 0)
			if err != nil {
				if os.IsPermission(err) {
					fmt.Printf("pid %s fd %s pipe: denied\n", pid, fd)
				} else {
					fmt.Printf("pid %s fd %s: %v\n", pid, fd, err)
				}
				continue
			}
			f.Close()
			fmt.Printf("pid %s fd %s: OPENED\n", pid, fd)
		}
	}
	return 0
}

func cookiesOverPort(port string) string {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://127.0.0.1:" + port + "/json/version")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	var v struct {
		WS string `json:"webSocketDebuggerUrl"`
	}
	body, _ := io.ReadAll(resp.Body)
	if json.Unmarshal(body, &v) != nil || v.WS == "" {
		return "not DevTools: " + string(body)
	}
	conn, _, err := websocket.DefaultDialer.Dial(v.WS, nil)
	if err != nil {
		return "DevTools at " + v.WS + ", dial: " + err.Error()
	}
	defer conn.Close()
	_ = conn.WriteJSON(map[string]any{"id": 1, "method": "Storage.getCookies"})
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, msg, err := conn.ReadMessage()
	if err != nil {
		return "DevTools, read: " + err.Error()
	}
	return "DevTools cookies: " + string(msg)
}

// launchAsUser launches a browser the way rpa does, as this (unprivileged)
// process, and says whether its sandbox is on and a page loads.
func launchAsUser(bin string) int {
	home := os.Getenv("HOME")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := rodd.New().Launch(ctx, drivers.LaunchOptions{Bin: bin, UserDataDir: filepath.Join(home, fmt.Sprintf("profile-%d", time.Now().UnixNano()))})
	if err != nil {
		fmt.Println("launch:", err)
		return 1
	}
	defer b.Close()
	if why := rodd.SandboxOff(); why != "" {
		fmt.Println("sandbox: off: " + why)
	} else {
		fmt.Println("sandbox: on")
	}
	for _, pid := range browserPIDs(home) {
		if cl, _ := os.ReadFile("/proc/" + pid + "/cmdline"); strings.Contains(string(cl), "--no-sandbox") {
			fmt.Println("process " + pid + " runs with --no-sandbox")
		}
	}
	if p, err := b.NewPage(ctx, "about:blank"); err != nil {
		fmt.Println("page:", err)
	} else if _, err := p.Eval(ctx, "() => 1"); err != nil {
		fmt.Println("page:", err)
	} else {
		fmt.Println("page: ok")
	}
	return 0
}

// ---- /proc ----

// browserPIDs lists the live processes whose command line names dir.
func browserPIDs(dir string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(cl), dir) || !strings.Contains(string(cl), "--user-data-dir") {
			continue
		}
		out = append(out, e.Name())
	}
	return out
}

// listeningPorts lists the TCP ports in LISTEN state whose socket one of
// pids holds.
func listeningPorts(pids []string) []string {
	inodes := map[string]bool{}
	for _, pid := range pids {
		fds, _ := os.ReadDir("/proc/" + pid + "/fd")
		for _, fd := range fds {
			if l, err := os.Readlink("/proc/" + pid + "/fd/" + fd.Name()); err == nil && strings.HasPrefix(l, "socket:[") {
				inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
			}
		}
	}
	var out []string
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fs := strings.Fields(line)
			if len(fs) < 10 || fs[3] != "0A" || !inodes[fs[9]] {
				continue
			}
			_, port, _ := strings.Cut(fs[1], ":")
			n, _ := strconv.ParseUint(port, 16, 16)
			out = append(out, strconv.FormatUint(n, 10))
		}
	}
	return out
}
