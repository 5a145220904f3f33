// Package hitl asks a person a question for the `ask` action and the
// hitl_prompt tool (PROTOCOL.md, "Human in the loop").
//
// A question goes through channels in order, by default client, desktop,
// terminal (rpa's --hitl flag changes the order or leaves channels out):
//
//   - client: the calling MCP client, through elicitation/create, when it
//     declared the capability (Elicit). A password question never goes
//     through form-mode elicitation (the MCP specification forbids it): it
//     uses URL mode with a one-time loopback page (URLPages) when the client
//     declared URL mode and the host serves such pages, else it falls
//     through.
//   - desktop: an open `rpa ui` console of this $RPA_HOME first, from any
//     local process (Console, ConsoleFirst: console.go), else a native
//     dialog (zenity on Linux, the system's dialogs on Windows and macOS,
//     through github.com/ncruces/zenity) with a desktop notification, when
//     there is a display (Desktop).
//   - terminal: the terminal rpa runs on, hidden input for passwords
//     (Terminal).
//
// A channel that cannot ask (no capability, no display, no terminal, the
// link's "try the next channel" answer -32601) returns an error wrapping
// ErrUnavailable and the next one is tried; when none can ask, the
// question times out at once with a *NoChannelError naming why each was
// skipped. The ctx given to Ask carries the question's timeout: when it
// ends the pending question is withdrawn and ctx.Err() is returned, never a
// hang.
package hitl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/rpa-dev/rpa/core"
)

// Channel names, as --hitl takes them.
const (
	ChannelClient   = "client"
	ChannelDesktop  = "desktop"
	ChannelTerminal = "terminal"
)

// DefaultOrder is the order of channels without --hitl.
var DefaultOrder = []string{ChannelClient, ChannelDesktop, ChannelTerminal}

// ErrUnavailable is wrapped by the error of a channel that cannot ask this
// question here; the chain then tries the next channel.
var ErrUnavailable = errors.New("channel unavailable")

// Unavailable returns an error wrapping ErrUnavailable with the reason.
func Unavailable(format string, args ...any) error {
	return &unavailable{msg: fmt.Sprintf(format, args...)}
}

type unavailable struct{ msg string }

func (u *unavailable) Error() string        { return u.msg }
func (u *unavailable) Is(target error) bool { return target == ErrUnavailable }

// Channel is one way of asking a person.
type Channel interface {
	// Name is the channel's --hitl name (client, desktop, terminal).
	Name() string
	// Ask asks q and waits for the answer until ctx ends (then it returns
	// ctx.Err()). It returns an error wrapping ErrUnavailable, without
	// asking, when it cannot ask q here.
	Ask(ctx context.Context, q core.Question) (core.Answer, error)
}

// Func adapts a function to a Channel.
type Func struct {
	N string
	F func(ctx context.Context, q core.Question) (core.Answer, error)
}

// Name returns N.
func (f Func) Name() string { return f.N }

// Ask calls F.
func (f Func) Ask(ctx context.Context, q core.Question) (core.Answer, error) { return f.F(ctx, q) }

// NoChannelError is returned when no channel could ask: the question
// times out at once. It is a result error of kind hitl_timeout (core.KindHITLTimeout), so
// `ask` fails with that kind and a try/catch can handle it.
type NoChannelError struct {
	Title   string
	Reasons []string // "client: ...", one per channel tried
}

func (e *NoChannelError) Error() string {
	msg := fmt.Sprintf("ask %q: no one could be asked (timeout)", e.Title)
	if len(e.Reasons) == 0 {
		return msg + ": no human-in-the-loop channel is enabled (--hitl)"
	}
	return msg + ": " + strings.Join(e.Reasons, "; ")
}

// Unwrap makes the error a *core.Error of kind hitl_timeout.
func (e *NoChannelError) Unwrap() error {
	return &core.Error{Kind: core.KindHITLTimeout, Msg: e.Error(), Final: true}
}

// Chain asks through its channels in order (see the package doc).
type Chain struct {
	Channels []Channel
	// Log gets one line per question: which channel answered, with what
	// status, and why channels were skipped; never the answer. Nil: none.
	Log *slog.Logger
}

// Ask asks q through the first channel that can. A password answer is
// returned as is: the caller registers it as a secret.
func (c *Chain) Ask(ctx context.Context, q core.Question) (core.Answer, error) {
	var reasons []string
	for _, ch := range c.Channels {
		if err := ctx.Err(); err != nil {
			return core.Answer{}, err
		}
		ans, err := ch.Ask(ctx, q)
		if errors.Is(err, ErrUnavailable) {
			reasons = append(reasons, ch.Name()+": "+err.Error())
			continue
		}
		if c.Log != nil {
			attrs := []any{"channel", ch.Name(), "input", q.Input, "status", ans.Status}
			if err != nil {
				attrs = append(attrs, "error", err.Error())
			}
			if len(reasons) > 0 {
				attrs = append(attrs, "skipped", strings.Join(reasons, "; "))
			}
			c.Log.Info("hitl", attrs...)
		}
		return ans, err
	}
	e := &NoChannelError{Title: q.Title, Reasons: reasons}
	if c.Log != nil {
		c.Log.Warn("hitl: no channel could ask", "reasons", strings.Join(reasons, "; "))
	}
	return core.Answer{Status: core.AnswerTimeout}, e
}

// ParseOrder parses --hitl: channel names separated by commas, each at
// most once ("client,desktop,terminal"); "none" leaves every channel out.
func ParseOrder(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "none" {
		return []string{}, nil
	}
	if s == "" {
		return nil, errors.New(`--hitl: empty (give channels such as "client,desktop,terminal", or "none")`)
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		switch p {
		case ChannelClient, ChannelDesktop, ChannelTerminal:
		default:
			return nil, fmt.Errorf("--hitl: unknown channel %q (want client, desktop or terminal)", p)
		}
		for _, q := range out {
			if q == p {
				return nil, fmt.Errorf("--hitl: channel %q given twice", p)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// Config is a host's human-in-the-loop set-up: the order and its desktop
// and terminal channels. The client channel exists per call (it needs the
// call's session) and is passed to Chain.
type Config struct {
	// Order lists channel names (DefaultOrder when nil; empty: none).
	Order []string
	// Desktop and Terminal are the host's channels; nil leaves them out
	// (with the reason "not available here").
	Desktop, Terminal Channel
	// Log is the chains' logger.
	Log *slog.Logger
}

// Chain returns the chain for one call; client may be nil (no MCP caller).
func (c *Config) Chain(client Channel) *Chain {
	order := c.Order
	if order == nil {
		order = DefaultOrder
	}
	ch := &Chain{Log: c.Log}
	for _, n := range order {
		var x Channel
		switch n {
		case ChannelClient:
			x = client
		case ChannelDesktop:
			x = ConsoleFirst(c.Desktop) // an open rpa ui console first (console.go)
		case ChannelTerminal:
			x = c.Terminal
		}
		if x == nil {
			name := n
			x = Func{N: name, F: func(context.Context, core.Question) (core.Answer, error) {
				return core.Answer{}, Unavailable("not available here")
			}}
		}
		ch.Channels = append(ch.Channels, x)
	}
	return ch
}

// Secret wraps ask so that every answered password question's text goes to
// add (a run's or a server's secret list) before it is returned.
func Secret(ask func(context.Context, core.Question) (core.Answer, error), add func(string)) func(context.Context, core.Question) (core.Answer, error) {
	return func(ctx context.Context, q core.Question) (core.Answer, error) {
		ans, err := ask(ctx, q)
		if err == nil && q.Input == "password" && ans.Status == core.AnswerAnswered && ans.Text != "" {
			add(ans.Text)
		}
		return ans, err
	}
}

// Race asks q through a and b at once: the first answer wins and the
// other question is withdrawn. A channel that cannot ask (ErrUnavailable)
// leaves the question to the other; when neither can, the error names both.
// Once a cannot ask, b stops waiting for a way to ask (Console.Await) and
// answers with what it has: the question then goes on down the chain.
// Its name is a's. A task's question goes to its caller and to an open
// console this way: whoever answers first.
func Race(a, b Channel) Channel { return &race{a, b} }

type race struct{ a, b Channel }

// stopAwaitKey marks the ctx of Race's second channel with a channel
// closed when the first cannot ask (Console.Await stops then).
type stopAwaitKey struct{}

func (r *race) Name() string { return r.a.Name() }

func (r *race) Ask(ctx context.Context, q core.Question) (core.Answer, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type out struct {
		first bool
		ans   core.Answer
		err   error
	}
	stop := make(chan struct{})
	ch := make(chan out, 2)
	go func() {
		ans, err := r.a.Ask(ctx, q)
		ch <- out{true, ans, err}
	}()
	go func() {
		ans, err := r.b.Ask(context.WithValue(ctx, stopAwaitKey{}, (<-chan struct{})(stop)), q)
		ch <- out{false, ans, err}
	}()
	var reasons []string
	for range 2 {
		o := <-ch
		if errors.Is(o.err, ErrUnavailable) {
			reasons = append(reasons, o.err.Error())
			if o.first {
				close(stop)
			}
			continue
		}
		return o.ans, o.err
	}
	return core.Answer{}, Unavailable("%s", strings.Join(reasons, "; "))
}
