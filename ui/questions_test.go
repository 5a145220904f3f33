package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/hitl"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

// syncBuffer is a log writer tests read while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// uibServer is a console on an httptest server with its log kept.
func uibServer(t *testing.T, opts Options) (*Server, *httptest.Server, *syncBuffer) {
	t.Helper()
	if opts.Home == "" {
		opts.Home = t.TempDir()
	}
	if opts.FlowsDir == "" {
		opts.FlowsDir = t.TempDir()
	}
	log := &syncBuffer{}
	opts.Log = log
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		s.Questions().Close()
	})
	return s, ts, log
}

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
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	s, ts, log := uibServer(t, Options{Home: home})
	p := uibOpen(t, s, ts, "/questions")
	uibWaitText(t, p, "No question is waiting.")
	// The open page registers the console for other processes.
	if err := rodRetry(p, func() (bool, error) { return s.Questions().Registered(), nil }); err != nil {
		t.Fatal("the console never registered while its page was open")
	}

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
	uibByRole(t, p, "heading", "SMS code")
	uibWaitText(t, p, "Type the code sent to your phone")
	if title := p.MustInfo().Title; !strings.HasPrefix(title, "(1) ") {
		t.Errorf("title %q: want the count of waiting questions first", title)
	}
	uibByRole(t, p, "link", "Questions 1 waiting") // the nav badge
	uibGolden(t, "questions_page", uibStructure(t, p, uibNorm))
	uibShot(t, p, "questions")
	in := uibByRole(t, p, "textbox", "Answer (typed hidden; never stored)")
	if typ, _ := in.Attribute("type"); typ == nil || *typ != "password" {
		t.Errorf("a password question's input is not type=password: %v", typ)
	}
	in.MustInput(secret)
	uibByRole(t, p, "button", "Send").MustClick()

	uibByRole(t, p, "heading", "Your name")
	uibByRole(t, p, "textbox", "Answer").MustInput("Li Lei")
	uibByRole(t, p, "button", "Send").MustClick()

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
	uibWaitText(t, p, "No question is waiting.")

	// The secret answer is nowhere: not in the page, the console's log, the
	// registry or anything else under $RPA_HOME.
	html := p.MustHTML()
	if strings.Contains(html, secret) {
		t.Error("the page holds the secret answer")
	}
	if strings.Contains(log.String(), secret) || strings.Contains(log.String(), "Li Lei") {
		t.Errorf("the console's log holds an answer:\n%s", log.String())
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

func TestQuestionsDeclineAndFallThrough(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	s, ts, log := uibServer(t, Options{Home: home})
	// No page open: the console refuses and the native dialog is asked.
	dialog := hitl.Func{N: "desktop", F: func(context.Context, core.Question) (core.Answer, error) {
		return core.Answer{Status: core.AnswerAnswered, Text: "dialog"}, nil
	}}
	if a, err := (&hitl.Chain{Channels: []hitl.Channel{s.Questions(), dialog}}).Ask(context.Background(), core.Question{Title: "x"}); err != nil || a.Text != "dialog" {
		t.Fatalf("%+v %v", a, err)
	}
	p := uibOpen(t, s, ts, "/questions")
	if err := rodRetry(p, func() (bool, error) { return s.Questions().Watching() > 0, nil }); err != nil {
		t.Fatal("the page never followed the questions")
	}
	got := make(chan core.Answer, 1)
	go func() {
		a, _ := s.Questions().Ask(context.Background(), core.Question{Title: "Proceed?", Input: "text"})
		got <- a
	}()
	uibByRole(t, p, "heading", "Proceed?")
	uibByRole(t, p, "button", "Decline").MustClick()
	select {
	case a := <-got:
		if a.Status != core.AnswerDeclined {
			t.Fatalf("answer %+v, want declined", a)
		}
	case <-time.After(time.Minute): // only catches a hang
		t.Fatalf("no answer; console log:\n%s\npage: %s", log.String(), p.MustElement("main").MustHTML())
	}
	uibWaitText(t, p, "No question is waiting.")
}
