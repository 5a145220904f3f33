package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/demoapp"
	"github.com/rpa-dev/rpa/internal/runs"
)

// debugFlow is the reference flow pointed at app (its lines as in flows/query_power_data.flow:
// 15 click "#submit", 16 wait url, 19 rows = table, 20 if).
func debugFlow(t *testing.T, app *demoapp.Server) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "flows", "query_power_data.flow"))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(b), `"http://127.0.0.1:8080"`, `"`+app.URL+`"`, 1)
	if lines := strings.Split(src, "\n"); !strings.HasPrefix(lines[14], `click "#submit"`) || !strings.HasPrefix(lines[18], "rows = table") {
		t.Fatal("the reference flow changed: lines 15 and 19 are not the click and the table")
	}
	return src
}

// chromiumUnder lists the Chromium processes whose command line names dir (their user-data
// folder is under it).
func chromiumUnder(dir string) []string {
	var out []string
	des, _ := os.ReadDir("/proc")
	for _, de := range des {
		b, err := os.ReadFile(filepath.Join("/proc", de.Name(), "cmdline"))
		if err != nil || !bytes.Contains(b, []byte(dir)) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", de.Name(), "stat")); err == nil && bytes.Contains(st, []byte(") Z ")) {
			continue // a zombie: exited, not yet reaped
		}
		out = append(out, de.Name()+" "+strings.ReplaceAll(string(b[:min(len(b), 120)]), "\x00", " "))
	}
	return out
}

// waitShown waits until the debugger's picture of pause n has loaded in the page.
func waitShown(t *testing.T, pg drivers.Page, n int) {
	t.Helper()
	if _, _, err := pg.Locate(step(t), []string{fmt.Sprintf(`#dbg-shot[data-shown="%d"]`, n)}, drivers.Attached); err != nil {
		body, _ := pg.Text(context.Background())
		t.Fatalf("picture %d never shown: %v\n%s", n, err, body)
	}
}

// innerText is the text of the element sel of pg.
func innerText(t *testing.T, pg drivers.Page, sel string) string {
	t.Helper()
	v, err := pg.Eval(step(t), `(s) => document.querySelector(s).innerText`, sel)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := v.(string)
	return s
}

// TestConsoleDebugger drives the editor's debugger in real Chromium against the demo app: a
// breakpoint on the click line (a click on its line number), Debug with the arguments dialog,
// paused there with the variables (the password ***) and a picture of the page; Step to the next
// line (the step latency logged); a breakpoint added while running; Continue to it, the 50 rows
// in the variables; Continue to the end; the run in the store as a debug run. No Chromium of the
// run is left.
func TestConsoleDebugger(t *testing.T) {
	app, err := demoapp.Start(demoapp.Options{Password: demoPassword, Delay: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Close() })
	c := newConsole(t, map[string]string{"query_power_data.flow": debugFlow(t, app)})
	t.Setenv("RPA_HOME", c.home) // the debug run's profile and record live there (localrun)
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	if err := pg.Navigate(step(t), c.ts.URL+"/flows/query_power_data.flow/edit"); err != nil {
		t.Fatal(err)
	}
	bp, _, err := pg.Locate(step(t), []string{`#gutter span[data-line="15"]`}, drivers.Visible)
	if err != nil {
		t.Fatal(err)
	}
	if err := bp.Click(step(t), "left", 1); err != nil {
		t.Fatal(err)
	}
	el(t, pg, "button", "Remove the breakpoint at line 15")

	click(t, pg, "button", "Debug")
	el(t, pg, "dialog", "Debug query_power_data.flow: arguments")
	fill(t, pg, "textbox", "username (required)", demoapp.DemoUsername)
	fill(t, pg, "textbox", "password (required)", demoPassword)
	click(t, pg, "button", "Start debugging")
	waitText(t, pg, `Paused before line 15: click "#submit"`)
	waitShown(t, pg, 1)
	vars := innerText(t, pg, "#dbg-vars")
	if !strings.Contains(vars, "password\t\"***\"") || !strings.Contains(vars, "username\t\""+demoapp.DemoUsername+"\"") {
		t.Errorf("variables at line 15:\n%s", vars)
	}
	if len(chromiumUnder(c.home)) == 0 {
		t.Error("paused, the run has no Chromium under $RPA_HOME")
	}
	c.checkPage(t, pg, "debug_paused")

	// Step: paused before the next line, its picture shown.
	t0 := time.Now()
	click(t, pg, "button", "Step")
	waitText(t, pg, `Paused before line 16: wait`)
	waitShown(t, pg, 2)
	t.Logf("step latency (Step click → paused at line 16, picture shown): %v", time.Since(t0))

	// A breakpoint set while the run is paused; Continue runs to it.
	bp, _, err = pg.Locate(step(t), []string{`#gutter span[data-line="20"]`}, drivers.Visible)
	if err != nil {
		t.Fatal(err)
	}
	if err := bp.Click(step(t), "left", 1); err != nil {
		t.Fatal(err)
	}
	el(t, pg, "button", "Remove the breakpoint at line 20")
	click(t, pg, "button", "Continue")
	waitText(t, pg, "Paused before line 20: if")
	waitShown(t, pg, 3)
	vars = innerText(t, pg, "#dbg-vars")
	if !strings.Contains(vars, `rows	[{"date":`) || strings.Count(vars, `"date":`) != 50 {
		t.Errorf("variables at line 20 lack the 50 rows, date first:\n%.600s", vars)
	}
	if shot := c.debugPicture(t, 3); *update {
		if err := os.WriteFile(filepath.Join("testdata", "screenshots", "debug_picture.png"), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c.checkPage(t, pg, "debug_rows")

	// Per-step latency over the loop's steps (each Step waits for its picture).
	var lat []time.Duration
	for i := 0; i < 5; i++ {
		t0 := time.Now()
		click(t, pg, "button", "Step")
		waitShown(t, pg, 4+i)
		lat = append(lat, time.Since(t0))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	t.Logf("step latency over 5 steps: min %v, median %v, max %v", lat[0], lat[2], lat[4])

	click(t, pg, "button", "Continue")
	waitText(t, pg, "The run ended: ok.")
	el(t, pg, "link", "Run record")
	if left := chromiumUnder(c.home); len(left) > 0 {
		t.Errorf("Chromium left after the run ended:\n%s", strings.Join(left, "\n"))
	}

	// The run store: a debug run, said so in `rpa runs`.
	st, err := runs.OpenHome(c.home, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l, err := st.List(runs.Filter{})
	if err != nil || len(l) != 1 {
		t.Fatalf("runs %v %v", l, err)
	}
	if l[0].Caller.Kind != runs.CallerDebug || l[0].Status != runs.StatusOK {
		t.Errorf("the run: caller %q, status %q", l[0].Caller.Kind, l[0].Status)
	}
	var b strings.Builder
	if err := runs.WriteList(&b, l); err != nil || !strings.Contains(b.String(), " debug ") {
		t.Errorf("rpa runs:\n%s", b.String())
	}
	if strings.Contains(c.log.String(), demoPassword) {
		t.Error("the password reached the console's log")
	}
}

// debugPicture is the picture of pause n of the newest debug session.
func (c *console) debugPicture(t *testing.T, n int) []byte {
	t.Helper()
	d := c.newestDebug(t)
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.shots[n]
}

// TestConsoleDebuggerStops: Stop ends the run and closes its browser; so does leaving the page;
// a second Debug of a profile being debugged is refused (409, saying which); the debug routes
// refuse a request without the token.
func TestConsoleDebuggerStops(t *testing.T) {
	c := newConsole(t, map[string]string{
		"hello.flow": "flow hello \"Say hello\"\n\nopen \"data:text/html,<h1>hello</h1>\"\nlog \"hi\"\n",
		"mine.flow":  "flow mine \"On a profile\"\n\ndefaults profile: \"p1\"\n\nopen \"data:text/html,<h1>mine</h1>\"\n",
	})
	t.Setenv("RPA_HOME", c.home)
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	edit := func() {
		if err := pg.Navigate(step(t), c.ts.URL+"/flows/hello.flow/edit"); err != nil {
			t.Fatal(err)
		}
	}

	// Stop: no breakpoint, so the run pauses before its first line (no tab yet).
	edit()
	click(t, pg, "button", "Debug")
	waitText(t, pg, "Paused before line 3: open")
	waitText(t, pg, "No tab is open yet.")
	if len(chromiumUnder(c.home)) == 0 {
		t.Fatal("paused, the run has no Chromium under $RPA_HOME")
	}
	click(t, pg, "button", "Stop")
	waitText(t, pg, "The run was stopped.")
	if left := chromiumUnder(c.home); len(left) > 0 {
		t.Errorf("Chromium left after Stop:\n%s", strings.Join(left, "\n"))
	}

	// Leaving the page.
	edit()
	click(t, pg, "button", "Debug")
	waitText(t, pg, "Paused before line 3: open")
	d := c.newestDebug(t)
	if err := pg.Navigate(step(t), c.ts.URL+"/flows"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-d.ended:
	case <-step(t).Done():
		t.Fatal("the debug run did not end when its page was left")
	}
	if left := chromiumUnder(c.home); len(left) > 0 {
		t.Errorf("Chromium left after leaving the page:\n%s", strings.Join(left, "\n"))
	}

	// One debug run per profile; the token is checked as everywhere.
	post := func(path, body string, token bool) (int, string) {
		req, _ := http.NewRequest("POST", c.ts.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", c.ts.URL)
		if token {
			req.Header.Set(TokenHeader, c.ui.Token())
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&v)
		b, _ := json.Marshal(v)
		return resp.StatusCode, string(b)
	}
	if code, _ := post("/api/debug", `{"file":"mine.flow"}`, false); code != http.StatusUnauthorized {
		t.Errorf("no token: %d", code)
	}
	code, body := post("/api/debug", `{"file":"mine.flow"}`, true)
	if code != http.StatusOK {
		t.Fatalf("debug mine: %d %s", code, body)
	}
	var first struct{ ID string }
	_ = json.Unmarshal([]byte(body), &first)
	code, body = post("/api/debug", `{"file":"mine.flow"}`, true)
	if code != http.StatusConflict || !strings.Contains(body, "A debug run of profile p1 is going on (mine.flow): stop it first") {
		t.Errorf("second debug of profile p1: %d %s", code, body)
	}
	if code, body := post("/api/debug/"+first.ID+"/stop?wait=1", `{}`, true); code != http.StatusOK {
		t.Fatalf("stop: %d %s", code, body)
	}
	if left := chromiumUnder(c.home); len(left) > 0 {
		t.Errorf("Chromium left after stop:\n%s", strings.Join(left, "\n"))
	}
	if code, body := post("/api/debug", `{"file":"mine.flow"}`, true); code != http.StatusOK {
		t.Errorf("debug again once stopped: %d %s", code, body)
	}
	// Closing the console ends that one (Server.Close waits for its browser).
	c.ui.Close()
	if left := chromiumUnder(c.home); len(left) > 0 {
		t.Errorf("Chromium left after the console closed:\n%s", strings.Join(left, "\n"))
	}
}

// newestDebug is the newest debug session of the console.
func (c *console) newestDebug(t *testing.T) *debugSession {
	t.Helper()
	tb := c.ui.debugs()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	var d *debugSession
	for _, x := range tb.m {
		if d == nil || x.started.After(d.started) {
			d = x
		}
	}
	if d == nil {
		t.Fatal("no debug session")
	}
	return d
}
