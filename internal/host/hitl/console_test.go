package hitl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/host/localctl"
	"github.com/rpa-dev/rpa/internal/msg"
)

// openConsole starts a broker registered in a fresh $RPA_HOME.
func openConsole(t *testing.T) (*Broker, string) {
	t.Helper()
	home := t.TempDir()
	b := NewBroker()
	if err := b.Listen(home, "rpa ui (test)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, home
}

// answerNext answers the next question that appears in b with a.
func answerNext(t *testing.T, b *Broker, a core.Answer) (got chan Pending) {
	ch, stop, _ := b.Watch()
	got = make(chan Pending, 1)
	go func() {
		defer stop()
		for range ch {
			if p := b.Pending(); len(p) > 0 {
				got <- p[0]
				if err := b.Answer(p[0].ID, a); err != nil {
					t.Error(err)
				}
				return
			}
		}
	}()
	return got
}

func TestConsoleAnswersAcrossLoopback(t *testing.T) {
	for _, tc := range []struct {
		input string
		a     core.Answer
	}{
		{"text", core.Answer{Status: core.AnswerAnswered, Text: "forty-two"}},
		{"password", core.Answer{Status: core.AnswerAnswered, Text: "s3cr3t-sms-code"}},
		{"text", core.Answer{Status: core.AnswerDeclined, Text: "ignored"}},
	} {
		b, home := openConsole(t)
		seen := answerNext(t, b, tc.a)
		c := &Console{Home: home, From: "rpa serve (pid 1)"}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		ans, err := c.Ask(ctx, core.Question{Title: "Code?", Message: "sent by SMS", Input: tc.input})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		want := tc.a
		if want.Status != core.AnswerAnswered {
			want.Text = ""
		}
		if ans != want {
			t.Errorf("%s: got %+v, want %+v", tc.input, ans, want)
		}
		p := <-seen
		if p.Title != "Code?" || p.Message != "sent by SMS" || p.Input != tc.input || p.From != "rpa serve (pid 1)" || p.Deadline.IsZero() {
			t.Errorf("pending question %+v", p)
		}
		if len(b.Pending()) != 0 {
			t.Errorf("still pending after the answer: %+v", b.Pending())
		}
		// The answer is nowhere in the registry.
		ents, _ := os.ReadDir(localctl.Dir(home))
		for _, e := range ents {
			raw, _ := os.ReadFile(filepath.Join(localctl.Dir(home), e.Name()))
			if tc.a.Text != "" && strings.Contains(string(raw), tc.a.Text) {
				t.Errorf("the answer is in %s", e.Name())
			}
		}
	}
}

func TestConsoleUnavailableFallsThrough(t *testing.T) {
	next := Func{N: ChannelDesktop, F: func(context.Context, core.Question) (core.Answer, error) {
		return core.Answer{Status: core.AnswerAnswered, Text: "from the dialog"}, nil
	}}
	ask := func(home string) (core.Answer, error) {
		ch := &consoleThen{console: &Console{Home: home}, next: next}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return ch.Ask(ctx, core.Question{Title: "Name?", Input: "text"})
	}
	// No console registered.
	if a, err := ask(t.TempDir()); err != nil || a.Text != "from the dialog" {
		t.Errorf("no console: %+v %v", a, err)
	}
	// A console with no page open refuses.
	_, home := openConsole(t)
	if a, err := ask(home); err != nil || a.Text != "from the dialog" {
		t.Errorf("no page: %+v %v", a, err)
	}
	// A registered console that is not reachable (its port closed).
	home2 := t.TempDir()
	reg, err := localctl.Register(home2, localctl.Entry{Kind: localctl.KindConsole, Addr: "127.0.0.1:1", Token: "x"})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	if a, err := ask(home2); err != nil || a.Text != "from the dialog" {
		t.Errorf("unreachable: %+v %v", a, err)
	}
	// Every channel unavailable: the reasons of both.
	ch := &consoleThen{console: &Console{Home: t.TempDir()}, next: Func{N: "desktop", F: func(context.Context, core.Question) (core.Answer, error) {
		return core.Answer{}, Unavailable("no display")
	}}}
	_, err = ch.Ask(context.Background(), core.Question{Title: "x"})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no console is open") || !strings.Contains(err.Error(), "no display") {
		t.Errorf("err = %v", err)
	}
}

func TestConsoleWithdrawnAtTimeout(t *testing.T) {
	b, home := openConsole(t)
	ch, stop, _ := b.Watch()
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := (&Console{Home: home}).Ask(ctx, core.Question{Title: "Wait", Input: "text"})
		done <- err
	}()
	for range ch {
		if len(b.Pending()) == 1 {
			break
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	for len(b.Pending()) != 0 {
		<-ch // the broker sees the request end
	}
}

func TestConsoleClosedWhileAsking(t *testing.T) {
	b, home := openConsole(t)
	ch, stop, _ := b.Watch()
	defer stop()
	done := make(chan error, 1)
	go func() {
		_, err := (&Console{Home: home}).Ask(context.Background(), core.Question{Title: "Wait", Input: "text"})
		done <- err
	}()
	for range ch {
		if len(b.Pending()) == 1 {
			break
		}
	}
	b.Close()
	if err := <-done; !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want unavailable (the next channel asks)", err)
	}
	if l, _ := localctl.List(home, ""); len(l) != 0 {
		t.Errorf("still registered after Close: %+v", l)
	}
}

func TestConsoleRefusesForeignRequests(t *testing.T) {
	b, home := openConsole(t)
	_, stop, _ := b.Watch()
	defer stop()
	ents, _ := localctl.List(home, localctl.KindConsole)
	if len(ents) != 1 {
		t.Fatalf("entries %+v", ents)
	}
	for _, tc := range []struct {
		name string
		hdr  map[string]string
	}{
		{"no token", nil},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}},
		{"from a web page", map[string]string{"Authorization": "Bearer " + ents[0].Token, "Origin": "http://evil.example"}},
	} {
		req, _ := http.NewRequest("POST", "http://"+b.Addr()+ConsolePath, strings.NewReader(`{"title":"x"}`))
		for k, v := range tc.hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403", tc.name, resp.StatusCode)
		}
	}
	if len(b.Pending()) != 0 {
		t.Errorf("a refused request left a question: %+v", b.Pending())
	}
}

func TestConfigChainPutsConsoleFirst(t *testing.T) {
	b, home := openConsole(t)
	t.Setenv("RPA_HOME", home)
	seen := answerNext(t, b, core.Answer{Status: core.AnswerAnswered, Text: "console"})
	cfg := &Config{Order: []string{ChannelDesktop}, Desktop: &Desktop{NoNotify: true}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := cfg.Chain(nil).Ask(ctx, core.Question{Title: "Who?", Input: "text"})
	if err != nil || a.Text != "console" {
		t.Fatalf("%+v %v", a, err)
	}
	<-seen
	// An embedder's own desktop channel is left as it is.
	own := Func{N: ChannelDesktop, F: func(context.Context, core.Question) (core.Answer, error) { return core.Answer{}, nil }}
	if ConsoleFirst(own).Name() != ChannelDesktop {
		t.Error("name")
	}
	if _, ok := ConsoleFirst(own).(Func); !ok {
		t.Error("a non-native desktop channel was wrapped")
	}
}

func TestConsoleRegisteredWhileWatched(t *testing.T) {
	b, home := openConsole(t)
	count := func() int { l, _ := localctl.List(home, localctl.KindConsole); return len(l) }
	if b.Registered() || count() != 0 {
		t.Fatal("registered with no page open")
	}
	_, stop1, err := b.Watch()
	if err != nil {
		t.Fatal(err)
	}
	_, stop2, _ := b.Watch()
	if !b.Registered() || count() != 1 {
		t.Fatal("not registered while watched")
	}
	stop1()
	if count() != 1 {
		t.Fatal("unregistered while a page still watches")
	}
	stop2()
	stop2()
	if b.Registered() || count() != 0 {
		t.Fatal("still registered with no page open")
	}
}

// BenchmarkConsoleRoundTrip is one question through the registry and the
// loopback endpoint, shown and answered at once by a watching page.
func BenchmarkConsoleRoundTrip(b *testing.B) {
	home := b.TempDir()
	br := NewBroker()
	if err := br.Listen(home, "bench"); err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	ch, stop, err := br.Watch()
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	go func() {
		for range ch {
			for _, p := range br.Pending() {
				br.Answer(p.ID, core.Answer{Status: core.AnswerAnswered, Text: "x"})
			}
		}
	}()
	c := &Console{Home: home, From: "bench"}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if a, err := c.Ask(ctx, core.Question{Title: "q", Input: "text"}); err != nil || a.Text != "x" {
			b.Fatal(a, err)
		}
	}
}

// TestHostConfigsAskConsoleFirst: the set-ups of rpa run, serve and connect
// (NewConfig, ServerConfig) put the console before the native dialog.
func TestHostConfigsAskConsoleFirst(t *testing.T) {
	for name, mk := range map[string]func() (*Config, error){
		"NewConfig":    func() (*Config, error) { return NewConfig("", nil) },
		"ServerConfig": func() (*Config, error) { return ServerConfig("desktop,terminal") },
	} {
		cfg, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, ch := range cfg.Chain(nil).Channels {
			if ch.Name() == ChannelDesktop {
				_, found = ch.(*consoleThen)
			}
		}
		if !found {
			t.Errorf("%s: the desktop channel does not ask the console first", name)
		}
	}
}

// TestConsoleNamesTheAsker: a question asked from a run's context (WithAsker)
// reaches the console across loopback with the flow, the run and the caller.
func TestConsoleNamesTheAsker(t *testing.T) {
	b, home := openConsole(t)
	seen := answerNext(t, b, core.Answer{Status: core.AnswerAnswered, Text: "1"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a := Asker{Flow: "billing", Run: "20261202T081500000-ab12", Caller: "mcp Claude"}
	if _, err := (&Console{Home: home}).Ask(WithAsker(ctx, a), core.Question{Title: "Code?", Input: "text"}); err != nil {
		t.Fatal(err)
	}
	if p := <-seen; p.Asker != a || p.From == "" {
		t.Errorf("pending question %+v", p)
	}
	if _, ok := AskerOf(context.Background()); ok {
		t.Error("a bare context has an asker")
	}
}

// TestConsoleNoPageNamesTheURL: with an rpa ui running but none of its
// pages open, a question says where the console is (its address without
// the token), in Chinese too.
func TestConsoleNoPageNamesTheURL(t *testing.T) {
	home := t.TempDir()
	reg, err := localctl.Register(home, localctl.Entry{Kind: localctl.KindUI, Program: "rpa ui", URL: "http://127.0.0.1:8731/"})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	_, err = (&Console{Home: home}).Ask(context.Background(), core.Question{Title: "Code?", Input: "text"})
	want := fmt.Sprintf("console: no console page is open: rpa ui runs at http://127.0.0.1:8731/ (pid %d); open that address in a browser to answer there", os.Getpid())
	if !errors.Is(err, ErrUnavailable) || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
	if zh := msg.Localize("zh", err.Error()); !strings.Contains(zh, "没有打开的控制台页面：rpa ui 运行在 http://127.0.0.1:8731/") {
		t.Errorf("zh: %s", zh)
	}
	reg.Close()
	if _, err := (&Console{Home: home}).Ask(context.Background(), core.Question{Title: "Code?", Input: "text"}); err == nil || !strings.Contains(err.Error(), "no console is open (rpa ui)") {
		t.Errorf("without rpa ui: %v", err)
	}
}

// TestConsoleAwaited: a Console with Await takes a question no console
// could take when it was asked to the console opened later (a task's
// question that waits for its caller), and answers from it.
func TestConsoleAwaited(t *testing.T) {
	home := t.TempDir()
	looked := make(chan struct{}, 1)
	c := &Console{Home: home, From: "rpa serve (pid 1)", Await: 10 * time.Millisecond,
		unavailable: func() {
			select {
			case looked <- struct{}{}:
			default:
			}
		}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	type out struct {
		a   core.Answer
		err error
	}
	done := make(chan out, 1)
	go func() {
		a, err := c.Ask(ctx, core.Question{Title: "Code?", Input: "text"})
		done <- out{a, err}
	}()
	select { // asked, and found no console open
	case <-looked:
	case r := <-done:
		t.Fatalf("answered before a console was open: %+v %v", r.a, r.err)
	}
	b := NewBroker()
	if err := b.Listen(home, "rpa ui (test)"); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	answerNext(t, b, core.Answer{Status: core.AnswerAnswered, Text: "late console"})
	if o := <-done; o.err != nil || o.a.Text != "late console" {
		t.Errorf("got %+v %v", o.a, o.err)
	}
	// Without a console, a context that ends gives the reason it was unavailable.
	short, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	if _, err := (&Console{Home: t.TempDir(), Await: 10 * time.Millisecond}).Ask(short, core.Question{Title: "q"}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("no console, ctx ended: %v", err)
	}
	// Raced with a channel that cannot ask (a password to a form-only
	// client), it stops waiting: the question goes on down the chain.
	cannot := Func{N: "client", F: func(context.Context, core.Question) (core.Answer, error) {
		return core.Answer{}, Unavailable("the MCP client declared only form elicitation")
	}}
	long, cancel3 := context.WithTimeout(context.Background(), time.Minute)
	defer cancel3()
	if _, err := Race(cannot, &Console{Home: t.TempDir(), Await: 10 * time.Millisecond}).Ask(long, core.Question{Title: "q"}); !errors.Is(err, ErrUnavailable) || long.Err() != nil {
		t.Errorf("raced with a channel that cannot ask: %v (ctx %v)", err, long.Err())
	}
}
