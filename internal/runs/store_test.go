package runs

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func openT(t *testing.T, home string, o Options) *Store {
	t.Helper()
	s, err := Open(home, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestIDs(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 53, 0, 123e6, time.UTC)
	prev := ""
	for i := 0; i < 100; i++ {
		id := NewID(t0)
		if err := ValidID(id); err != nil {
			t.Fatal(err)
		}
		if id <= prev {
			t.Fatalf("IDs not increasing: %s after %s", id, prev)
		}
		prev = id
	}
	if got := IDTime(NewID(t0.Add(time.Hour))); !got.After(t0) {
		t.Fatalf("IDTime = %v", got)
	}
	for _, bad := range []string{"", "../etc/passwd", "20261201T125300123-A1B2", "20261201T125300123_a1b2", "20261201T12530012x-a1b2"} {
		if ValidID(bad) == nil {
			t.Errorf("ValidID(%q) = nil", bad)
		}
	}
}

func TestRecordAndList(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	r := &Run{Flow: "login", FlowPath: "flows/login.flow", Hash: "abc", Args: map[string]any{"user": "ann", "password": "***"},
		Caller: Caller{Kind: CallerMCP, Session: "s1", Client: "claude"}, Profile: "default"}
	dir, err := s.Begin(r)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("run folder: %v", err)
	}
	if err := s.AddStep(r.ID, Step{Index: 1, Action: "open", Line: 3, Status: "ok", DurationMs: 12, Target: "https://x", SelectorIndex: -1}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddStep(r.ID, Step{Index: 2, Action: "click", Line: 4, Status: "failed", DurationMs: 30, Selector: "", SelectorIndex: -1,
		Error: "covered by div#consent", ErrorKind: "covered"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusRunning || got.Caller.Client != "claude" || got.Args["password"] != "***" {
		t.Fatalf("Get while running = %+v", got)
	}
	os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(strings.Repeat("x", 1000)), 0o600)
	if err := s.Finish(r.ID, Outcome{Status: StatusFailed, DurationMs: 42, ErrorKind: "covered", ErrorMessage: "click: covered by div#consent", ErrorLine: 4, ErrorAction: "click"}); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Get(r.ID)
	if got.Status != StatusFailed || got.Actions != 2 || got.FailedActions != 1 || got.ErrorLine != 4 || got.Bytes != 1000 || got.DurationMs != 42 {
		t.Fatalf("Get after Finish = %+v", got)
	}
	steps, err := s.Steps(r.ID)
	if err != nil || len(steps) != 2 || steps[1].ErrorKind != "covered" || steps[0].Target != "https://x" {
		t.Fatalf("Steps = %+v, %v", steps, err)
	}
	ok := &Run{Flow: "other", Caller: Caller{Kind: CallerCLI}}
	s.Begin(ok)
	s.Finish(ok.ID, Outcome{Status: StatusOK})

	cases := []struct {
		name string
		f    Filter
		want []string
	}{
		{"all newest first", Filter{}, []string{ok.ID, r.ID}},
		{"flow", Filter{Flow: "login"}, []string{r.ID}},
		{"failed", Filter{Failed: true}, []string{r.ID}},
		{"since future", Filter{Since: time.Now().Add(time.Hour)}, nil},
		{"before", Filter{Before: ok.ID}, []string{r.ID}},
		{"limit", Filter{Limit: 1}, []string{ok.ID}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := s.List(c.f)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, x := range l {
				ids = append(ids, x.ID)
			}
			if fmt.Sprint(ids) != fmt.Sprint(c.want) {
				t.Fatalf("got %v, want %v", ids, c.want)
			}
		})
	}
	if _, err := s.Get("20261201T125300123-ffff"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get unknown: %v", err)
	}
}

func TestRetention(t *testing.T) {
	t.Run("count", func(t *testing.T) {
		s := openT(t, t.TempDir(), Options{Keep: 3})
		var ids []string
		for i := 0; i < 5; i++ {
			r := &Run{Flow: "f"}
			if _, err := s.Begin(r); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, r.ID)
			if err := s.Finish(r.ID, Outcome{Status: StatusOK}); err != nil {
				t.Fatal(err)
			}
		}
		l, _ := s.List(Filter{})
		if len(l) != 3 || l[0].ID != ids[4] || l[2].ID != ids[2] {
			t.Fatalf("kept %v", l)
		}
		for _, id := range ids[:2] {
			if _, err := os.Stat(s.RunDir(id)); !os.IsNotExist(err) {
				t.Fatalf("folder of pruned %s still there: %v", id, err)
			}
		}
	})
	t.Run("size, running kept", func(t *testing.T) {
		s := openT(t, t.TempDir(), Options{MaxBytes: 2500})
		running := &Run{Flow: "f"}
		s.Begin(running)
		os.WriteFile(filepath.Join(s.RunDir(running.ID), "big"), make([]byte, 5000), 0o600)
		s.UpdateSize(running.ID)
		for i := 0; i < 4; i++ {
			r := &Run{Flow: "f"}
			dir, _ := s.Begin(r)
			os.WriteFile(filepath.Join(dir, "events.jsonl"), make([]byte, 1000), 0o600)
			s.Finish(r.ID, Outcome{Status: StatusOK})
		}
		l, _ := s.List(Filter{})
		// Over the bound because of the running run: every finished run but
		// none of the running one goes.
		if len(l) != 1 || l[0].ID != running.ID {
			t.Fatalf("kept %v", l)
		}
		s.Finish(running.ID, Outcome{Status: StatusOK})
		if l, _ := s.List(Filter{}); len(l) != 0 {
			t.Fatalf("kept %v", l)
		}
	})
}

func TestOptionsFromEnv(t *testing.T) {
	t.Setenv("RPA_RUNS_KEEP", "10")
	t.Setenv("RPA_RUNS_MAX_MB", "1.5")
	o, err := OptionsFromEnv()
	if err != nil || o.Keep != 10 || o.MaxBytes != 1572864 {
		t.Fatalf("%+v %v", o, err)
	}
	t.Setenv("RPA_RUNS_KEEP", "ten")
	if _, err := OptionsFromEnv(); err == nil || !strings.Contains(err.Error(), "RPA_RUNS_KEEP") {
		t.Fatalf("err = %v", err)
	}
}

// TestHelperWriter is the child of TestKillMidWrite: it records a run and
// keeps adding steps until killed.
func TestHelperWriter(t *testing.T) {
	home := os.Getenv("RUNS_HELPER_HOME")
	if home == "" {
		t.Skip("helper process")
	}
	s, err := Open(home, Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	r := &Run{Flow: "endless", Caller: Caller{Kind: CallerCLI}}
	dir, err := s.Begin(r)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	f, _ := os.OpenFile(filepath.Join(dir, "events.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	for i := 1; ; i++ {
		if err := s.AddStep(r.ID, Step{Index: i, Action: "click", Line: i, Status: "ok", SelectorIndex: -1, Target: strings.Repeat("t", 200)}); err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		fmt.Fprintf(f, `{"step":%d}`+"\n", i)
		if i == 20 {
			fmt.Println("ready", r.ID)
		}
	}
}

func TestKillMidWrite(t *testing.T) {
	home := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
	cmd.Env = append(os.Environ(), "RUNS_HELPER_HOME="+home)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ready ") {
		t.Fatalf("helper said %q, %v", line, err)
	}
	id := strings.TrimSpace(strings.TrimPrefix(line, "ready "))

	// While the writer lives, another process's open leaves its run alone.
	s1 := openT(t, home, Options{})
	if r, err := s1.Get(id); err != nil || r.Status != StatusRunning {
		t.Fatalf("live run: %+v %v", r, err)
	}
	s1.Close()

	time.Sleep(50 * time.Millisecond)          // let it write a little more
	if err := cmd.Process.Kill(); err != nil { // SIGKILL on unix
		t.Fatal(err)
	}
	cmd.Wait()

	s := openT(t, home, Options{})
	var check string
	if err := s.db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q, %v", check, err)
	}
	r, err := s.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusInterrupted || r.Actions < 20 || r.ErrorKind != "interrupted" {
		t.Fatalf("after kill -9: %+v", r)
	}
	steps, err := s.Steps(id)
	if err != nil || len(steps) != r.Actions {
		t.Fatalf("steps %d vs %d, %v", len(steps), r.Actions, err)
	}
	for i, st := range steps {
		if st.Index != i+1 {
			t.Fatalf("step %d has index %d", i+1, st.Index)
		}
	}
}

func TestAliveOwner(t *testing.T) {
	me := self()
	if !alive(me) {
		t.Fatal("this process is not alive")
	}
	if me.start != 0 && alive(owner{pid: me.pid, start: me.start + 1}) {
		t.Fatal("a reused pid counts as the owner")
	}
	if alive(owner{pid: 0}) {
		t.Fatal("pid 0 alive")
	}
}

// Concurrent recorders (an MCP server running calls on several profiles)
// share one store.
func TestConcurrentRuns(t *testing.T) {
	s := openT(t, t.TempDir(), Options{Keep: 5})
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			var err error
			defer func() { errs <- err }()
			for i := 0; i < 5 && err == nil; i++ {
				r := &Run{Flow: fmt.Sprintf("f%d", g)}
				if _, err = s.Begin(r); err != nil {
					return
				}
				for j := 1; j <= 3 && err == nil; j++ {
					err = s.AddStep(r.ID, Step{Index: j, Action: "click", Status: "ok", SelectorIndex: -1})
				}
				if err == nil {
					err = s.Finish(r.ID, Outcome{Status: StatusOK})
				}
				if err == nil {
					_, err = s.List(Filter{})
				}
			}
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	l, err := s.List(Filter{Limit: 100})
	if err != nil || len(l) != 5 {
		t.Fatalf("kept %d runs, want 5: %v", len(l), err)
	}
	for _, r := range l {
		if r.Actions != 3 {
			t.Fatalf("run %s has %d actions", r.ID, r.Actions)
		}
	}
}
