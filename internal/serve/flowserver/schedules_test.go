package flowserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/host/home"
	"github.com/rpa-dev/rpa/internal/host/vault"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
	"github.com/rpa-dev/rpa/internal/serve/mrtr"
	"github.com/rpa-dev/rpa/internal/serve/schedule"
)

// logLines is a slog handler that hands every message to a channel, so a
// test waits for the scheduler's line instead of sleeping.
type logLines chan string

func (l logLines) Enabled(context.Context, slog.Level) bool { return true }
func (l logLines) Handle(_ context.Context, r slog.Record) error {
	select {
	case l <- r.Message:
	default:
	}
	return nil
}
func (l logLines) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l logLines) WithGroup(string) slog.Handler      { return l }

// TestServerFiresSchedules: a serving process fires the schedules (here a
// run-now of one) in Chromium, recorded as a run of the schedule; the MCP
// resource rpa://schedules lists it, its webhook cut to the host; Close
// stops the scheduler and gives the lease up.
func TestServerFiresSchedules(t *testing.T) {
	if os.Getenv("RPA_SKIP_BROWSER") != "" {
		t.Skip("RPA_SKIP_BROWSER set")
	}
	dir := flowsDir(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Meter</title><p id="kwh">42</p>`)
	}))
	defer srv.Close()
	os.WriteFile(filepath.Join(dir, "meter.flow"), []byte("flow meter \"read the meter\"\nparam base: string\n\nopen \"{{ base }}/meter\"\nk = text \"#kwh\"\nreturn {\"kwh\": k}\n"), 0o644)
	st, err := runs.Open(home.Dir(), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now()
	d := schedule.Def{Name: "meter-am", Cron: "0 8 * * 1-5", TZ: "Asia/Shanghai", Args: map[string]string{"base": srv.URL},
		Notify: "https://hooks.example.com/services/T000/B000/SECRETPATH?token=abc"}
	if err := schedule.Prepare(&d, "meter", dir, now); err != nil {
		t.Fatal(err)
	}
	if _, err := schedule.Add(st, &d, now); err != nil {
		t.Fatal(err)
	}
	id, err := schedule.RunNow(st, "meter-am", now)
	if err != nil {
		t.Fatal(err)
	}
	lines := make(logLines, 100)
	s, err := New(Config{FlowsDir: dir, Schedules: true}, mcpserver.Options{}, slog.New(lines))
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			s.Close()
		}
	}()
	s.StartSchedules(context.Background())
	deadline := time.After(2 * time.Minute) // only catches a hang
	for done := false; !done; {
		select {
		case m := <-lines:
			done = strings.Contains(m, "schedule meter-am: run ") && (strings.HasSuffix(m, " ok") || strings.Contains(m, "failed"))
		case <-deadline:
			t.Fatal("the scheduled run did not end")
		}
	}
	f, err := st.Fire(id)
	if err != nil || f.State != runs.FireOK || f.RunID == "" {
		t.Fatalf("fire %+v %v", f, err)
	}
	r, err := st.Get(f.RunID)
	if err != nil || r.Schedule != "meter-am" || r.Caller.Kind != runs.CallerSchedule || r.Status != runs.StatusOK {
		t.Fatalf("run %+v %v", r, err)
	}

	// rpa://schedules, as an agent reads it.
	sst, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP.MCP().Connect(context.Background(), sst, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: SchedulesURI})
	if err != nil {
		t.Fatal(err)
	}
	if res.CacheScope != mrtr.CachePrivate { // it names secret-env variables and webhook hosts
		t.Errorf("rpa://schedules: cacheScope %q, want private", res.CacheScope)
	}
	text := res.Contents[0].Text
	var b schedule.Board
	if err := json.Unmarshal([]byte(text), &b); err != nil || len(b.Schedules) != 1 {
		t.Fatalf("rpa://schedules: %v\n%s", err, text)
	}
	v := b.Schedules[0]
	if v.Name != "meter-am" || v.When != "0 8 * * 1-5 (Asia/Shanghai)" || v.Next == nil || v.Last == nil || v.Last.State != runs.FireOK ||
		v.Notify != "https://hooks.example.com/…" || strings.Contains(text, "SECRETPATH") || strings.Contains(text, "abc") || !strings.Contains(b.FiredBy, "(pid ") {
		t.Fatalf("rpa://schedules: %s", text)
	}
	lr, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if lr.CacheScope != mrtr.CachePrivate { // it lists the caller's runs too
		t.Errorf("resources/list: cacheScope %q, want private", lr.CacheScope)
	}
	listed := false
	for _, r := range lr.Resources {
		listed = listed || r.URI == SchedulesURI
	}
	if !listed {
		t.Error("resources/list does not list rpa://schedules")
	}
	closed = true
	s.Close()
	if _, held, _ := st.LeaseHolder(schedule.LeaseName, time.Now()); held {
		t.Error("the lease is held after Close")
	}
}

// TestScheduleUsesOwnWarmBrowser: an agent's call on an account leaves
// the account's profile warm in the server's pool; a schedule of that
// account fired by the same server runs at once on that browser (no
// second launch, signed in already by the agent's run), instead of
// waiting, as it did, for its own process's idle browser to close.
func TestScheduleUsesOwnWarmBrowser(t *testing.T) {
	if os.Getenv("RPA_SKIP_BROWSER") != "" {
		t.Skip("RPA_SKIP_BROWSER set")
	}
	dir := flowsDir(t)
	t.Setenv(vault.EnvKeyring, "off")
	t.Setenv(vault.EnvPassphrase, "vault passphrase for the test")
	const pw = "Portal-Pw-55173"
	if err := vault.Default(home.Dir(), nil).Set("portal/admin", map[string]string{"username": "ops-1", "password": pw}, false); err != nil {
		t.Fatal(err)
	}
	var signIns atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login":
			fmt.Fprint(w, `<!doctype html><form action="/home" method="post"><input id="user" name="u"><input id="pw" name="p" type="password"><button id="go">Sign in</button></form>`)
		case "/home":
			if r.Method == http.MethodPost {
				r.ParseForm()
				if r.PostForm.Get("u") != "ops-1" || r.PostForm.Get("p") != pw {
					http.Error(w, "refused", http.StatusForbidden)
					return
				}
				signIns.Add(1)
				http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s1", Path: "/"})
			} else if c, err := r.Cookie("sid"); err != nil || c.Value != "s1" {
				http.Redirect(w, r, "/login", http.StatusFound)
				return
			}
			fmt.Fprint(w, `<!doctype html><p id="balance">42.00</p>`)
		}
	}))
	defer srv.Close()
	// Signs in only when the account's session is gone.
	os.WriteFile(filepath.Join(dir, "portal.flow"), []byte(`flow portal "read the balance as the account"
param base: string
param account: credential "the portal account"

defaults wait: 5s retries: 0

open "{{ base }}/home"
if page.exists("#user") {
  fill "#user" account.username
  fill "#pw" account.password
  click "#go"
}
b = text "#balance"
return {"balance": b}
`), 0o644)
	st, err := runs.Open(home.Dir(), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lines := make(logLines, 1000)
	s, err := New(Config{FlowsDir: dir, Schedules: true}, mcpserver.Options{}, slog.New(lines))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	// The agent's call: signs in, leaves the account's browser warm.
	sst, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP.MCP().Connect(t.Context(), sst, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "workflow_portal", Arguments: map[string]any{"base": srv.URL, "account": "portal/admin"}})
	if err != nil || res.IsError {
		t.Fatalf("the agent's call: %v %+v", err, res)
	}
	if s.Pool.Running() != 1 || signIns.Load() != 1 {
		t.Fatalf("after the agent's call: %d browsers, %d sign-ins", s.Pool.Running(), signIns.Load())
	}

	now := time.Now()
	d := schedule.Def{Name: "balance", Cron: "0 8 1 1 *", TZ: "UTC", Account: "portal/admin", Args: map[string]string{"base": srv.URL}}
	if err := schedule.Prepare(&d, "portal", dir, now); err != nil {
		t.Fatal(err)
	}
	if _, err := schedule.Add(st, &d, now); err != nil {
		t.Fatal(err)
	}
	id, err := schedule.RunNow(st, "balance", now)
	if err != nil {
		t.Fatal(err)
	}
	s.StartSchedules(t.Context())
	// The old code held the fire back BusyWait at a time until the idle
	// browser closed (10 min): the guard only catches that hang.
	deadline := time.After(time.Minute)
	for done := false; !done; {
		select {
		case m := <-lines:
			done = strings.Contains(m, "schedule balance: run ") && (strings.HasSuffix(m, " ok") || strings.Contains(m, "failed"))
		case <-deadline:
			f, _ := st.Fire(id)
			t.Fatalf("the scheduled run did not end: %+v", f)
		}
	}
	f, err := st.Fire(id)
	if err != nil || f.State != runs.FireOK {
		t.Fatalf("fire %+v %v", f, err)
	}
	r, err := st.Get(f.RunID)
	if err != nil || r.Status != runs.StatusOK || r.Schedule != "balance" {
		t.Fatalf("run %+v %v", r, err)
	}
	// One browser, the agent's: still open, and the session it signed in
	// served the schedule's run.
	if n := s.Pool.Running(); n != 1 || signIns.Load() != 1 {
		t.Errorf("after the scheduled run: %d browsers, %d sign-ins (want 1 and 1)", n, signIns.Load())
	}
}
