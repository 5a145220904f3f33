package ui

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/demoapp"
	"github.com/rpa-dev/rpa/internal/runs"
)

// signInFlow signs in to app and queries; its last line (a log) is where a breakpoint stops
// with the data table on the page.
func signInFlow(app *demoapp.Server) string {
	return `flow behind "Sign in and read the data"

param username: string "Login username"
param password: secret "Login password"
param base_url: string = "` + app.URL + `" "Address of the power system"

defaults wait: 10s

open "{{ base_url }}/login"
fill "#username" username
fill "#password" password
click "#submit"
wait url: "/query"
click "text=Query"
log "signed in"
`
}

// pictureClick clicks the picker's picture (in the console page pg) where the element css of
// the picked page p is painted: its centre, scaled from the page's viewport to the picture. It
// waits for the element on the picked page and for the picture's first frame.
func pictureClick(t *testing.T, pg drivers.Page, p *picker, css string) {
	t.Helper()
	if _, err := pg.Eval(step(t), `() => new Promise((ok) => { const i = document.getElementById('picker-img'); const f = () => i.naturalWidth > 0 ? ok(true) : setTimeout(f, 20); f(); })`); err != nil {
		t.Fatal(err)
	}
	v, err := p.pg.Eval(step(t), `(css) => new Promise((ok) => { const f = () => { const e = document.querySelector(css);
		if (!e) return setTimeout(f, 20); const r = e.getBoundingClientRect(); ok([r.left + Math.min(r.width / 2, 40), r.top + Math.min(r.height / 2, 20), innerWidth]); }; f(); })`, css)
	if err != nil {
		t.Fatal(err)
	}
	at := v.([]any)
	if _, err := pg.Eval(step(t), `(x, y, vw) => { const i = document.getElementById('picker-img'), r = i.getBoundingClientRect(), k = r.width / vw;
		i.dispatchEvent(new MouseEvent('click', {bubbles: true, clientX: r.left + x * k, clientY: r.top + y * k})); return true; }`, at[0], at[1], at[2]); err != nil {
		t.Fatal(err)
	}
}

// TestPickBehindSignIn: the data table of the demo app is behind its sign-in page, which a
// picker of its own (a temporary profile) never passes. With a debug run paused after the
// flow's sign-in steps, Pick shows the debug run's own page (no browser of the picker's): a click
// on the picture picks the table, inserted as a `table` step. The pick does not disturb the run:
// no click or pointer event reaches the page, and Continue ends the run ok. A second Pick left
// open when Continue comes is ended by the server before the run goes on. The flow with the
// picked line, saved and run again, reads the table's 50 rows.
func TestPickBehindSignIn(t *testing.T) {
	app, err := demoapp.Start(demoapp.Options{Password: demoPassword, Delay: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Close() })
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	src := signInFlow(app)
	c := newConsoleIn(t, home, map[string]string{"behind.flow": src})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("console log:\n%s", c.log.String())
		}
	})
	shots := filepath.Join(t.TempDir(), "pick")
	if d := os.Getenv("RPA_TEST_ARTIFACTS"); d != "" {
		shots = filepath.Join(d, "pick")
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	var pg drivers.Page
	shot := func(name string) {
		png, err := pg.Screenshot(step(t), true)
		if err == nil {
			err = os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644)
		}
		if err != nil {
			t.Logf("screenshot %s: %v", name, err)
		}
	}
	pg = personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/flows/behind.flow/edit?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	last := strings.Count(src, "\n") // the log line
	bp, _, err := pg.Locate(step(t), []string{`#gutter span[data-line="` + strconv.Itoa(last) + `"]`}, drivers.Visible)
	if err != nil {
		t.Fatal(err)
	}
	if err := bp.Click(step(t), "left", 1); err != nil {
		t.Fatal(err)
	}
	click(t, pg, "button", "Debug")
	fill(t, pg, "textbox", "username (required)", demoapp.DemoUsername)
	fill(t, pg, "textbox", "password (required)", demoPassword)
	click(t, pg, "button", "Start debugging")
	waitText(t, pg, "Paused before line "+strconv.Itoa(last)+": log")
	d := c.newestDebug(t)
	d.mu.Lock()
	runPage := d.page
	d.mu.Unlock()
	if runPage == nil {
		t.Fatal("paused, the debug session holds no page")
	}
	// Count every pointer event that reaches the run's page from now on.
	if _, err := runPage.Eval(step(t), `() => { window.__rpaTestEvents = 0; for (const k of ["click", "mousedown", "mouseup", "pointerdown", "mousemove"]) document.addEventListener(k, () => window.__rpaTestEvents++, true); return true; }`); err != nil {
		t.Fatal(err)
	}

	// Pick on the paused run's page: the data table.
	text := el(t, pg, "textbox", "Flow text")
	if err := text.Focus(step(t)); err != nil {
		t.Fatal(err)
	}
	if err := pg.Press(step(t), "Control+End"); err != nil {
		t.Fatal(err)
	}
	click(t, pg, "button", "Pick")
	waitText(t, pg, "The debug run's page, paused before line "+strconv.Itoa(last)+": click an element on the picture.")
	p := c.ui.pickers().cur
	if p == nil || p.debug != d.id || p.br != nil || p.pg != runPage {
		t.Fatalf("the picker is not on the debug run's page: %+v", p)
	}
	pictureClick(t, pg, p, "#data-table tbody td")
	waitText(t, pg, `Picked cell "2026-06-01".`)
	// A cell is what a click finds; as a table step the table around it is inserted.
	if err := el(t, pg, "combobox", "Insert as").Select(step(t), "table", ""); err != nil {
		t.Fatal(err)
	}
	waitText(t, pg, "As a table: the table around it, table")
	// The outline is the table's (it stayed on the cell), scaled to the picture.
	tr, err := runPage.Eval(step(t), `() => { const r = document.querySelector('#data-table').getBoundingClientRect(); return [r.left, r.top, r.width, r.height, innerWidth]; }`)
	if err != nil {
		t.Fatal(err)
	}
	ob, err := pg.Eval(step(t), `() => { const i = document.getElementById('picker-img'), b = document.getElementById('picker-box'), k = i.clientWidth;
		return [b.hidden, parseFloat(b.style.left), parseFloat(b.style.top), parseFloat(b.style.width), parseFloat(b.style.height), k]; }`)
	if err != nil {
		t.Fatal(err)
	}
	tw, ow := tr.([]any), ob.([]any)
	k := ow[5].(float64) / tw[4].(float64)
	for i, name := range []string{"left", "top", "width", "height"} {
		if w, g := tw[i].(float64)*k, ow[i+1].(float64); ow[0] == true || g < w-1.5 || g > w+1.5 {
			t.Errorf("the outline's %s is %.1f (hidden %v), want the table's %.1f", name, g, ow[0], w)
		}
	}
	first := el(t, pg, "radio", "#data-table")
	if on, _ := first.Checked(step(t)); !on {
		t.Errorf("the table's best selector is not the one chosen:\n%s", innerText(t, pg, "#picker-sels"))
	}
	shot("pick_on_debug_page")
	click(t, pg, "checkbox", "with the other selectors as fallbacks, and the element's name as a comment") // the chosen one alone
	click(t, pg, "button", "Insert at the cursor")
	waitText(t, pg, "Inserted at line")
	click(t, pg, "button", "Close the picker")
	select {
	case <-p.done:
	case <-step(t).Done():
		t.Fatal("the picker did not close")
	}
	got, _ := text.Value(step(t))
	if !strings.HasSuffix(got, "log \"signed in\"\nrows = table \"#data-table\"") {
		t.Fatalf("the editor's text after the pick:\n%s", got)
	}
	if v, err := runPage.Eval(step(t), `() => [window.__rpaTestEvents, document.querySelectorAll('[data-rpa-mask]').length]`); err != nil || v.([]any)[0] != float64(0) || v.([]any)[1] != float64(0) {
		t.Errorf("after the pick the run's page saw [pointer events, masks left] = %v (%v), want none", v, err)
	}

	// A second Pick left open: Continue ends it before the run goes on, and the run ends ok.
	click(t, pg, "button", "Pick")
	waitText(t, pg, "The debug run's page, paused before line")
	p2 := c.ui.pickers().cur
	if p2 == nil || p2.debug != d.id {
		t.Fatal("no second picker on the debug run's page")
	}
	if code, v := api(t, c.ts.URL, c.ui.Token(), "/api/debug/"+d.id+"/continue", map[string]any{}); code != http.StatusOK {
		t.Fatalf("continue: %d %v", code, v)
	}
	select {
	case <-p2.done:
	case <-step(t).Done():
		t.Fatal("Continue did not end the picker on the run's page")
	}
	waitText(t, pg, "The picker closed.")
	click(t, pg, "button", "Close the picker")
	waitText(t, pg, "The run ended: ok.")
	if code, v := api(t, c.ts.URL, c.ui.Token(), "/api/picker/start", map[string]any{"file": "behind.flow", "debug": d.id}); code != http.StatusConflict {
		t.Errorf("a pick on an ended debug run: %d %v, want 409", code, v)
	}

	// The picked line works: saved with a return, run (Debug without breakpoints stops at the
	// first line; Continue), the run's outputs hold the table's 50 rows.
	final := got + "\nreturn { \"count\": len(rows), \"first\": rows[0].date }\n"
	if err := text.Fill(step(t), final); err != nil {
		t.Fatal(err)
	}
	waitText(t, pg, "No problems.")
	click(t, pg, "button", "Save")
	waitText(t, pg, "Saved as a draft.") // not "Saved": the engine's text match ignores case, and "Unsaved changes" holds it
	click(t, pg, "button", "Remove the breakpoint at line "+strconv.Itoa(last))
	click(t, pg, "button", "Debug")
	fill(t, pg, "textbox", "username (required)", demoapp.DemoUsername)
	fill(t, pg, "textbox", "password (required)", demoPassword)
	click(t, pg, "button", "Start debugging")
	waitText(t, pg, "Paused before line")
	click(t, pg, "button", "Continue")
	waitText(t, pg, "The run ended: ok.")
	shot("picked_line_ran")
	d2 := c.newestDebug(t)
	d2.mu.Lock()
	runID := d2.events[len(d2.events)-1].RunID
	d2.mu.Unlock()
	st, err := runs.OpenHome(home, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	o, err := st.Outputs(runID)
	if err != nil || o == nil {
		t.Fatalf("the run's outputs: %v %v", o, err)
	}
	var out struct {
		Count int    `json:"count"`
		First string `json:"first"`
	}
	if err := json.Unmarshal(o.JSON, &out); err != nil || out.Count != 50 || out.First != "2026-06-01" {
		t.Errorf("the run's outputs %s (%v): want 50 rows from 2026-06-01", o.JSON, err)
	}
	if strings.Contains(c.log.String(), demoPassword) {
		t.Error("the password reached the console's log")
	}
}

// TestPickerInFrame: a click on the picture over a button inside an iframe of another origin
// picks the button, not the iframe (the launched Chromium keeps such frames in its renderer);
// the dialog says which frame it is in, and the inserted click goes inside a `frame` statement of
// the iframe's best selector (LANGUAGE.md), which a run of the flow replays: the click reaches
// the button (the frame's page tells the top page, which shows "paid").
func TestPickerInFrame(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(`<!doctype html><meta charset="utf-8"><body style="margin:0">` + body + `</body>`))
		}
	}
	card := httptest.NewServer(page(`<button data-testid="pay" style="margin:40px;width:200px;height:60px" onclick="parent.postMessage('paid', '*')">Pay 支付</button>`))
	defer card.Close()
	shop := httptest.NewServer(page(`<h1 id="state" style="height:80px;margin:0">Shop</h1><iframe name="card" title="Card" src="` +
		strings.Replace(card.URL, "127.0.0.1", "localhost", 1) + `" style="width:400px;height:200px;border:2px solid #000"></iframe>
		<script>addEventListener("message", (e) => { document.getElementById("state").textContent = e.data; });</script>`))
	defer shop.Close()
	src := "flow framed \"Pay in the card frame\"\n\nparam base_url: string = \"" + shop.URL + "\" \"The shop\"\n\nopen \"{{base_url}}/\"\n"
	c := newConsoleIn(t, home, map[string]string{"framed.flow": src})
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/flows/framed.flow/edit?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	text := el(t, pg, "textbox", "Flow text")
	if err := text.Focus(step(t)); err != nil {
		t.Fatal(err)
	}
	if err := pg.Press(step(t), "Control+End"); err != nil {
		t.Fatal(err)
	}
	click(t, pg, "button", "Pick")
	waitText(t, pg, "Click an element on the picture.")
	p := c.ui.pickers().cur
	if p == nil {
		t.Fatal("no picker open")
	}
	// The button's centre in the top viewport: the iframe's content box plus the button's box.
	fr, err := p.pg.Frame(step(t), []string{"iframe"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := fr.Eval(step(t), `() => new Promise((ok) => { const f = () => { const b = document.querySelector("button"); if (!b) return setTimeout(f, 20); const r = b.getBoundingClientRect(); ok([r.left + r.width / 2, r.top + r.height / 2]); }; f(); })`)
	if err != nil {
		t.Fatal(err)
	}
	at := v.([]any)
	x, y := 2+at[0].(float64), 80+2+at[1].(float64)
	if _, err := pg.Eval(step(t), `() => new Promise((ok) => { const i = document.getElementById('picker-img'); const f = () => i.naturalWidth > 0 ? ok(true) : setTimeout(f, 20); f(); })`); err != nil {
		t.Fatal(err)
	}
	vw, _ := p.pg.Eval(step(t), `() => innerWidth`)
	if _, err := pg.Eval(step(t), `(x, y, vw) => { const i = document.getElementById('picker-img'), r = i.getBoundingClientRect(), k = r.width / vw;
		i.dispatchEvent(new MouseEvent('click', {bubbles: true, clientX: r.left + x * k, clientY: r.top + y * k})); return true; }`, x, y, vw); err != nil {
		t.Fatal(err)
	}
	waitText(t, pg, `Picked button "Pay 支付".`)
	waitText(t, pg, `The element is inside an iframe: iframe[name="card"]`)
	if err := el(t, pg, "combobox", "Insert as").Select(step(t), "click", ""); err != nil {
		t.Fatal(err)
	}
	click(t, pg, "checkbox", "with the other selectors as fallbacks, and the element's name as a comment")
	click(t, pg, "button", "Insert at the cursor")
	waitText(t, pg, "Inserted at line 6.")
	click(t, pg, "button", "Close the picker")
	got, _ := text.Value(step(t))
	want := src + "frame \"iframe[name=\\\"card\\\"]\" {\n    click \"[data-testid=\\\"pay\\\"]\"\n}"
	if got != want {
		t.Fatalf("editor text:\n%s\nwant:\n%s", got, want)
	}

	// The inserted lines replay: saved, run (Debug, Continue), the click reached the button.
	if err := text.Fill(step(t), got+"\nwait text: \"paid\"\n"); err != nil {
		t.Fatal(err)
	}
	waitText(t, pg, "No problems.")
	click(t, pg, "button", "Save")
	waitText(t, pg, "Saved as a draft.") // not "Saved": the engine's text match ignores case, and "Unsaved changes" holds it
	// Debug comes disabled until its script ran (a slow page): wait for it to be enabled, as a
	// flow's click does, or the click goes to a disabled button the browser ignores.
	dbg, _, err := pg.Locate(step(t), []string{`aria/Debug[role="button"]`}, drivers.ForPointer)
	if err != nil {
		t.Fatal(err)
	}
	if err := dbg.Click(step(t), "left", 1); err != nil {
		t.Fatal(err)
	}
	click(t, pg, "button", "Start debugging")
	waitText(t, pg, "Paused before line")
	click(t, pg, "button", "Continue")
	waitText(t, pg, "The run ended: ok.")
}
