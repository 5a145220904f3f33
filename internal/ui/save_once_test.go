package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEditorCtrlSTwiceSavesOnce: typing and pressing Ctrl-S twice at once
// (the second while the first save is in flight, within the check's 300 ms
// debounce) sends one save: no 409 conflict from a second save carrying the
// old hash, the draft holds the typed text, and the page says it was saved
// (the tester saw a 409 flash and vanish; the editor sends one save at a time).
func TestEditorCtrlSTwiceSavesOnce(t *testing.T) {
	c := newConsole(t, map[string]string{"hello.flow": crawlHello})
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/flows/hello.flow/edit?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	text := el(t, pg, "textbox", "Flow text")
	if err := text.Focus(step(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := pg.Eval(step(t), `() => { const t = document.getElementById("text"); t.setSelectionRange(t.value.length, t.value.length) }`); err != nil {
		t.Fatal(err)
	}
	if err := text.Type(step(t), "log \"typed\"\n", 0); err != nil {
		t.Fatal(err)
	}
	// Two Ctrl-S in one task: the second comes while the first save's request is in flight.
	if _, err := pg.Eval(step(t), `() => { const t = document.getElementById("text"); for (let i = 0; i < 2; i++) t.dispatchEvent(new KeyboardEvent("keydown", {key: "s", ctrlKey: true, bubbles: true, cancelable: true})) }`); err != nil {
		t.Fatal(err)
	}
	if err := pg.WaitURL(step(t), "saved=1"); err != nil {
		t.Fatal(err)
	}
	waitText(t, pg, "Saved as a draft.")
	saves := 0
	for _, l := range strings.Split(c.log.String(), "\n") {
		if strings.HasPrefix(l, "ui: POST /api/save ") {
			saves++
			if !strings.HasPrefix(l, "ui: POST /api/save 200 ") {
				t.Errorf("a save was refused: %s", l)
			}
		}
	}
	if saves != 1 {
		t.Errorf("%d saves sent, want 1:\n%s", saves, c.log.String())
	}
	if b, _ := os.ReadFile(filepath.Join(c.dir, ".drafts", "hello.flow")); !strings.Contains(string(b), `log "typed"`) {
		t.Errorf("the draft:\n%s", b)
	}
	if n, err := pg.Count(step(t), `#status[role="alert"]`); err != nil || n != 0 {
		t.Errorf("the page shows an error (%d, %v)", n, err)
	}
}
