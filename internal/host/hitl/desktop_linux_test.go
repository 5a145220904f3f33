package hitl

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
)

// xvfb starts a virtual display for the test and sets DISPLAY; it skips
// when Xvfb, zenity or xdotool is missing (.ci/run installs them).
func xvfb(t *testing.T) {
	t.Helper()
	for _, bin := range []string{"Xvfb", "zenity", "xdotool"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not installed: the desktop dialog test needs Xvfb, zenity and xdotool (apt-get install -y xvfb xdotool zenity)", bin)
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1024x768x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Skipf("Xvfb: %v", err)
	}
	w.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case n := <-line:
		if n == "" {
			t.Skip("Xvfb gave no display number")
		}
		t.Setenv("DISPLAY", ":"+n)
		t.Setenv("WAYLAND_DISPLAY", "")
	case <-time.After(10 * time.Second):
		t.Skip("Xvfb did not start in 10s")
	}
}

// person answers the dialog titled title like a person at the desktop:
// it waits for the window, focuses it and types keys (xdotool).
func person(t *testing.T, title string, keys ...[]string) {
	t.Helper()
	out, err := exec.Command("timeout", "15", "xdotool", "search", "--sync", "--name", title).Output()
	if err != nil {
		t.Errorf("dialog %q never showed: %v", title, err)
		return
	}
	id := strings.Fields(string(out))[0]
	time.Sleep(300 * time.Millisecond) // let GTK map and focus the entry
	if out, err := exec.Command("xdotool", "windowfocus", "--sync", id).CombinedOutput(); err != nil {
		t.Logf("windowfocus: %v %s", err, out)
	}
	for _, k := range keys {
		if out, err := exec.Command("xdotool", k...).CombinedOutput(); err != nil {
			t.Errorf("xdotool %v: %v %s", k, err, out)
		}
	}
}

// TestDesktopDialog shows real zenity dialogs on Xvfb and answers them
// with xdotool: a text answer, a hidden password, Escape (declined), and
// a dialog nobody answers (closed at the timeout).
func TestDesktopDialog(t *testing.T) {
	xvfb(t)
	d := &Desktop{NoNotify: true}
	ask := func(q core.Question, timeout time.Duration, keys ...[]string) (core.Answer, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		done := make(chan struct{})
		if len(keys) > 0 {
			go func() { defer close(done); person(t, "rpa: "+q.Title, keys...) }()
		} else {
			close(done)
		}
		a, err := d.Ask(ctx, q)
		<-done
		return a, err
	}
	a, err := ask(core.Question{Title: "Captcha", Message: "Type the characters", Input: "text"}, 30*time.Second,
		[]string{"type", "--delay", "20", "X7K2P"}, []string{"key", "Return"})
	if err != nil || a.Status != core.AnswerAnswered || a.Text != "X7K2P" {
		t.Fatalf("text: %+v %v", a, err)
	}
	a, err = ask(core.Question{Title: "PIN", Input: "password"}, 30*time.Second,
		[]string{"type", "--delay", "20", "s3cret"}, []string{"key", "Return"})
	if err != nil || a.Text != "s3cret" {
		t.Fatalf("password: %+v %v", a, err)
	}
	a, err = ask(core.Question{Title: "Declined", Input: "text"}, 30*time.Second, []string{"key", "Escape"})
	if err != nil || a.Status != core.AnswerDeclined {
		t.Fatalf("escape: %+v %v", a, err)
	}
	start := time.Now()
	if _, err := ask(core.Question{Title: "Nobody", Input: "text"}, 1500*time.Millisecond); err == nil {
		t.Fatal("no error at the timeout")
	}
	if el := time.Since(start); el > 30*time.Second { // only a hang
		t.Errorf("the timeout took %s", el)
	}
	time.Sleep(300 * time.Millisecond)
	if out, _ := exec.Command("xdotool", "search", "--name", "rpa: Nobody").Output(); len(strings.TrimSpace(string(out))) > 0 {
		t.Error("the dialog stayed open after the timeout")
	}
}

// TestDesktopUnavailable: without a display the channel steps aside.
func TestDesktopUnavailable(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	if _, err := (&Desktop{}).Ask(context.Background(), core.Question{Title: "q"}); err == nil || !strings.Contains(err.Error(), "no display") {
		t.Fatalf("err %v", err)
	}
}
