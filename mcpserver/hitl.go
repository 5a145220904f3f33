package mcpserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/stdlib"
)

// Question is what hitl_prompt (and the `ask` action) asks a person:
// Title, Message, Input ("text", "password" or "number") and Timeout. It
// is interp's Host.Ask question.
type Question = interp.Question

// Answer statuses.
const (
	AnswerAnswered  = stdlib.AnswerAnswered
	AnswerDeclined  = stdlib.AnswerDeclined
	AnswerCancelled = stdlib.AnswerCancelled
	AnswerTimeout   = stdlib.AnswerTimeout
)

// Answer is a person's reply: Status (one of the Answer* constants) and
// Text when answered. It is interp's Host.Ask answer.
type Answer = interp.Answer

// AskFunc asks a person. It returns when answered, declined, or when ctx
// ends (then with ctx.Err() or an Answer of status timeout).
type AskFunc func(ctx context.Context, q Question) (Answer, error)

// DefaultAsk is the desktop channel of a server with no other: the
// controlling terminal (/dev/tty) when there is one, else an AskFunc that
// answers "timeout" at once and logs why.
func DefaultAsk(log *slog.Logger) AskFunc {
	tty, err := openTTY()
	if err != nil {
		return func(ctx context.Context, q Question) (Answer, error) {
			log.Warn("hitl: no channel to ask a person (no terminal); answering timeout", "title", q.Title)
			return Answer{Status: AnswerTimeout}, nil
		}
	}
	return TerminalAsk(tty, tty)
}

// TerminalAsk asks on a terminal: it writes the title and message to out
// and reads one line from in ("" or EOF declines). Questions are asked
// one at a time. A password question turns echo off when in is a terminal
// (Linux). in should support read deadlines (a terminal opened by
// openTTY, a pipe) so an unanswered question times out cleanly.
func TerminalAsk(in *os.File, out io.Writer) AskFunc {
	var mu sync.Mutex
	rd := bufio.NewReader(in)
	return func(ctx context.Context, q Question) (Answer, error) {
		mu.Lock()
		defer mu.Unlock()
		if err := ctx.Err(); err != nil {
			return Answer{}, err
		}
		fmt.Fprintf(out, "\n[rpa] %s\n", q.Title)
		if q.Message != "" {
			fmt.Fprintf(out, "%s\n", q.Message)
		}
		fmt.Fprintf(out, "(%s, %s to answer; empty line declines) > ", q.Input, q.Timeout.Round(time.Second))
		if q.Input == "password" {
			if restore := noEcho(in); restore != nil {
				defer func() { restore(); fmt.Fprintln(out) }()
			}
		}
		type line struct {
			s   string
			err error
		}
		ch := make(chan line, 1)
		_ = in.SetReadDeadline(time.Time{})
		go func() {
			s, err := rd.ReadString('\n')
			ch <- line{s, err}
		}()
		select {
		case l := <-ch:
			text := strings.TrimRight(l.s, "\r\n")
			if l.err != nil && !errors.Is(l.err, io.EOF) {
				return Answer{}, l.err
			}
			if text == "" {
				return Answer{Status: AnswerDeclined}, nil
			}
			return Answer{Status: AnswerAnswered, Text: text}, nil
		case <-ctx.Done():
			// Unblock the reader; what was typed so far is dropped.
			_ = in.SetReadDeadline(time.Now())
			<-ch
			rd.Reset(in)
			fmt.Fprintln(out, "\n[rpa] no answer in time")
			return Answer{}, ctx.Err()
		}
	}
}
