package ui

import (
	"testing"
)

// TestQuestionWhileOnAnotherPage: the console takes questions while any of
// its pages is open (the layout loads questions.js), not only the Questions
// page: a flow run from the console while the person looks at the Flows
// page asks there, and is answered on the Questions page.
func TestQuestionWhileOnAnotherPage(t *testing.T) {
	c := newConsole(t, map[string]string{"greet.flow": `flow greet "Asks for a name"
name = ask "Your name"
return { "name": name }
`})
	t.Setenv("RPA_HOME", c.home)
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the console registered while the Flows page is open", func() bool { return c.ui.Questions().Registered() })
	lr, err := c.ui.StartRun("greet", map[string]any{}, "")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the question reached the console", func() bool { return len(c.ui.Questions().Pending()) == 1 })
	if err := pg.Navigate(step(t), c.ts.URL+"/questions"); err != nil {
		t.Fatal(err)
	}
	el(t, pg, "heading", "Your name")
	fill(t, pg, "textbox", "Answer", "Ada")
	click(t, pg, "button", "Send")
	waitFor(t, "the run ended", func() bool { return lr.Outcome() != nil })
	if out := lr.Outcome(); !out.Success {
		t.Fatalf("outcome %+v", out)
	}
}
