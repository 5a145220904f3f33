package hitl

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/rpa-dev/rpa/core"
)

// openPTY opens a pseudo-terminal pair; the slave non-blocking like
// OpenTerminal's /dev/tty.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	var unlock int32
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, m.Fd(), unix.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		m.Close()
		t.Skipf("unlockpt: %v", e)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
	if err != nil {
		m.Close()
		t.Skipf("open pts: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// screen is what the terminal shows (the master's output).
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.buf.String() }

func (s *screen) waitFor(t *testing.T, text string, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(s.String(), text) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%q not shown %d times; screen:\n%s", text, n, s.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTerminalPTY asks on a pseudo-terminal: a text answer echoes, a
// password answer does not, an empty line declines, an unanswered
// question ends at its timeout and the terminal still works after it.
func TestTerminalPTY(t *testing.T) {
	m, s := openPTY(t)
	scr := &screen{}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := m.Read(b)
			scr.mu.Lock()
			scr.buf.Write(b[:n])
			scr.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	term := &Terminal{In: s, Out: s}
	ask := func(q core.Question, d time.Duration) (core.Answer, error) {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		return term.Ask(ctx, q)
	}
	type res struct {
		a   core.Answer
		err error
	}
	run := func(q core.Question, d time.Duration) chan res {
		ch := make(chan res, 1)
		go func() { a, err := ask(q, d); ch <- res{a, err} }()
		return ch
	}

	ch := run(core.Question{Title: "Captcha", Message: "letters in the picture", Input: "text"}, 5*time.Second)
	scr.waitFor(t, "> answer,", 1)
	m.WriteString("X7K2P\n")
	if r := <-ch; r.err != nil || r.a.Status != core.AnswerAnswered || r.a.Text != "X7K2P" {
		t.Fatalf("text: %+v %v", r.a, r.err)
	}
	scr.waitFor(t, "X7K2P", 1) // echoed

	ch = run(core.Question{Title: "PIN", Input: "password"}, 5*time.Second)
	scr.waitFor(t, "answer (hidden)", 1)
	m.WriteString("hunter22\n")
	if r := <-ch; r.err != nil || r.a.Text != "hunter22" {
		t.Fatalf("password: %+v %v", r.a, r.err)
	}
	time.Sleep(50 * time.Millisecond)
	if strings.Contains(scr.String(), "hunter22") {
		t.Errorf("the password was echoed:\n%s", scr.String())
	}

	ch = run(core.Question{Title: "Empty", Input: "text"}, 5*time.Second)
	scr.waitFor(t, "? Empty", 1)
	m.WriteString("\n")
	if r := <-ch; r.a.Status != core.AnswerDeclined {
		t.Fatalf("empty line: %+v %v", r.a, r.err)
	}

	start := time.Now()
	if _, err := ask(core.Question{Title: "Late", Input: "text"}, 200*time.Millisecond); err == nil {
		t.Fatal("no error at the timeout")
	}
	if el := time.Since(start); el > 30*time.Second { // only a hang
		t.Errorf("timeout took %s", el)
	}
	ch = run(core.Question{Title: "After", Input: "number"}, 5*time.Second)
	scr.waitFor(t, "answer (a number)", 1)
	m.WriteString("12\n")
	if r := <-ch; r.err != nil || r.a.Text != "12" {
		t.Fatalf("after a timeout: %+v %v", r.a, r.err)
	}

	// Not a terminal: unavailable.
	r, w, _ := os.Pipe()
	defer r.Close()
	defer w.Close()
	if _, err := (&Terminal{In: r, Out: w}).Ask(context.Background(), core.Question{Title: "q"}); err == nil || !strings.Contains(err.Error(), "no terminal") {
		t.Errorf("pipe: %v", err)
	}
}

// echoAtPrompt records, when the password prompt is written, whether the
// terminal still echoes; shown is closed then.
type echoAtPrompt struct {
	tty    *os.File
	shown  chan struct{}
	echoed bool
}

func (w *echoAtPrompt) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("answer (hidden)")) {
		st, err := unix.IoctlGetTermios(int(w.tty.Fd()), unix.TCGETS)
		w.echoed = err != nil || st.Lflag&unix.ECHO != 0
		close(w.shown)
	}
	return len(p), nil
}

// TestTerminalEchoOffBeforePrompt: echo is off by the time the password
// prompt shows, so an answer typed as soon as it appears is never echoed
// (CI saw the PIN on the screen when echo went off after the prompt).
func TestTerminalEchoOffBeforePrompt(t *testing.T) {
	m, s := openPTY(t)
	out := &echoAtPrompt{tty: s, shown: make(chan struct{})}
	ch := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := (&Terminal{In: s, Out: out}).Ask(ctx, core.Question{Title: "PIN", Input: "password"})
		ch <- err
	}()
	go func() {
		b := make([]byte, 4096)
		for {
			if _, err := m.Read(b); err != nil {
				return
			}
		}
	}()
	select {
	case <-out.shown:
	case err := <-ch:
		t.Fatalf("no prompt: %v", err)
	}
	m.WriteString("1234\n")
	if err := <-ch; err != nil {
		t.Fatal(err)
	}
	if out.echoed {
		t.Error("the terminal still echoed when the password prompt was shown")
	}
}
