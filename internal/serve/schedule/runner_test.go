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
