package runs

import (
	"errors"
	"strings"
	"testing"
)

// TestOpenRunShow: a recorded run opens by ID and shows as text and JSON;
// a bad ID and an unknown one are told apart.
func TestOpenRunShow(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_RUNS_KEEP", "")
	t.Setenv("RPA_RUNS_MAX_MB", "")
	s, err := OpenHome(home, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := &Run{Flow: "login", Caller: Caller{Kind: CallerCLI}}
	if _, err := s.Begin(r); err != nil {
		t.Fatal(err)
	}
	s.AddStep(r.ID, Step{Index: 1, Action: "open", Line: 3, Status: "ok", SelectorIndex: -1})
	s.Finish(r.ID, Outcome{Status: StatusOK})
	s.Close()

	st, got, err := OpenRun(home, r.ID)
	if err != nil || got.Flow != "login" {
		t.Fatalf("OpenRun: %+v %v", got, err)
	}
	defer st.Close()
	var text, js strings.Builder
	if err := st.Show(&text, got, false); err != nil || !strings.Contains(text.String(), "login") || !strings.Contains(text.String(), "open") {
		t.Errorf("text: %v\n%s", err, text.String())
	}
	if err := st.Show(&js, got, true); err != nil || !strings.Contains(js.String(), `"steps"`) {
		t.Errorf("JSON: %v\n%s", err, js.String())
	}
	if _, _, err := OpenRun(home, "nope"); err == nil || !strings.Contains(err.Error(), "not a run ID") {
		t.Errorf("bad ID: %v", err)
	}
	if _, _, err := OpenRun(home, "20000101T000000000-abcd"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown ID: %v", err)
	}
}

// TestResumeRefusalIn: the refusal names a recorded run, and says when
// there is none.
func TestResumeRefusalIn(t *testing.T) {
	home := t.TempDir()
	s, err := OpenHome(home, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := &Run{Flow: "login", Caller: Caller{Kind: CallerCLI}}
	s.Begin(r)
	s.Finish(r.ID, Outcome{Status: StatusFailed, ErrorLine: 4})
	s.Close()
	if err := ResumeRefusalIn(home, r.ID); err == nil || !strings.Contains(err.Error(), "login, failed at line 4") {
		t.Errorf("recorded run: %v", err)
	}
	if err := ResumeRefusalIn(home, "20000101T000000000-abcd"); err == nil || !strings.Contains(err.Error(), "no run") {
		t.Errorf("unknown run: %v", err)
	}
}
