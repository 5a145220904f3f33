package flowserver

import (
	"bufio"
	"context"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/host/lease"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/host/vault"
	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
)

func flowsDir(t *testing.T) string {
	t.Helper()
	t.Setenv("RPA_HOME", t.TempDir())
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "hello.flow"), []byte("flow hello \"Says hello\"\n\nlog \"hi\"\n"), 0o644)
	return dir
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// TestNewRefuses: a bad setting names its flag and leaves nothing open.
func TestNewRefuses(t *testing.T) {
	dir := flowsDir(t)
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{FlowsDir: dir, ExecAllow: []string{"ls"}}, "--exec-allow needs --allow-exec"},
		{Config{FlowsDir: dir, Heal: "sometimes"}, "--heal"},
		{Config{FlowsDir: dir, Runs: runs.Settings{Evidence: "all"}}, "--evidence"},
		{Config{FlowsDir: dir, HITL: "pigeon"}, "pigeon"},
		{Config{FlowsDir: dir, Steps: filepath.Join(dir, "none.flow")}, "--steps"},
	} {
		if s, err := New(c.cfg, mcpserver.Options{}, quiet); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
			if s != nil {
				s.Close()
			}
		}
	}
}

// TestRegister: the flags fill the Config; the defaults are the pool's.
func TestRegister(t *testing.T) {
	var c Config
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	c.Register(fs)
	err := fs.Parse([]string{"--flows", "d", "--allow-exec", "--exec-allow", "a", "--exec-allow", "b", "--browser", "ws://x", "--browser", "ws://y", "--evidence", "full", "--packet-budget", "9", "--heal", "auto", "--authoring"})
	if err != nil || c.FlowsDir != "d" || !c.AllowExec || len(c.ExecAllow) != 2 || c.Remote != "ws://x,ws://y" || c.Runs.Evidence != "full" || c.Runs.PacketBudget != 9 || c.Heal != "auto" || !c.Authoring || c.MaxBrowsers == 0 || c.Idle == 0 {
		t.Errorf("%+v %v", c, err)
	}
}

// TestServeStdio: the folder's flow is a tool over stdio; ending ctx ends
// the session with no error.
func TestServeStdio(t *testing.T) {
	s, err := New(Config{FlowsDir: flowsDir(t)}, mcpserver.Options{}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, inR, outW) }()
	go io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"id":2`) {
			if !strings.Contains(sc.Text(), "workflow_hello") {
				t.Errorf("tools/list: %s", sc.Text())
			}
			break
		}
	}
	cancel()
	go io.Copy(io.Discard, outR)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	case <-time.After(time.Minute): // only catches a hang
		t.Fatal("ServeStdio did not end after ctx")
	}
}

// TestServeHTTP: the server answers on the listener; ending ctx shuts it
// down with no error.
func TestServeHTTP(t *testing.T) {
	s, err := New(Config{FlowsDir: flowsDir(t)}, mcpserver.Options{}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeHTTP(ctx, ln, "tok") }()
	resp, err := http.Post("http://"+ln.Addr().String()+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the token: %s", resp.Status)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("ServeHTTP did not end after ctx")
	}
}

// TestDial: the server's side of the link is filled in; a missing device
// ID is connect.New's error.
func TestDial(t *testing.T) {
	s, err := New(Config{FlowsDir: flowsDir(t)}, mcpserver.Options{}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Dial(connect.Options{URL: "ws://127.0.0.1:1/ws", DeviceID: "d"}); err != nil {
		t.Errorf("Dial: %v", err)
	}
	if _, err := s.Dial(connect.Options{URL: "ws://127.0.0.1:1/ws"}); err == nil {
		t.Error("Dial without a device ID: no error")
	}
}

// TestNewSweepsTempProfiles: the temporary profile of a killed process
// (its rpa.lock names a pid nobody holds it for) is removed when a
// long-running command (rpa serve, connect, ui: all build their server with
// New) starts, not only at the next rpa run that makes one.
func TestNewSweepsTempProfiles(t *testing.T) {
	dir := flowsDir(t)
	left := filepath.Join(os.Getenv("RPA_HOME"), "tmp", "profile-left")
	if err := os.MkdirAll(left, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(left, profiles.LockFileName), []byte("2147483646\n"), 0o600)
	os.WriteFile(filepath.Join(left, "History"), []byte("x"), 0o600)
	s, err := New(Config{FlowsDir: dir}, mcpserver.Options{}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("a killed process's temporary profile is still there: %v", err)
	}
}

// TestNewCorruptRunStore: a damaged run store does not stop the server
// from starting (it stopped rpa serve and rpa connect): the file is moved
// aside and the server serves with a fresh store.
func TestNewCorruptRunStore(t *testing.T) {
	dir := flowsDir(t)
	store := filepath.Join(os.Getenv("RPA_HOME"), "runs", runs.DBName)
	if err := os.MkdirAll(filepath.Dir(store), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(store, []byte(strings.Repeat("not sqlite ", 2000)), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{FlowsDir: dir}, mcpserver.Options{}, quiet)
	if err != nil {
		t.Fatalf("a server on a damaged run store: %v", err)
	}
	defer s.Close()
	moved, _ := filepath.Glob(store + ".corrupt-*")
	if len(moved) != 1 || runs.CheckStore(os.Getenv("RPA_HOME")) != nil {
		t.Fatalf("moved aside: %v; the store now: %v", moved, runs.CheckStore(os.Getenv("RPA_HOME")))
	}
}

// TestAccountWait: --account-wait bounds how long a call waits for an
// account another run holds (0: refused at once, as `rpa run
// --account-wait 0`); the served flow's call is refused with
// account_busy naming the holder's run, before any browser starts.
func TestAccountWait(t *testing.T) {
	for _, c := range []struct {
		args []string
		want time.Duration
		err  string
	}{
		{nil, lease.DefaultWait, ""},
		{[]string{"--account-wait", "45s"}, 45 * time.Second, ""},
		{[]string{"--account-wait", "0"}, -1, ""},
		{[]string{"--account-wait", "-1s"}, 0, "want a duration"},
		{[]string{"--account-wait", "soon"}, 0, "want a duration"},
	} {
		var cfg Config
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		cfg.Register(fs)
		err := fs.Parse(c.args)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: %v, want %q", c.args, err, c.err)
			}
			continue
		}
		if err != nil || cfg.AccountWait != c.want {
			t.Errorf("%v: %v %v, want %v", c.args, cfg.AccountWait, err, c.want)
		}
	}

	dir := flowsDir(t)
	home := os.Getenv("RPA_HOME")
	os.WriteFile(filepath.Join(dir, "portal.flow"), []byte("flow portal \"reads the portal\"\nparam account: credential \"Portal account\"\n\nopen \"https://portal.example.com/\"\nfill \"#u\" account.username\n"), 0o644)
	st := vault.New(home, &vault.Keys{KDF: vault.KDF{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}, Passphrase: func(string, bool) ([]byte, error) { return []byte("test vault passphrase"), nil }})
	if err := st.Set("portal/admin", map[string]string{"username": "a", "password": "p"}, false); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	held, err := lease.NewLocal(home).Acquire(ctx, lease.Request{Account: "portal/admin", Holder: lease.Holder{RunID: "20261201T125300123-a1b2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	var cfg Config
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	cfg.Register(fs)
	if err := fs.Parse([]string{"--flows", dir, "--account-wait", "0"}); err != nil {
		t.Fatal(err)
	}
	s, err := New(cfg, mcpserver.Options{Vault: st, Leases: lease.NewLocal(home)}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sst, cst := mcp.NewInMemoryTransports()
	ss, err := s.MCP.MCP().Connect(ctx, sst, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, cst, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	// With the default wait (2 m) this call would still be waiting when
	// the bound below ends; the bound only catches a hang.
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, err = cs.CallTool(cctx, &mcp.CallToolParams{Name: "workflow_portal", Arguments: map[string]any{"account": "portal/admin"}})
	if err == nil || !strings.Contains(err.Error(), "portal/admin") || !strings.Contains(err.Error(), "20261201T125300123-a1b2") || cctx.Err() != nil {
		t.Fatalf("call while the account is held: %v", err)
	}
}
