package localctl

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/host/home"
)

func TestRegisterListClose(t *testing.T) {
	home := t.TempDir()
	r, err := Register(home, Entry{Kind: KindConsole, Addr: "127.0.0.1:1234", Token: "t0k"})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 (the file holds a token)", fi.Mode().Perm())
	}
	l, err := List(home, KindConsole)
	if err != nil || len(l) != 1 || l[0].PID != os.Getpid() || l[0].Token != "t0k" {
		t.Fatalf("List = %+v, %v", l, err)
	}
	if l, _ := List(home, "other"); len(l) != 0 {
		t.Errorf("another kind listed: %+v", l)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if l, _ := List(home, ""); len(l) != 0 {
		t.Errorf("after Close: %+v", l)
	}
}

func TestListSkipsDeadAndMalformed(t *testing.T) {
	home := t.TempDir()
	// A dead process's entry: the pid of a command that has exited.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.ProcessState.Pid()
	if err := os.MkdirAll(Dir(home), 0o700); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(Entry{Kind: KindConsole, PID: dead, Addr: "127.0.0.1:1", Token: "x", Started: time.Now()})
	stale := filepath.Join(Dir(home), "console-dead.json")
	if err := os.WriteFile(stale, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(Dir(home), "console-bad.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	live, err := Register(home, Entry{Kind: KindConsole, Addr: "127.0.0.1:2", Token: "y"})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	l, err := List(home, KindConsole)
	if err != nil || len(l) != 1 || l[0].Addr != "127.0.0.1:2" {
		t.Fatalf("List = %+v, %v", l, err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the dead process's entry is still there: %v", err)
	}
}

func TestRegisterRefusesBadEntry(t *testing.T) {
	for _, e := range []Entry{{Kind: "", Addr: "a", Token: "t"}, {Kind: "Con/sole", Addr: "a", Token: "t"}, {Kind: KindConsole, Token: "t"}, {Kind: KindConsole, Addr: "a"}} {
		if _, err := Register(t.TempDir(), e); err == nil {
			t.Errorf("Register(%+v) = nil error", e)
		}
	}
}

func TestListNoFolder(t *testing.T) {
	l, err := List(filepath.Join(t.TempDir(), "none"), "")
	if err != nil || l != nil {
		t.Fatalf("%v %v", l, err)
	}
}

func TestServeEntryUpdate(t *testing.T) {
	home := t.TempDir()
	r, err := Register(home, Entry{Kind: KindServe, Program: "rpa connect", Gateway: "wss://gw.example/link", GatewayState: "dialing"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	e := Entry{Kind: KindServe, PID: os.Getpid(), Program: "rpa connect", Serves: []string{"link"}, Gateway: "wss://gw.example/link", GatewayState: "connected"}
	if err := r.Update(e); err != nil {
		t.Fatal(err)
	}
	l, err := List(home, KindServe)
	if err != nil || len(l) != 1 || l[0].GatewayState != "connected" || len(l[0].Serves) != 1 {
		t.Fatalf("%+v %v", l, err)
	}
	r.Close()
	if err := r.Update(e); err != nil {
		t.Fatal(err)
	}
	if l, _ := List(home, ""); len(l) != 0 {
		t.Fatalf("an Update after Close wrote the entry back: %+v", l)
	}
}

// TestRegisterRemovesStale: a process killed before Close (kill -9) left
// its file; the next Register, of any kind, removes it, with no List of
// that kind ever made (nothing lists serve entries but a console's Status
// page).
func TestRegisterRemovesStale(t *testing.T) {
	home := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(Dir(home), 0o700); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(Entry{Kind: KindServe, PID: cmd.ProcessState.Pid(), Program: "rpa serve", Started: time.Now()})
	stale := filepath.Join(Dir(home), "serve-"+strconv.Itoa(cmd.ProcessState.Pid())+".json")
	if err := os.WriteFile(stale, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Register(home, Entry{Kind: KindUI, URL: "http://127.0.0.1:1/"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the killed process's entry is still there after the next Register: %v", err)
	}
}

// TestReusedPID: an entry whose pid now runs a process that started
// later (another start mark) is stale: not listed, removed. Where no mark
// can be read (macOS) the pid alone decides and the case does not apply.
func TestReusedPID(t *testing.T) {
	mark, ok := home.ProcessStart(os.Getpid())
	if !ok {
		t.Skip("no process start marks on " + runtime.GOOS)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(Dir(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(Entry{Kind: KindServe, PID: os.Getpid(), Program: "rpa serve", Started: time.Now(), ProcStart: mark + "0"})
	stale := filepath.Join(Dir(dir), "serve-reused.json")
	if err := os.WriteFile(stale, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Register(dir, Entry{Kind: KindServe, Program: "rpa serve"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	l, err := List(dir, KindServe)
	if err != nil || len(l) != 1 || l[0].ProcStart != mark {
		t.Fatalf("List = %+v, %v (want this process's own entry, its mark %s)", l, err, mark)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the entry of a reused pid is still there: %v", err)
	}
}
