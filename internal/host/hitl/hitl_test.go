package hitl

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
)

func TestParseOrder(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		err  string
	}{
		{"client,desktop,terminal", "client,desktop,terminal", ""},
		{"terminal, client", "terminal,client", ""},
		{"desktop", "desktop", ""},
		{"none", "", ""},
		{"", "", "empty"},
		{"client,phone", "", `unknown channel "phone"`},
		{"client,client", "", `"client" given twice`},
	} {
		got, err := ParseOrder(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(got, ",") != tc.want {
			t.Errorf("%q: %v %v, want %s", tc.in, got, err, tc.want)
		}
	}
}

func fixed(name string, a core.Answer, err error, calls *[]string) Channel {
	return Func{N: name, F: func(ctx context.Context, q core.Question) (core.Answer, error) {
		*calls = append(*calls, name)
		return a, err
	}}
}

// TestChainOrder: unavailable channels are skipped in order, the first
// that can ask answers, and with none left the question times out at
// once with every reason, as a hitl_timeout error.
func TestChainOrder(t *testing.T) {
	var calls []string
	cfg := &Config{
		Order:    []string{"terminal", "client", "desktop"},
		Desktop:  fixed("desktop", core.Answer{Status: core.AnswerAnswered, Text: "d"}, nil, &calls),
		Terminal: fixed("terminal", core.Answer{}, Unavailable("no tty"), &calls),
	}
	a, err := cfg.Chain(nil).Ask(context.Background(), core.Question{Title: "x"})
	if err != nil || a.Text != "d" || strings.Join(calls, ",") != "terminal,desktop" {
		t.Fatalf("%+v %v, calls %v", a, err, calls)
	}
	// Declined is an answer: no fall-through.
	calls = nil
	cfg.Desktop = fixed("desktop", core.Answer{Status: core.AnswerDeclined}, nil, &calls)
	cfg.Terminal = fixed("terminal", core.Answer{Status: core.AnswerAnswered}, nil, &calls)
	cfg.Order = []string{"desktop", "terminal"}
	if a, _ := cfg.Chain(nil).Ask(context.Background(), core.Question{Title: "x"}); a.Status != core.AnswerDeclined || len(calls) != 1 {
		t.Fatalf("%+v, calls %v", a, calls)
	}
	// None left.
	cfg = &Config{Order: []string{"client", "desktop"}}
	start := time.Now()
	a, err = cfg.Chain(nil).Ask(context.Background(), core.Question{Title: "Captcha", Timeout: time.Minute})
	var nc *NoChannelError
	if !errors.As(err, &nc) || a.Status != core.AnswerTimeout || time.Since(start) > 30*time.Second { // only a hang: the timeout is a minute
		t.Fatalf("%+v %v", a, err)
	}
	if core.KindOf(err) != core.KindHITLTimeout {
		t.Errorf("kind %q", core.KindOf(err))
	}
	if want := `ask "Captcha": no one could be asked (timeout): client: not available here; desktop: not available here`; err.Error() != want {
		t.Errorf("error %q\nwant  %q", err, want)
	}
	// --hitl none.
	cfg = &Config{Order: []string{}}
	if _, err := cfg.Chain(nil).Ask(context.Background(), core.Question{Title: "q"}); err == nil || !strings.Contains(err.Error(), "no human-in-the-loop channel is enabled") {
		t.Errorf("none: %v", err)
	}
}

// TestChainContext: a channel that waits returns when ctx ends.
func TestChainContext(t *testing.T) {
	cfg := &Config{Order: []string{"desktop"}, Desktop: Func{N: "desktop", F: func(ctx context.Context, q core.Question) (core.Answer, error) {
		<-ctx.Done()
		return core.Answer{}, ctx.Err()
	}}}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := cfg.Chain(nil).Ask(ctx, core.Question{Title: "q"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
}

func TestSecret(t *testing.T) {
	var got []string
	ask := Secret(func(ctx context.Context, q core.Question) (core.Answer, error) {
		return core.Answer{Status: core.AnswerAnswered, Text: q.Title + "-answer"}, nil
	}, func(s string) { got = append(got, s) })
	ask(context.Background(), core.Question{Title: "pin", Input: "password"})
	ask(context.Background(), core.Question{Title: "name", Input: "text"})
	if strings.Join(got, ",") != "pin-answer" {
		t.Errorf("secrets %v", got)
	}
}

func TestFormParams(t *testing.T) {
	p := FormParams(core.Question{Title: "How many?", Message: "rows", Input: "number"})
	props := p.RequestedSchema.(map[string]any)["properties"].(map[string]any)
	if props[AnswerField].(map[string]any)["type"] != "number" || p.Mode != "form" || p.Message != "How many?\n\nrows" {
		t.Errorf("%+v", p)
	}
	if s, _ := answerText(42.0); s != "42" {
		t.Errorf("number answer %q", s)
	}
}
