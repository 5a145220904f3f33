package heal_test

import (
	"os"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/runs/heal"
	"github.com/rpa-dev/rpa/lang"
)

// TestSignedOutBlamesNoSelector, issue 22's heal case: after a good run
// of form.flow, a run whose address shows a sign-in page (its username
// field a fine look-alike of #customer) fails at the first fill with the
// page's reason, acts on nothing, and heal neither looks for candidates
// (auto would have filled the username) nor blames a selector: the step
// says why, its mark says sign_in, `rpa heal` proposes nothing for it and
// notes the sign-in page instead.
func TestSignedOutBlamesNoSelector(t *testing.T) {
	needBrowser(t)
	f := loadFlow(t, "../../../testdata/heal/form.flow")
	store := openStore(t)
	if o := runFlow(t, f, map[string]any{"url": srv.URL + "/form.html"}, heal.Auto, store, core.Host{}); !o.res.Success {
		t.Fatalf("base run: %+v%s", o.res.Error, stepsOf(o.res))
	}
	o := runFlow(t, f, map[string]any{"url": srv.URL + "/m11-signed-out.html"}, heal.Auto, store, core.Host{})
	if o.res.Success || len(o.log) != 0 {
		t.Fatalf("success %v, acted on %v%s", o.res.Success, o.log, stepsOf(o.res))
	}
	e := o.res.Error
	if e.Line != 5 || e.Kind != core.KindNotFound || !strings.Contains(e.Message, `fill: no element matches "#customer": the page is a sign-in page: it asks for a password and says "You are not logged in. Please sign in to continue."`) {
		t.Fatalf("error %+v", e)
	}
	if st := drivers.StateOf(e); st == nil || st.Kind != drivers.PageSignIn {
		t.Errorf("state %+v", st)
	}
	step := o.res.Results[len(o.res.Results)-1]
	if step.Heal == nil || step.Heal.Status != "refused" || len(step.Heal.Candidates) != 0 || !strings.Contains(step.Heal.Reason, "no candidates looked for: the page is a sign-in page") {
		t.Errorf("step heal %+v", step.Heal)
	}
	marks, err := store.Marks("heal_form", 0)
	if err != nil {
		t.Fatal(err)
	}
	var page string
	for _, m := range marks {
		if m.Line == 5 && m.Run == "" && m.Page != "" {
			page = m.Page
		}
	}
	if page != drivers.PageSignIn {
		t.Errorf("no sign_in mark for line 5 in %+v", marks)
	}
	src, err := os.ReadFile("../../../testdata/heal/form.flow")
	if err != nil {
		t.Fatal(err)
	}
	file, _ := lang.Parse("form.flow", src)
	for _, p := range heal.Propose(file, marks, 0) {
		if p.Line == 5 {
			t.Errorf("blamed line 5's selector: %+v", p)
		}
	}
	notes := heal.Notes(file, marks, 0)
	if len(notes) != 1 || notes[0].Line != 5 || !strings.Contains(notes[0].Text, "a sign-in page (1)") {
		t.Errorf("notes %+v", notes)
	}
}
