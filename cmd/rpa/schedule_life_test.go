//go:build linux

package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/runs"
)

// daemon is one `rpa schedule daemon` process whose log lines arrive on
// lines.
type daemon struct {
	cmd   *exec.Cmd
	lines chan string
	done  chan struct{}
}

func startDaemon(t *testing.T, home string) *daemon {
	t.Helper()
	cmd := exec.Command(rpaBin(t), "schedule", "daemon", "--max-running", "1")
	cmd.Env = append(os.Environ(), "RPA_HOME="+home)
	errp, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &daemon{cmd: cmd, lines: make(chan string, 1000), done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(errp)
		for sc.Scan() {
			d.lines <- sc.Text()
		}
		cmd.Wait()
		close(d.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-d.done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
		}
	})
	return d
}

// TestTwoDaemonsFireOnce: two `rpa schedule daemon` processes on one
// $RPA_HOME, a schedule every 2 s running a flow in Chromium: one daemon
// fires; killed with -9 mid-way, the other takes over (a run the killed
// one left is marked interrupted and its fire retried, linked to it).
// Counted from the run store: every due time fired once, each fire's
// attempts are its runs, each run belongs to one fire, retries are linked.
func TestTwoDaemonsFireOnce(t *testing.T) {
	needLinux(t)
	site, _ := lifeSite(t)
	home := lifeHome(t)
	t.Setenv("RPA_HOME", home)
	flows := filepath.Join(home, "flows")
	os.MkdirAll(flows, 0o755)
	os.WriteFile(filepath.Join(flows, "ping.flow"), []byte("flow ping \"read the page\"\nparam base: string\n\nopen \"{{ base }}/\"\nt = text \"#t\"\nreturn {\"t\": t}\n"), 0o644)
	var o, e strings.Builder
	if code := runSchedule(t.Context(), []string{"add", "ping", "ping", "--every", "2s", "--arg", "base=" + site, "--retries", "1", "--backoff", "1s"}, &o, &e); code != 0 {
		t.Fatalf("add: %s", e.String())
	}
	a, b := startDaemon(t, home), startDaemon(t, home)
	// Wait (by their log lines) for three runs to end ok, noting who fires.
	type event struct {
		d    *daemon
		line string
	}
	events := make(chan event, 1000)
	var wg sync.WaitGroup
	for _, d := range []*daemon{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case l := <-d.lines:
					events <- event{d, l}
				case <-d.done:
					return
				}
			}
		}()
	}
	deadline := time.After(4 * time.Minute) // only catches a hang
	wait := func(n int, from *daemon) *daemon {
		t.Helper()
		var who *daemon
		for ok := 0; ok < n; {
			select {
			case ev := <-events:
				if strings.Contains(ev.line, "rpa schedule: schedule ping: run ") && strings.HasSuffix(ev.line, " ok") && (from == nil || ev.d == from) {
					ok++
					who = ev.d
				}
			case <-deadline:
				t.Fatalf("the schedule did not run %d times in time", n)
			}
		}
		return who
	}
	leader := wait(3, nil)
	other := a
	if leader == a {
		other = b
	}
	// Kill the leader once its next run has begun (mid-run).
	for started := false; !started; {
		select {
		case ev := <-events:
			started = ev.d == leader && strings.Contains(ev.line, "rpa schedule: schedule ping: run ") && strings.HasSuffix(ev.line, " began")
		case <-deadline:
			t.Fatal("the leader started no more runs")
		}
	}
	leader.cmd.Process.Kill()
	<-leader.done
	wait(3, other)
	killed := 0
	other.cmd.Process.Signal(syscall.SIGTERM)
	<-other.done

	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l, err := st.List(runs.Filter{Schedule: "ping", Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := st.Fires("ping", 1000)
	if err != nil {
		t.Fatal(err)
	}
	owner := map[string]int64{}
	dues := map[time.Time]bool{}
	ok := 0
	for _, f := range fs {
		t.Logf("fire %d %s %s attempt %d/%d runs %d %s%s", f.ID, f.Kind, f.State, f.Attempt, f.MaxAttempts, len(f.Runs), f.Waiting, f.Error)
		if dues[f.Due] && f.Kind != runs.FireMissed {
			t.Errorf("due time %v fired twice", f.Due)
		}
		dues[f.Due] = true
		if f.State == runs.FireRunning {
			t.Errorf("fire %d still running after both daemons stopped", f.ID)
		}
		if f.State == runs.FireOK {
			ok++
		}
		if len(f.Runs) > 1 {
			killed++
		}
		if f.Attempt != len(f.Runs) { // each attempt here gets as far as its record
			t.Errorf("fire %d: %d runs for %d attempts", f.ID, len(f.Runs), f.Attempt)
		}
		for _, id := range f.Runs {
			if prev, dup := owner[id]; dup {
				t.Errorf("run %s belongs to fires %d and %d", id, prev, f.ID)
			}
			owner[id] = f.ID
		}
	}
	byID := map[string]*runs.Run{}
	for _, r := range l {
		byID[r.ID] = r
		if _, ok := owner[r.ID]; !ok {
			t.Errorf("run %s (%s) belongs to no fire", r.ID, r.Status)
		}
	}
	// A fire's attempts are linked: each retry names the run before it.
	for _, f := range fs {
		for i, id := range f.Runs {
			want := ""
			if i > 0 {
				want = f.Runs[i-1]
			}
			if r := byID[id]; r == nil || r.RetryOf != want {
				t.Errorf("fire %d: run %s retries %q, want %q", f.ID, id, r.RetryOf, want)
			}
		}
	}
	if ok < 6 {
		t.Errorf("%d fires ended ok, want at least 6", ok)
	}
	if killed != 1 {
		t.Errorf("%d fires were retried after the kill, want 1", killed)
	}
	t.Logf("%d fires (%d ok), %d runs", len(fs), ok, len(l))
}
