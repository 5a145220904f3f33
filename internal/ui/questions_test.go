package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

const askFlow = `flow verify "Asks a person twice"
code = ask "SMS code" message: "Type the code sent to your phone" input: "password" timeout: 2m
assert code == "739-SMS-4821", "the code did not arrive"
name = ask "Your name" timeout: 2m
return { "name": name, "code": code }
`

// TestUIBAskHelperProcess is the second process of TestQuestionsAnsweredInConsole:
// it runs askFlow with the desktop channel of any rpa host (the console
// first, then the native dialog, which has no display here) and prints the
// result as JSON.
func TestUIBAskHelperProcess(t *testing.T) {
	if os.Getenv("RPA_UIB_ASK") != "1" {
		t.Skip("the helper process of TestQuestionsAnsweredInConsole")
	}
	f, ds := lang.Load("verify.flow", []byte(askFlow))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	cfg := &hitl.Config{Order: []string{hitl.ChannelDesktop}, Desktop: &hitl.Desktop{}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, _ := interp.Run(ctx, f, interp.Options{Host: core.Host{Ask: cfg.Chain(nil).Ask}})
	b, _ := json.Marshal(res)
	fmt.Printf("RESULT %s\n", b)
}

func TestQuestionsAnsweredInConsole(t *testing.T) {
	c := newConsole(t, nil)
	home := c.home
	t.Setenv("RPA_HOME", home)
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	s := c.ui
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/questions?t="+s.Token()); err != nil {
		t.Fatal(err)
	}
	waitText(t, pg, "No question is waiting.")
	// The open page registers the console for other processes.
	waitFor(t, "the console registered while its page is open", func() bool { return s.Questions().Registered() })

	// A run in another process asks.
	cmd := exec.Command(os.Args[0], "-test.run=^TestUIBAskHelperProcess$", "-test.v")
	cmd.Env = append(os.Environ(), "RPA_UIB_ASK=1", "RPA_HOME="+home, "DISPLAY=", "WAYLAND_DISPLAY=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-done
		}
	}()

	const secret = "739-SMS-4821"
	el(t, pg, "heading", "SMS code")
	waitText(t, pg, "Type the code sent to your phone")
	if title, _ := pg.Title(step(t)); !strings.HasPrefix(title, "(1) ") {
		t.Errorf("title %q: want the count of waiting questions first", title)
	}
	el(t, pg, "link", "Questions 1 waiting") // the nav badge
	uibCheck(t, c, pg, "questions")
	fill(t, pg, "textbox", "Answer (typed hidden; never stored)", secret)
	click(t, pg, "button", "Send")

	el(t, pg, "heading", "Your name")
	fill(t, pg, "textbox", "Answer", "Li Lei")
	click(t, pg, "button", "Send")

	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("helper: %v\n%s\n%s", err, out.String(), errb.String())
		}
	case <-time.After(2 * time.Minute): // only catches a hang
		t.Fatalf("the run never finished:\n%s\n%s", out.String(), errb.String())
	}
	_, line, ok := strings.Cut(out.String(), "RESULT ")
	if !ok {
		t.Fatalf("no result:\n%s\n%s", out.String(), errb.String())
	}
	line, _, _ = strings.Cut(line, "\n")
	var res struct {
		Success bool
		Outputs map[string]any
	}
	if err := json.Unmarshal([]byte(line), &res); err != nil {
		t.Fatal(err)
	}
	if !res.Success || res.Outputs["name"] != "Li Lei" || res.Outputs["code"] != "***" {
		t.Fatalf("result %s", line)
	}
	waitText(t, pg, "No question is waiting.")

	// The secret answer is nowhere: not in the page, the console's log, the
	// registry or anything else under $RPA_HOME.
	if html := c.get(t, "/questions"); strings.Contains(html, secret) {
		t.Error("the page holds the secret answer")
	}
	if txt, _ := pg.Text(step(t)); strings.Contains(txt, secret) {
		t.Error("the page shows the secret answer")
	}
	if strings.Contains(c.log.String(), secret) || strings.Contains(c.log.String(), "Li Lei") {
		t.Errorf("the console's log holds an answer:\n%s", c.log.String())
	}
	filepath.Walk(home, func(path string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds the secret answer", path)
			}
		}
		return nil
	})
}

// waitFor polls cond until it holds (a 30 s bound only catches a hang).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); !cond(); {
		if time.Now().After(end) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestQuestionsDeclineAndFallThrough(t *testing.T) {
	c := newConsole(t, nil)
	t.Setenv("RPA_HOME", c.home)
	s := c.ui
	// No page open: the console refuses and the native dialog is asked.
	dialog := hitl.Func{N: "desktop", F: func(context.Context, core.Question) (core.Answer, error) {
		return core.Answer{Status: core.AnswerAnswered, Text: "dialog"}, nil
	}}
	if a, err := (&hitl.Chain{Channels: []hitl.Channel{s.Questions(), dialog}}).Ask(context.Background(), core.Question{Title: "x"}); err != nil || a.Text != "dialog" {
		t.Fatalf("%+v %v", a, err)
	}
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/questions?t="+s.Token()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the page follows the questions", func() bool { return s.Questions().Watching() > 0 })
	// A notification spy where the browser would show one (headless Chromium
	// denies the permission).
	if _, err := pg.Eval(step(t), `() => {
		window.__notes = [];
		window.Notification = class { constructor(title, o) { window.__notes.push(title + " | " + (o && o.body || "")); } };
		window.Notification.permission = "granted";
	}`); err != nil {
		t.Fatal(err)
	}
	got := make(chan core.Answer, 1)
	go func() {
		a, _ := s.Questions().Ask(context.Background(), core.Question{Title: "Proceed?", Message: "the export is large", Input: "text"})
		got <- a
	}()
	el(t, pg, "heading", "Proceed?")
	notes, err := pg.Eval(step(t), `() => window.__notes.join("\n")`)
	if err != nil || notes != "rpa is asking: Proceed? | the export is large" {
		t.Errorf("desktop notifications: %q %v", notes, err)
	}
	click(t, pg, "button", "Decline")
	select {
	case a := <-got:
		if a.Status != core.AnswerDeclined {
			t.Fatalf("answer %+v, want declined", a)
		}
	case <-time.After(time.Minute): // only catches a hang
		t.Fatalf("no answer; console log:\n%s", c.log.String())
	}
	waitText(t, pg, "No question is waiting.")
}

// TestQuestionConsoleRunToReport: a flow the console itself runs asks for a
// password; the question comes to the Questions page (the console's own
// mcpserver asks through the same registry), is answered there, the run
// ends with it, and its record, its page and its report never hold it.
func TestQuestionConsoleRunToReport(t *testing.T) {
	const secret = "pin-5521-secret"
	c := newConsole(t, map[string]string{"verify.flow": `flow verify "Asks for a PIN"
pin = ask "Your PIN" input: "password" timeout: 2m
assert pin == "` + secret + `", "wrong PIN"
log "PIN accepted"
return { "ok": true }
`})
	t.Setenv("RPA_HOME", c.home)
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/questions?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the console registered while its page is open", func() bool { return c.ui.Questions().Registered() })
	lr, err := c.ui.StartRun("verify", map[string]any{}, "")
	if err != nil {
		t.Fatal(err)
	}
	el(t, pg, "heading", "Your PIN")
	// The card names the flow, the run and the caller, not the process.
	waitText(t, pg, "flow verify · run ")
	from, err := pg.Eval(step(t), `() => document.querySelector(".question .q-from").textContent`)
	if err != nil {
		t.Fatal(err)
	}
	fill(t, pg, "textbox", "Answer (typed hidden; never stored)", secret)
	click(t, pg, "button", "Send")
	waitFor(t, "the run ended", func() bool { return lr.Outcome() != nil })
	out := lr.Outcome()
	if !out.Success || out.RunID == "" {
		t.Fatalf("outcome %+v", out)
	}
	if want := "flow verify · run " + out.RunID + " · called by mcp rpa-console"; from != want {
		t.Errorf("the card says it is from %q, want %q", from, want)
	}
	for _, path := range []string{"/runs", "/runs/" + out.RunID, "/runs/" + out.RunID + "/report", "/questions"} {
		if html := c.get(t, path); strings.Contains(html, secret) {
			t.Errorf("%s holds the secret answer", path)
		} else if path == "/runs/"+out.RunID+"/report" && !strings.Contains(html, "verify") {
			t.Errorf("the report does not name the flow:\n%.400s", html)
		}
	}
	if strings.Contains(c.log.String(), secret) {
		t.Error("the console's log holds the secret answer")
	}
	filepath.Walk(c.home, func(path string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(secret)) && !strings.HasSuffix(path, "verify.flow") {
				t.Errorf("%s holds the secret answer", path)
			}
		}
		return nil
	})
}

func TestCloseQuestionsUnregisters(t *testing.T) {
	home := t.TempDir()
	s, err := New(Options{Home: home, FlowsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	b := s.Questions()
	_, stop, err := b.Watch()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if _, err := s.runStore(); err != nil {
		t.Fatal(err)
	}
	if !b.Registered() {
		t.Fatal("not registered while watched")
	}
	s.closeQuestions()
	if b.Registered() {
		t.Fatal("still registered after closeQuestions")
	}
	if _, err := (&hitl.Console{Home: home}).Ask(context.Background(), core.Question{Title: "x"}); !errors.Is(err, hitl.ErrUnavailable) {
		t.Fatalf("a closed console still takes questions: %v", err)
	}
}

// TestQuestionsKeepTypedAnswers: with two questions waiting, answering one
// leaves what is typed in the other in place (the list is updated, not
// redrawn).
func TestQuestionsKeepTypedAnswers(t *testing.T) {
	c := newConsole(t, nil)
	t.Setenv("RPA_HOME", c.home)
	s := c.ui
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/questions?t="+s.Token()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the page follows the questions", func() bool { return s.Questions().Watching() > 0 })
	got := make(chan core.Answer, 2)
	for _, title := range []string{"First", "Second"} {
		title := title
		go func() {
			a, _ := s.Questions().Ask(context.Background(), core.Question{Title: title, Input: "text"})
			got <- a
		}()
		el(t, pg, "heading", title)
	}
	var second string
	for _, p := range s.Questions().Pending() {
		if p.Title == "Second" {
			second = p.ID
		}
	}
	in2, _, err := pg.Locate(step(t), []string{"#q-" + second + "-answer"}, drivers.Attached|drivers.Visible)
	if err != nil {
		t.Fatal(err)
	}
	if err := in2.Fill(step(t), "half typed"); err != nil {
		t.Fatal(err)
	}
	first, _, err := pg.Locate(step(t), []string{"article:first-of-type input[name=answer]"}, drivers.Attached|drivers.Visible)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Fill(step(t), "one"); err != nil {
		t.Fatal(err)
	}
	send, _, err := pg.Locate(step(t), []string{"article:first-of-type button[value=send]"}, drivers.Attached|drivers.Visible)
	if err != nil {
		t.Fatal(err)
	}
	if err := send.Click(step(t), "left", 1); err != nil {
		t.Fatal(err)
	}
	if a := <-got; a.Text != "one" {
		t.Fatalf("answer %+v", a)
	}
	waitFor(t, "one question left", func() bool { return len(s.Questions().Pending()) == 1 })
	if v, _ := in2.Value(step(t)); v != "half typed" {
		t.Errorf("the second answer's field holds %q after the first was answered", v)
	}
	waitFor(t, "the title counts one question", func() bool {
		title, _ := pg.Title(step(t))
		return strings.HasPrefix(title, "(1) ")
	})
	s.Questions().Answer(second, core.Answer{Status: core.AnswerDeclined})
	<-got
}
