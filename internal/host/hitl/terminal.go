package hitl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/rpa-dev/rpa/core"
)

// Terminal is the terminal channel: the question is written to Out and
// one line is read from In (input hidden for passwords). An empty line or
// end of input declines. Questions are asked one at a time.
type Terminal struct {
	In  *os.File
	Out io.Writer

	mu sync.Mutex
	rd *bufio.Reader
}

// OpenTerminal opens the controlling terminal (/dev/tty on Unix, CONIN$
// and CONOUT$ on Windows) so that a server whose stdin carries the
// protocol can still ask there; on Linux it is opened non-blocking, so
// an unanswered question is withdrawn cleanly at its timeout.
func OpenTerminal() (*Terminal, error) {
	in, out, err := openTTY()
	if err != nil {
		return nil, err
	}
	return &Terminal{In: in, Out: out}, nil
}

// Name returns "terminal".
func (t *Terminal) Name() string { return ChannelTerminal }

// isTerminal reports whether f is a terminal without switching it to
// blocking mode (as f.Fd would).
func isTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	yes := false
	_ = rc.Control(func(fd uintptr) { yes = term.IsTerminal(int(fd)) })
	return yes
}

// Ask asks q on the terminal; unavailable when In is not a terminal.
func (t *Terminal) Ask(ctx context.Context, q core.Question) (core.Answer, error) {
	if t == nil || !isTerminal(t.In) {
		return core.Answer{}, Unavailable("no terminal to ask on (not running on a terminal)")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return core.Answer{}, err
	}
	if t.rd == nil {
		t.rd = bufio.NewReader(t.In)
	}
	fmt.Fprintf(t.Out, "\n? %s\n", q.Title)
	if q.Message != "" {
		fmt.Fprintf(t.Out, "  %s\n", q.Message)
	}
	hint := ""
	switch q.Input {
	case "password":
		hint = " (hidden)"
	case "number":
		hint = " (a number)"
	}
	left := ""
	if dl, ok := ctx.Deadline(); ok {
		left = fmt.Sprintf(", %s left", time.Until(dl).Round(time.Second))
	}
	// Echo goes off before the prompt is shown: a person (or a script)
	// answering as soon as the prompt appears must not see the password
	// echoed because the prompt came first.
	hidden := false
	if q.Input == "password" {
		if restore := noEcho(t.In); restore != nil {
			defer restore()
			hidden = true
		}
	}
	fmt.Fprintf(t.Out, "> answer%s, Enter to send, empty line or Ctrl-D declines%s: ", hint, left)
	if q.Input == "password" && !hidden {
		return t.readHidden(ctx)
	}
	type line struct {
		s   string
		err error
	}
	ch := make(chan line, 1)
	deadlines := t.In.SetReadDeadline(time.Time{}) == nil
	go func() {
		s, err := t.rd.ReadString('\n')
		ch <- line{s, err}
	}()
	select {
	case l := <-ch:
		fmt.Fprintln(t.Out)
		text := strings.TrimRight(l.s, "\r\n")
		if l.err != nil && !errors.Is(l.err, io.EOF) {
			return core.Answer{}, l.err
		}
		if text == "" {
			return core.Answer{Status: core.AnswerDeclined}, nil
		}
		return core.Answer{Status: core.AnswerAnswered, Text: text}, nil
	case <-ctx.Done():
		if deadlines {
			// Unblock the reader; what was typed so far is dropped.
			_ = t.In.SetReadDeadline(time.Now())
			<-ch
			t.rd.Reset(t.In)
		} else {
			t.rd = nil // the abandoned read keeps the old reader
		}
		fmt.Fprintln(t.Out, "\n(no answer in time)")
		return core.Answer{}, ctx.Err()
	}
}

// readHidden reads a password where echo cannot be turned off in place
// (not Linux): x/term's ReadPassword, abandoned when ctx ends.
func (t *Terminal) readHidden(ctx context.Context) (core.Answer, error) {
	type line struct {
		b   []byte
		err error
	}
	ch := make(chan line, 1)
	fd := int(t.In.Fd())
	st, _ := term.GetState(fd)
	go func() {
		b, err := term.ReadPassword(fd)
		ch <- line{b, err}
	}()
	select {
	case l := <-ch:
		fmt.Fprintln(t.Out)
		if l.err != nil || len(l.b) == 0 {
			return core.Answer{Status: core.AnswerDeclined}, nil
		}
		return core.Answer{Status: core.AnswerAnswered, Text: string(l.b)}, nil
	case <-ctx.Done():
		if st != nil {
			_ = term.Restore(fd, st)
		}
		fmt.Fprintln(t.Out, "\n(no answer in time)")
		return core.Answer{}, ctx.Err()
	}
}
