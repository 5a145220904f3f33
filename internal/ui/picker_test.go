package ui

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
)

// pickerFlow opens the test's page through a param default, as a new flow from the web-page
// template does (the picker works the address out of it).
func pickerFlow(base string) string {
	return "flow picked \"Query power data\"\n\nparam base_url: string = " + fmt.Sprintf("%q", base) + " \"The page\"\n\nopen \"{{base_url}}/query.html\"\n"
}

// chromiumsOn lists the Chromium main processes running on the profile folder dir (the
// Status page's browserPIDs; /proc, so Linux only).
func chromiumsOn(t *testing.T, dir string) []int {
	t.Helper()
	pids, err := browserPIDs(dir)
	if err != nil {
		t.Skipf("finding browsers: %v", err)
	}
	return pids
}

// TestPickerScreencast is the element picker without a display, driven as a person would in
// real Chromium: Pick opens the flow's page (its address from the flow's `open`) as a live
// picture in the editor; hovering the picture outlines the element under the pointer; a click
// on the picture picks the button painted there, whose test id comes first (not its generated
// id, never an XPath); inserted as a click at the editor's cursor, quoted, with the other
// selectors as its fallback list and its name as a comment; a second pick (the labelled field)
// is inserted as a fill with its selector alone; the editor checks the text clean. Closing the picker
// ends its Chromium and removes its profile.
func TestPickerScreencast(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	site := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("testdata", "picker"))))
	defer site.Close()
	c := newConsoleIn(t, home, map[string]string{"picked.flow": pickerFlow(site.URL)})
	pg := personPage(t, step(t))
	defer pg.Close()
	if err := pg.Navigate(step(t), c.ts.URL+"/flows/picked.flow/edit?t="+c.ui.Token()); err != nil {
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
	el(t, pg, "dialog", "Pick an element")
	waitText(t, pg, "Click an element on the picture.")
	pic := el(t, pg, "img", "Live picture of the page: click an element to pick it")
	// the first frame has come when the picture has a size
	if _, err := pg.Eval(step(t), `() => new Promise((ok) => { const i = document.getElementById('picker-img'); const f = () => i.naturalWidth > 0 ? ok(true) : setTimeout(f, 20); f(); })`); err != nil {
		t.Fatal(err)
	}
	if v, _ := el(t, pg, "textbox", "Page address").Value(step(t)); v != site.URL+"/query.html" {
		t.Errorf("the picker opened %q, want the flow's first open", v)
	}
	p := c.ui.pickers().cur
	if p == nil {
		t.Fatal("no picker open")
	}
	profile := p.profileDir
	if procs := chromiumsOn(t, profile); len(procs) == 0 {
		t.Fatalf("no Chromium on the picker's profile %s", profile)
	}

	// A point outside the picture is refused naming its coordinate (it was a 502 with DevTools'
	// text).
	for _, tc := range []struct{ body, want string }{
		{`{"x":-1e308,"y":1e308}`, "x: -1e+308 is outside the page's picture"},
		{`{"x":10,"y":1e308}`, "y: 1e+308 is outside the page's picture"},
		{`{"x":100000,"y":10}`, "x: 100000 is outside the page's picture (0 to "},
	} {
		for _, op := range []string{"hover", "pick"} {
			req, _ := http.NewRequestWithContext(step(t), "POST", c.ts.URL+"/api/picker/"+p.id+"/"+op, strings.NewReader(tc.body))
			req.Header.Set(TokenHeader, c.ui.Token())
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), jsonEscape(tc.want)) {
				t.Errorf("%s %s: %d %s, want 400 %s", op, tc.body, resp.StatusCode, b, tc.want)
			}
		}
	}

	// Hover: the button at the centre of the page is outlined.
	if err := pic.Hover(step(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := pg.WaitState(step(t), []string{"#picker-box"}, drivers.StateVisible); err != nil {
		t.Fatalf("no outline on hover: %v", err)
	}
	// Click: the button painted at the centre.
	if err := pic.Click(step(t), "left", 1); err != nil {
		t.Fatal(err)
	}
	waitText(t, pg, `Picked button "Query 查询".`)
	first := el(t, pg, "radio", `[data-testid="query"]`)
	if on, _ := first.Checked(step(t)); !on {
		t.Error("the best selector is not the one chosen")
	}
	body, _ := pg.Text(step(t))
	if strings.Contains(body, "react-1234") || strings.Contains(body, "xpath=/html") {
		t.Errorf("a generated id or an absolute XPath is offered:\n%s", body)
	}
	if err := el(t, pg, "combobox", "Insert as").Select(step(t), "click", ""); err != nil {
		t.Fatal(err)
	}
	c.checkPage(t, pg, "picker")
	click(t, pg, "button", "Insert at the cursor")
	waitText(t, pg, "Inserted at line 6.")

	// A second pick: the labelled field, at its place on the picture (scaled from the page's
	// viewport to the picture's box).
	v, err := p.pg.Eval(step(t), `() => { const r = document.querySelector('input[name=customer]').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2, innerWidth]; }`)
	if err != nil {
		t.Fatal(err)
	}
	at := v.([]any)
	if _, err := pg.Eval(step(t), `(x, y, vw) => { const i = document.getElementById('picker-img'), r = i.getBoundingClientRect(), k = r.width / vw;
		i.dispatchEvent(new MouseEvent('click', {bubbles: true, clientX: r.left + x * k, clientY: r.top + y * k})); return true; }`, at[0], at[1], at[2]); err != nil {
		t.Fatal(err)
	}
	waitText(t, pg, `Picked textbox "Customer 客户".`)
	el(t, pg, "radio", `input[name="customer"]`)
	if err := el(t, pg, "combobox", "Insert as").Select(step(t), "fill", ""); err != nil {
		t.Fatal(err)
	}
	click(t, pg, "checkbox", "with the other selectors as fallbacks, and the element's name as a comment") // the chosen one alone
	click(t, pg, "button", "Insert at the cursor")
	waitText(t, pg, "Inserted at line 7.")
	got, _ := text.Value(step(t))
	want := pickerFlow(site.URL) + `click ["[data-testid=\"query\"]", "aria/Query 查询[role=\"button\"]", "text=\"Query 查询\"", "button"] # button "Query 查询"` +
		"\n" + `fill "input[name=\"customer\"]" ""`
	if got != want {
		t.Errorf("editor text:\n%s\nwant:\n%s", got, want)
	}

	// Close: the picker's Chromium ends and its profile goes.
	click(t, pg, "button", "Close the picker")
	select {
	case <-p.done:
	case <-step(t).Done():
		t.Fatal("the picker did not close")
	}
	if procs := chromiumsOn(t, profile); len(procs) != 0 {
		t.Errorf("Chromium left on the picker's profile after close: %v", procs)
	}
	if _, err := os.Stat(profile); !os.IsNotExist(err) {
		t.Errorf("the picker's profile is still there: %v", err)
	}
	waitText(t, pg, "No problems.")
}

// TestPickerUnwatched: a picker whose page went away (nobody watches its picture) ends by
// itself, its Chromium with it.
func TestPickerUnwatched(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	site := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("testdata", "picker"))))
	defer site.Close()
	c := newConsoleIn(t, home, map[string]string{"picked.flow": pickerFlow(site.URL)})
	defer func(g time.Duration) { pickerGone = g }(pickerGone)
	pickerGone = 200 * time.Millisecond
	ctx := step(t)
	p, err := c.ui.openPicker(ctx, "picked.flow", site.URL+"/query.html", false)
	if err != nil {
		t.Fatal(err)
	}
	if procs := chromiumsOn(t, p.profileDir); len(procs) == 0 {
		t.Fatal("no Chromium on the picker's profile")
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		t.Fatal("an unwatched picker stayed open")
	}
	if procs := chromiumsOn(t, p.profileDir); len(procs) != 0 {
		t.Errorf("Chromium left: %v", procs)
	}
	if c.ui.pickers().cur != nil && c.ui.pickers().cur == p {
		t.Error("the closed picker is still the console's")
	}
}

// TestPickerURLChecks: the picker opens only what an `open` of a served flow may, and works the
// address out of the flow's text.
func TestPickerURLChecks(t *testing.T) {
	for src, want := range map[string]string{
		"flow a \"\"\n\nopen \"https://example.com/x\"\n":                                                         "https://example.com/x",
		"flow a \"\"\n\nparam base: string = \"http://h:1\" \"\"\n\nopen base\n":                                  "http://h:1",
		"flow a \"\"\n\nparam base: string = \"http://h:1\" \"\"\n\nopen \"{{base}}/login\"\nopen \"http://b\"\n": "http://h:1/login",
		"flow a \"\"\n\nparam base: string \"required\"\n\nopen base\n":                                           "",
		"flow a \"\"\n\nlog \"no page\"\n":                                                                        "",
	} {
		if got := firstOpenURL("a.flow", []byte(src)); got != want {
			t.Errorf("firstOpenURL(%q) = %q, want %q", src, got, want)
		}
	}
	c := newConsole(t, map[string]string{"a.flow": "flow a \"\"\n\nlog \"x\"\n"})
	for _, tc := range []struct{ url, want string }{
		{"", "The flow opens no address"},
		{"file:///etc/passwd", "file: addresses are off"},
		{"javascript:alert(1)", "is not one open loads"},
		{"http://", "has no host"},
	} {
		req, _ := http.NewRequest("POST", c.ts.URL+"/api/picker/start", strings.NewReader(fmt.Sprintf(`{"file":"a.flow","text":"flow a \"\"\n","url":%q}`, tc.url)))
		req.Header.Set(TokenHeader, c.ui.Token())
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		_, _ = fmt.Fprint(&b, resp.Status)
		buf := make([]byte, 4096)
		n, _ := resp.Body.Read(buf)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(buf[:n]), tc.want) {
			t.Errorf("%q: %s %s, want 422 with %q", tc.url, resp.Status, buf[:n], tc.want)
		}
	}
	if c.ui.pickers().cur != nil {
		t.Error("a refused address opened a picker")
	}
	// without the token, nothing opens (the console's guard)
	resp, err := http.Post(c.ts.URL+"/api/picker/start", "application/json", strings.NewReader(`{"file":"a.flow","url":"http://example.com"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %s", resp.Status)
	}
}

// TestPickerWindow is the picker with a display (here a headless browser standing in for the
// window): Pick says to click in the window; a click on the element there comes back to the
// editor as its selectors, and the next click picks again.
func TestPickerWindow(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	defer func(w func() bool, h bool) { pickerWindow, pickerHeadless = w, h }(pickerWindow, pickerHeadless)
	pickerWindow, pickerHeadless = func() bool { return true }, true
	site := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("testdata", "picker"))))
	defer site.Close()
	c := newConsoleIn(t, home, map[string]string{"picked.flow": pickerFlow(site.URL)})
	pg := personPage(t, step(t))
	defer pg.Close()
	if err := pg.Navigate(step(t), c.ts.URL+"/flows/picked.flow/edit?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	click(t, pg, "button", "Pick")
	waitText(t, pg, "The page is open in a browser window on this desktop")
	p := c.ui.pickers().cur
	if p == nil || !p.window {
		t.Fatalf("no window picker: %+v", p)
	}
	// the person clicks the element in the window (until the picker listens: a click before
	// that reaches the page, which is harmless here)
	pickIn := func(sel, want string) {
		t.Helper()
		ctx := step(t)
		for {
			e, _, err := p.pg.Locate(ctx, []string{sel}, drivers.Attached|drivers.Visible)
			if err != nil {
				t.Fatal(err)
			}
			// in inspect mode the click does not reach the page: Click may say so
			_ = e.Click(ctx, "left", 1)
			if body, _ := pg.Text(ctx); strings.Contains(body, want) {
				return
			}
			if ctx.Err() != nil {
				t.Fatalf("no pick of %s", sel)
			}
		}
	}
	pickIn("#react-1234", `Picked button "Query 查询".`)
	el(t, pg, "radio", `[data-testid="query"]`)
	pickIn("input[name=customer]", `Picked textbox "Customer 客户".`)
	el(t, pg, "radio", `input[name="customer"]`)
	click(t, pg, "button", "Close the picker")
	select {
	case <-p.done:
	case <-step(t).Done():
		t.Fatal("the picker did not close")
	}
	if procs := chromiumsOn(t, p.profileDir); len(procs) != 0 {
		t.Errorf("Chromium left: %v", procs)
	}
}
