package ui

import (
	"testing"
)

// TestPublishDialogYAMLNote: the publish dialog of a YAML flow says, before saving, that the
// comments and layout are not kept and that the file is named after the tool name; a .flow's
// dialog has no such note.
func TestPublishDialogYAMLNote(t *testing.T) {
	yml := "# kept? no: YAML is written again\nflow: tally\ndescription: Count\nparams:\n  - {name: n, type: int, default: 2, description: How many}\nsteps:\n  - log: \"{{ n }}\"\n"
	c := newConsole(t, map[string]string{"tally.yaml": yml, "hello.flow": helloFlow})
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/flows/tally.yaml/edit?publish=1&t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	el(t, pg, "dialog", "Publish tally.yaml")
	waitText(t, pg, "This flow is YAML: publishing writes it again as canonical YAML, so its comments and its layout are not kept.")
	waitText(t, pg, "publishing under a new name saves it as NAME.yaml.")
	c.checkPage(t, pg, "publish_yaml")
	if err := pg.Navigate(step(t), c.ts.URL+"/flows/hello.flow/edit?publish=1"); err != nil {
		t.Fatal(err)
	}
	el(t, pg, "dialog", "Publish hello.flow")
	if v, err := pg.Eval(step(t), `() => document.getElementById("pub-yaml") === null`); err != nil || v != true {
		t.Errorf("a .flow's dialog has the YAML note: %v %v", v, err)
	}
}
