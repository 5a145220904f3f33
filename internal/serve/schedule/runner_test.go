package schedule

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/host/vault"
	"github.com/rpa-dev/rpa/internal/runs"
)

const flakyFlow = `flow flaky "the status page answers the third time"
param base_url: string = "http://127.0.0.1:1"
param pw: secret

defaults wait: 1s retries: 0

open "{{ base_url }}/status?pw={{ pw }}"
t = text "#ok"
return {"t": t}
`

// TestLocalRunnerRetries runs a scheduled flow in real Chromium through
// LocalRunner (the path of rpa run): its page fails twice, then answers.
// The fire is retried after its backoff (1m, then 2m on the fake clock),
// the history holds three runs of the schedule, each retry linked to the
// run it retries, and the secret read from the environment is nowhere in
// the run store.
func TestLocalRunnerRetries(t *testing.T) {
	if os.Getenv("RPA_SKIP_BROWSER") != "" {
		t.Skip("RPA_SKIP_BROWSER set")
	}
	e := newEnv(t)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/status" {
			http.NotFound(w, r)
			return
		}
		if hits.Add(1) <= 2 {
			fmt.Fprint(w, `<!doctype html><title>Status</title><p id="wait">not yet</p>`)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Status</title><p id="ok">all good</p>`)
	}))
	defer srv.Close()
	flow := filepath.Join(filepath.Dir(e.flow), "flaky.flow")
	os.WriteFile(flow, []byte(flakyFlow), 0o644)
	const pw = "s3cret-Pw-9931"
	t.Setenv("RPA_TEST_FLAKY_PW", pw)
	d := Def{Name: "flaky-status", Every: Duration(time.Hour), Retries: 3, Backoff: Duration(time.Minute),
		Args: map[string]string{"base_url": srv.URL}, SecretEnv: map[string]string{"pw": "RPA_TEST_FLAKY_PW"}}
	if err := Prepare(&d, flow, "", e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := Add(e.st, &d, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	var warns []string
	s := New(Config{Store: e.st, Runner: &LocalRunner{Warn: func(m string) { warns = append(warns, m) }}, Clock: e.clock, Program: "test",
		Notify: &Notifier{Desktop: func(string, string) error { return nil }}})
	e.clock.Advance(time.Hour)
	tick(s)
	tick(s)
	e.clock.Advance(time.Minute)
	tick(s)
	e.clock.Advance(2 * time.Minute)
	tick(s)
	l := scheduledRuns(t, e.st, "flaky-status")
	if len(l) != 3 || hits.Load() != 3 || len(warns) > 0 {
		t.Fatalf("%d runs, %d page loads, warnings %q", len(l), hits.Load(), warns)
	}
	if l[0].Status != runs.StatusOK || l[1].Status != runs.StatusFailed || l[2].Status != runs.StatusFailed ||
		l[0].RetryOf != l[1].ID || l[1].RetryOf != l[2].ID || l[0].Caller.Kind != runs.CallerSchedule || l[0].Flow != "flaky" {
		t.Fatalf("runs: %+v", l)
	}
	if l[0].Args["pw"] != "***" || l[0].Args["base_url"] != srv.URL {
		t.Fatalf("recorded args %v", l[0].Args)
	}
	fs, _ := e.st.Fires("flaky-status", 0)
	if fs[0].State != runs.FireOK || fs[0].Attempt != 3 || fs[0].Site != strings.TrimPrefix(srv.URL, "http://") {
		t.Fatalf("fire %+v", fs[0])
	}
	if !strings.Contains(l[2].ErrorMessage, "#ok") {
		t.Errorf("first failure: %q", l[2].ErrorMessage)
	}
	filepath.WalkDir(filepath.Join(e.home, "runs"), func(p string, de os.DirEntry, err error) error {
		if err == nil && de.Type().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), pw) {
				t.Errorf("%s holds the secret", p)
			}
		}
		return nil
	})
}

// TestUnstartedAttemptsRecorded: an attempt that fails before its flow
// runs (the flow file gone, an account the vault lacks, no vault key in
// the firing process) is a failed run of the schedule in the run store,
// with the reason, its kind and the schedule's name, linked from the fire
// and from the retry after it. No browser starts: each fails before.
func TestUnstartedAttemptsRecorded(t *testing.T) {
	e := newEnv(t)
	t.Setenv("RPA_VAULT_KEYRING", "off")
	t.Setenv("RPA_VAULT_PASSPHRASE", "unstarted attempts")
	dir := filepath.Dir(e.flow)
	if err := vault.New(e.home, &vault.Keys{KDF: vault.KDF{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}}).Set("portal/admin", map[string]string{"password": "p"}, false); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(dir, "gone.flow")
	os.WriteFile(gone, []byte("flow gone \"x\"\nparam region: string\n\nopen \"http://127.0.0.1:1/{{ region }}\"\n"), 0o644)
	acct := filepath.Join(dir, "acct.flow")
	os.WriteFile(acct, []byte("flow acct \"x\"\nparam account: credential\n\nopen \"http://127.0.0.1:1/\"\nlog account.password\n"), 0o644)
	for _, d := range []Def{
		{Name: "gone", Every: Duration(time.Hour), Retries: 1, Backoff: Duration(time.Minute), Args: map[string]string{"region": "north"}},
		{Name: "acct", Every: Duration(time.Hour), Account: "portal/admin"},
	} {
		flow := gone
		if d.Name == "acct" {
			flow = acct
		}
		if err := Prepare(&d, flow, "", e.clock.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := Add(e.st, &d, e.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	// What the schedules name goes away after they were added.
	os.Remove(gone)
	if err := vault.New(e.home, &vault.Keys{}).Remove("portal/admin"); err != nil {
		t.Fatal(err)
	}
	if err := vault.New(e.home, &vault.Keys{}).Set("portal/ops", map[string]string{"password": "p"}, false); err != nil {
		t.Fatal(err)
	}
	s := New(Config{Store: e.st, Runner: &LocalRunner{}, Clock: e.clock, Program: "test", Notify: &Notifier{Desktop: func(string, string) error { return nil }}})
	e.clock.Advance(time.Hour)
	tick(s)
	e.clock.Advance(time.Minute) // the retry of gone
	tick(s)
	check := func(name string, n int, kind string, want ...string) []*runs.Run {
		t.Helper()
		l := scheduledRuns(t, e.st, name)
		if len(l) != n {
			t.Fatalf("%s: %d runs recorded, want %d", name, len(l), n)
		}
		for _, r := range l {
			if r.Status != runs.StatusFailed || r.Schedule != name || r.ErrorKind != kind || r.Caller.Kind != runs.CallerSchedule ||
				!strings.HasPrefix(r.ErrorMessage, "the run did not start: ") {
				t.Errorf("%s: run %+v", name, r)
			}
			for _, w := range want {
				if !strings.Contains(r.ErrorMessage, w) {
					t.Errorf("%s: error %q lacks %q", name, r.ErrorMessage, w)
				}
			}
		}
		fs, _ := e.st.Fires(name, 0)
		if len(fs) == 0 || fs[0].RunID != l[0].ID || len(fs[0].Runs) != n {
			t.Errorf("%s: fire %+v does not link the runs", name, fs)
		}
		return l
	}
	l := check("gone", 2, "expression", "the flow does not load", "gone.flow")
	if l[0].RetryOf != l[1].ID || l[0].Flow != "gone" || l[0].Args["region"] != "north" {
		t.Errorf("the retry: %+v, the first: %+v", l[0], l[1])
	}
	check("acct", 1, "expression", `no account "portal/admin" in the vault`)
	// No key in the firing process: the error says what to set.
	t.Setenv("RPA_VAULT_PASSPHRASE", "")
	e.clock.Advance(time.Hour)
	tick(s)
	l = scheduledRuns(t, e.st, "acct")
	if len(l) != 2 || !strings.Contains(l[0].ErrorMessage, "RPA_VAULT_PASSPHRASE in the environment of the process that fires schedules") ||
		!strings.Contains(l[0].ErrorMessage, "schedule.env") {
		t.Errorf("no key: %+v", l[0])
	}
}
