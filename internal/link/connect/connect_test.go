package connect_test

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/link/mcpws"
)

func callParams(key string, ms int) map[string]any {
	return map[string]any{"name": "slow", "arguments": map[string]any{"key": key, "ms": ms}}
}

func TestRegisterAndReRegister(t *testing.T) {
	be := newBackend(t, "tok", mcpws.Options{})
	var mu sync.Mutex
	names := []string{"a", "b"}
	r := &runs{}
	c, _, _ := run(t, connect.Options{URL: be.url(), Token: "tok", Server: testServer(r), DeviceID: "pc-7",
		ToolNames: func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), names...) }})
	l := be.next(t)
	f, err := read(l)
	if err != nil {
		t.Fatal(err)
	}
	if f.Type != "register" || f.DeviceID != "pc-7" || strings.Join(f.AvailableTools, ",") != "a,b" {
		t.Fatalf("first frame %+v", f)
	}
	mu.Lock()
	names = append(names, "c")
	mu.Unlock()
	c.ToolsChanged()
	f, err = read(l)
	if err != nil {
		t.Fatal(err)
	}
	if f.Type != "register" || strings.Join(f.AvailableTools, ",") != "a,b,c" {
		t.Fatalf("re-register %+v", f)
	}
}

// TestAnswerKeptWhileDown: a call finishing while the link is down is answered once, on the next
// link, after its notifications/initialized; resending its id then does not run it again.
func TestAnswerKeptWhileDown(t *testing.T) {
	be := newBackend(t, "tok", mcpws.Options{})
	r := &runs{}
	run(t, connect.Options{URL: be.url(), Token: "tok", Server: testServer(r)})
	l := be.next(t)
	if _, err := handshake(l, "i1"); err != nil {
		t.Fatal(err)
	}
	if err := send(l, "c1", "tools/call", callParams("k1", 300)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	l.Close()

	l2 := be.next(t)
	if _, err := handshake(l2, "i2"); err != nil {
		t.Fatal(err)
	}
	f, err := read(l2)
	if err != nil {
		t.Fatal(err)
	}
	if f.ID != "c1" || !strings.Contains(string(f.Result), "done k1") {
		t.Fatalf("got %+v, want the kept answer to c1", f)
	}
	// Ask again on a newer link (as a backend that lost the answer would): the kept answer comes
	// back, with no second run. (On the link it was sent on, a repeat is not answered again:
	// the answer is already on its way.)
	l2.Close()
	l3 := be.next(t)
	if _, err := handshake(l3, "i3"); err != nil {
		t.Fatal(err)
	}
	if err := send(l3, "c1", "tools/call", callParams("k1", 300)); err != nil {
		t.Fatal(err)
	}
	f, err = read(l3)
	if err != nil || f.ID != "c1" {
		t.Fatalf("resend: %+v %v", f, err)
	}
	if n := r.get("k1"); n != 1 {
		t.Errorf("k1 ran %d times, want 1", n)
	}
}

// TestResendWhileRunning: a request resent on a new link while it still runs is not run again;
// its one answer follows on the new link.
func TestResendWhileRunning(t *testing.T) {
	be := newBackend(t, "tok", mcpws.Options{})
	r := &runs{}
	run(t, connect.Options{URL: be.url(), Token: "tok", Server: testServer(r)})
	l := be.next(t)
	if _, err := handshake(l, "i1"); err != nil {
		t.Fatal(err)
	}
	_ = send(l, "c1", "tools/call", callParams("k1", 400))
	time.Sleep(50 * time.Millisecond)
	l.Abort()
	l2 := be.next(t)
	if _, err := handshake(l2, "i2"); err != nil {
		t.Fatal(err)
	}
	_ = send(l2, "c1", "tools/call", callParams("k1", 400))
	_ = send(l2, "p1", "ping", nil)
	var got []string
	for len(got) < 2 {
		f, err := read(l2)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprint(f.ID))
	}
	// The ping is answered first; c1 once, when its one run ends. Nothing more follows.
	if strings.Join(got, ",") != "p1,c1" {
		t.Errorf("answers %v, want p1,c1", got)
	}
	_ = send(l2, "p2", "ping", nil)
	if f, err := read(l2); err != nil || f.ID != "p2" {
		t.Errorf("after c1: %+v %v, want only the p2 answer", f, err)
	}
	if n := r.get("k1"); n != 1 {
		t.Errorf("k1 ran %d times", n)
	}
}

// TestRandomCuts cuts the link at random points during 50 calls; the backend re-dials' sessions
// resend every unanswered request. Every call is answered exactly once and run exactly once.
func TestRandomCuts(t *testing.T) {
	be := newBackend(t, "tok", mcpws.Options{})
	r := &runs{}
	logs := &syncBuf{}
	run(t, connect.Options{URL: be.url(), Token: "tok", Server: testServer(r), Logger: slog.New(slog.NewTextHandler(logs, nil))})
	const n = 50
	rng := rand.New(rand.NewPCG(1, 2))
	answers := map[string]int{}
	sent := 0
	links := 0
	deadline := time.Now().Add(60 * time.Second)
	for len(answers) < n && time.Now().Before(deadline) {
		l := be.next(t)
		links++
		abrupt := rng.IntN(2) == 0
		cut := time.AfterFunc(time.Duration(rng.IntN(150))*time.Millisecond, func() {
			if abrupt {
				l.Abort() // TCP cut, no close frame
			} else {
				l.Close()
			}
		})
		if _, err := handshake(l, fmt.Sprintf("init-%d", links)); err != nil {
			continue
		}
		// Resend what is unanswered, then send new calls over time.
		var pending []string
		for i := 0; i < sent; i++ {
			if id := fmt.Sprintf("c%d", i); answers[id] == 0 {
				pending = append(pending, id)
			}
		}
		ms := make([]int, len(pending))
		for i := range ms {
			ms[i] = 20 + rng.IntN(60)
		}
		go func() {
			for i, id := range pending {
				if send(l, id, "tools/call", callParams(id, ms[i])) != nil {
					return
				}
			}
		}()
		newOnes := 3 + rng.IntN(6)
		for i := 0; i < newOnes && sent < n; i++ {
			id := fmt.Sprintf("c%d", sent)
			if send(l, id, "tools/call", callParams(id, 20+rng.IntN(60))) != nil {
				break
			}
			sent++
		}
		for {
			f, err := read(l)
			if err != nil {
				break
			}
			if id, ok := f.ID.(string); ok && strings.HasPrefix(id, "c") {
				if f.Error != nil {
					t.Errorf("%s: error %+v", id, f.Error)
				}
				answers[id]++
				if len(answers) == n {
					break
				}
			}
		}
		cut.Stop()
		l.Close()
	}
	if links < 3 {
		t.Errorf("only %d links: the cuts did not happen", links)
	}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("c%d", i)
		if answers[id] != 1 {
			t.Errorf("%s answered %d times", id, answers[id])
		}
		if got := r.get(id); got != 1 {
			t.Errorf("%s ran %d times", id, got)
		}
	}
	running := strings.Count(logs.String(), "already running")
	kept := strings.Count(logs.String(), "re-sending the kept answer")
	t.Logf("%d calls over %d links; resent while running: %d, resent after answered: %d", n, links, running, kept)

}

func TestGarbageFrame(t *testing.T) {
	be := newBackend(t, "tok", mcpws.Options{})
	r := &runs{}
	run(t, connect.Options{URL: be.url(), Token: "tok", Server: testServer(r)})
	l := be.next(t)
	if _, err := handshake(l, "i1"); err != nil {
		t.Fatal(err)
	}
	if err := l.WriteFrame([]byte("this is { not json")); err != nil {
		t.Fatal(err)
	}
	f, err := read(l)
	if err != nil || f.Error == nil || f.Error.Code != -32700 {
		t.Fatalf("after garbage: %+v %v, want a -32700 error", f, err)
	}
	_ = send(l, "c1", "tools/call", callParams("k", 1))
	f, err = read(l)
	if err != nil || f.ID != "c1" || f.Error != nil {
		t.Fatalf("link did not survive the garbage frame: %+v %v", f, err)
	}
}

func TestOversizedFrame(t *testing.T) {
	be := newBackend(t, "tok", mcpws.Options{})
	r := &runs{}
	_, states, _ := run(t, connect.Options{URL: be.url(), Token: "tok", Server: testServer(r), Link: mcpws.Options{MaxFrame: 1024}})
	l := be.next(t)
	if _, err := handshake(l, "i1"); err != nil {
		t.Fatal(err)
	}
	big := fmt.Sprintf(`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"slow","arguments":{"key":%q}}}`, strings.Repeat("x", 4096))
	_ = l.WriteFrame([]byte(big))
	_, err := l.ReadFrame()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseMessageTooBig {
		t.Fatalf("after an oversized frame: %v, want close 1009", err)
	}
	waitState(t, states, connect.StateDown)
	l2 := be.next(t) // the desktop re-dials
	if _, err := handshake(l2, "i2"); err != nil {
		t.Fatal(err)
	}
	if r.get(strings.Repeat("x", 4096)) != 0 {
		t.Error("the oversized request ran")
	}
}

func waitState(t *testing.T, ch chan connect.State, want connect.State) {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case s := <-ch:
			if s == want {
				return
			}
		case <-timeout:
			t.Fatalf("state %v not reached", want)
		}
	}
}

func TestWrongTokenOnce(t *testing.T) {
	be := newBackend(t, "tok", mcpws.Options{})
	_, _, done := run(t, connect.Options{URL: be.url(), Token: "wrong", Server: testServer(&runs{}), Once: true})
	select {
	case err := <-done:
		if !errors.Is(err, connect.ErrDisconnected) || !strings.Contains(err.Error(), "401") {
			t.Fatalf("Run = %v, want a disconnect naming 401", err)
		}
		if strings.Contains(err.Error(), "wrong") {
			t.Error("the token leaked into the error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run with Once did not return")
	}
}

func TestOnceExitsOnDisconnect(t *testing.T) {
	be := newBackend(t, "tok", mcpws.Options{})
	_, _, done := run(t, connect.Options{URL: be.url(), Token: "tok", Server: testServer(&runs{}), Once: true})
	l := be.next(t)
	if _, err := handshake(l, "i1"); err != nil {
		t.Fatal(err)
	}
	l.Close()
	select {
	case err := <-done:
		if !errors.Is(err, connect.ErrDisconnected) {
			t.Fatalf("Run = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run with Once did not return")
	}
}

// TestDeadPeer: a backend that stops reading (so never answers pings) is declared dead by the
// desktop's pings (goal: within two ping intervals; the time is logged, and waitState's deadline
// catches a desktop that never notices), and the desktop re-dials.
func TestDeadPeer(t *testing.T) {
	be := newBackend(t, "tok", mcpws.Options{PingInterval: time.Hour})
	const iv = 100 * time.Millisecond
	_, states, _ := run(t, connect.Options{URL: be.url(), Token: "tok", Server: testServer(&runs{}), Link: mcpws.Options{PingInterval: iv}})
	l := be.next(t)
	if _, err := read(l); err != nil { // register; then the backend goes silent (reads nothing)
		t.Fatal(err)
	}
	waitState(t, states, connect.StateUp)
	start := time.Now()
	waitState(t, states, connect.StateDown)
	t.Logf("dead peer detected after %v (ping interval %v)", time.Since(start), iv)
	be.next(t)
}

func TestOptionsErrors(t *testing.T) {
	srv := testServer(&runs{})
	for _, tc := range []struct {
		opts connect.Options
		want string
	}{
		{connect.Options{URL: "ws://h/x", DeviceID: "d"}, "Server"},
		{connect.Options{URL: "ws://h/x", Server: srv}, "device-id"},
		{connect.Options{URL: "http://h/x", DeviceID: "d", Server: srv}, "ws://"},
	} {
		if _, err := connect.New(tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want an error naming %q", tc.opts, err, tc.want)
		}
	}
}
