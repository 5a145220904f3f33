package localctl

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
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
