package schedule

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/runs"
)

// TestStateShowsOrphan: a running fire whose process ended (kill -9) shows
// as interrupted, saying what becomes of it, not as running.
func TestStateShowsOrphan(t *testing.T) {
	run := &runs.Fire{State: runs.FireRunning, Attempt: 1, MaxAttempts: 2}
	orphan := &runs.Fire{State: runs.FireRunning, Attempt: 1, MaxAttempts: 1, Orphan: true}
	queued := &runs.Fire{State: runs.FireQueued}
	for _, tc := range []struct {
		active []*runs.Fire
		want   string
	}{
		{nil, "active"},
		{[]*runs.Fire{run}, "running"},
		{[]*runs.Fire{orphan}, "interrupted"},
		{[]*runs.Fire{orphan, queued}, "interrupted, 1 waiting"},
	} {
		if got := state(&View{Active: tc.active}); got != tc.want {
			t.Errorf("state = %q, want %q", got, tc.want)
		}
	}
	// it leads with interrupted, not running (the old line read "running (attempt 1 of 1),
	// interrupted: ...", which tester 3 read as still running)
	if l := fireLine(orphan); !strings.Contains(l, "interrupted (attempt 1 of 1): "+OrphanText) || strings.Contains(l, "running (") {
		t.Errorf("fire line %q", l)
	}
	if l := fireLine(run); strings.Contains(l, "interrupted") {
		t.Errorf("fire line %q", l)
	}
}

// deadPID is above Linux's largest pid (1<<22): no process has it.
const deadPID = 1<<22 + 12345

// TestShowAsListDoes: rpa schedule show says what list says of the active
// fires: a running fire whose process was killed is an orphan
// (interrupted), and a queued fire does not name a holder whose process
// has ended. The scheduler's log of a busy fire has no empty "()".
func TestShowAsListDoes(t *testing.T) {
	e := newEnv(t)
	e.add(Def{Name: "busy", Every: Duration(time.Hour)})
	e.add(Def{Name: "killed", Every: Duration(time.Hour)})
	held := fmt.Sprintf("account portal/admin is in use by run 20260302T080000000-f66d (pid %d)", deadPID)
	r := &fakeRunner{st: e.st, busy: func(int) string { return held }, busyPID: deadPID}
	var logMu sync.Mutex
	var logged []string
	s := New(Config{Store: e.st, Runner: r, Clock: e.clock, Program: "rpa schedule daemon", MaxRunning: 4,
		Log: func(m string) { logMu.Lock(); logged = append(logged, m); logMu.Unlock() }})
	busyID, err := RunNow(e.st, "busy", e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	tick(s)
	if f, _ := e.st.Fire(busyID); f.State != runs.FireQueued || f.Waiting != held {
		t.Fatalf("busy fire %+v", f)
	}
	// A fire whose process was killed (kill -9) while it ran.
	killedID, err := RunNow(e.st, "killed", e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if c, err := e.st.ClaimFire(killedID, runs.Me("gone", "rpa schedule daemon"), e.clock.Now()); err != nil || !c.Started {
		t.Fatalf("claim: %+v %v", c, err)
	}
	db, err := sql.Open("sqlite", filepath.Join(e.st.Dir(), runs.DBName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE schedule_fires SET owner_pid=? WHERE id=?`, deadPID, killedID); err != nil {
		t.Fatal(err)
	}

	b, err := Load(e.st, e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]*View{}
	for _, v := range b.Schedules {
		listed[v.Name] = v
	}
	for _, name := range []string{"killed", "busy"} {
		d, err := Show(e.st, name, e.clock.Now(), 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Active) != 1 || len(listed[name].Active) != 1 {
			t.Fatalf("%s: show %d active, list %d", name, len(d.Active), len(listed[name].Active))
		}
		sj, _ := json.Marshal(d.Active)
		lj, _ := json.Marshal(listed[name].Active)
		if string(sj) != string(lj) {
			t.Errorf("%s: show's active fires\n%s\nlist's\n%s", name, sj, lj)
		}
		var out strings.Builder
		if err := WriteDetail(&out, d); err != nil {
			t.Fatal(err)
		}
		text := out.String()
		switch name {
		case "killed":
			if !d.Active[0].Orphan || !strings.Contains(text, "interrupted (attempt 1 of 1): "+OrphanText) {
				t.Errorf("show of the killed fire: %+v\n%s", d.Active[0], text)
			}
			if full, _ := json.Marshal(d); !strings.Contains(string(full), `"orphan":true`) {
				t.Errorf("show --json: %s", full)
			}
		case "busy":
			if d.Active[0].Waiting != runs.StaleWaiting || strings.Contains(text, fmt.Sprint(deadPID)) {
				t.Errorf("show of the fire that waited for a dead holder:\n%s", text)
			}
		}
	}
	// A holder that lives is still named.
	if _, err := db.Exec(`UPDATE schedule_fires SET waiting_pid=? WHERE id=?`, os.Getpid(), busyID); err != nil {
		t.Fatal(err)
	}
	if d, _ := Show(e.st, "busy", e.clock.Now(), 10); d.Active[0].Waiting != held {
		t.Errorf("a live holder's reason: %q", d.Active[0].Waiting)
	}
	logMu.Lock()
	all := strings.Join(logged, "\n")
	logMu.Unlock()
	if !strings.Contains(all, held) || strings.Contains(all, "()") {
		t.Errorf("log:\n%s", all)
	}
}
