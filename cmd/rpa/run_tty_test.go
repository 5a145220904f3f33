//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair (Linux /dev/ptmx).
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
	s, err := os.OpenFile("/dev/pts/"+itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open pts: %v", err)
	}
	return m, s
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// screen collects what the program writes to the terminal.
type screen struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	grew chan struct{} // closed at the next write (waitFor)
	// ended is closed when the terminal's output is all read (the child's end closed).
	ended chan struct{}
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.grew != nil {
		close(s.grew)
		s.grew = nil
	}
	return s.buf.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits until the screen shows n occurrences of want, looking again at each write (the
// bound only catches a hang).
func (s *screen) waitFor(t *testing.T, want string, n int) {
	t.Helper()
	guard := time.NewTimer(90 * time.Second)
	defer guard.Stop()
	for {
		s.mu.Lock()
		if strings.Count(s.buf.String(), want) >= n {
			s.mu.Unlock()
			return
		}
		if s.grew == nil {
			s.grew = make(chan struct{})
		}
		grew := s.grew
		s.mu.Unlock()
		select {
		case <-grew:
		case <-s.ended:
			if strings.Count(s.String(), want) < n {
				t.Fatalf("the terminal closed without showing %q; it shows:\n%s", want, s.String())
			}
			return
		case <-guard.C:
			t.Fatalf("the terminal never showed %q; it shows:\n%s", want, s.String())
		}
	}
}

// On a terminal: `ask` prompts there, a password answer is read without
// echo and masked in the result, and progress lines are live.
func TestRunAskOnTerminal(t *testing.T) {
	const pin = "Pin-90210-q"
	master, slave := openPTY(t)
	defer master.Close()
	cmd := exec.Command(rpaBin(t), "run", "testdata/run/ask_tty.flow")
	cmd.Env = append(os.Environ(), "RPA_HOME="+t.TempDir())
	var out bytes.Buffer
	cmd.Stdin, cmd.Stderr, cmd.Stdout = slave, slave, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	copied := make(chan struct{}) // the terminal's output is all read (the child's end closed)
	scr := &screen{ended: copied}
	go func() { _, _ = copyAll(scr, master); close(copied) }()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	scr.waitFor(t, "answer (a number)", 1)
	if !strings.Contains(scr.String(), "? Verification code") || !strings.Contains(scr.String(), "From the SMS") {
		t.Errorf("the question is not shown:\n%s", scr.String())
	}
	_, _ = master.Write([]byte("41\n"))
	scr.waitFor(t, "answer (hidden)", 1)
	_, _ = master.Write([]byte(pin + "\n"))

	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("rpa run: %v\nterminal:\n%s", err, scr.String())
		}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("rpa run did not finish; terminal:\n%s", scr.String())
	}
	// What the process wrote last may still be in the terminal: read it all
	// before looking (the bound only catches a hang).
	select {
	case <-copied:
	case <-time.After(30 * time.Second):
		t.Fatalf("the terminal's output never ended; it shows:\n%s", scr.String())
	}
	var res map[string]any
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("stdout: %v\n%s", err, out.String())
	}
	// len(pin) is derived from a secret: interp may mask it too.
	if res["code"] != 42.0 || res["pin"] != "***" || (res["len"] != float64(len(pin)) && res["len"] != "***") {
		t.Errorf("outputs %v", res)
	}
	screenText := scr.String()
	if strings.Contains(screenText, pin) || strings.Contains(out.String(), pin) {
		t.Errorf("the PIN was echoed or printed:\n%s\n%s", screenText, out.String())
	}
	if !strings.Contains(screenText, "log: pin ***") && !strings.Contains(screenText, "log: ***") {
		t.Errorf("the log line is not masked:\n%q", screenText)
	}
	for _, want := range []string{"\r\033[K", "ok  ask_tty: 2 actions (2 ok)"} {
		if !strings.Contains(screenText, want) {
			t.Errorf("terminal lacks %q:\n%q", want, screenText)
		}
	}
}

func copyAll(dst *screen, src *os.File) (int64, error) {
	var n int64
	buf := make([]byte, 4096)
	for {
		k, err := src.Read(buf)
		if k > 0 {
			_, _ = dst.Write(buf[:k])
			n += int64(k)
		}
		if err != nil {
			return n, err
		}
	}
}
