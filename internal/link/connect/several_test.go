package connect_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/link/mcpws"
)

// A desktop given several replicas' addresses links to the first that answers and, when its
// link ends (a replica draining with 1012, or dying), dials the next at once: never the Backoff
// wait (an hour here) while an address is left to try.
func TestSeveralAddresses(t *testing.T) {
	dead := httptest.NewServer(nil)
	deadURL := "ws" + strings.TrimPrefix(dead.URL, "http") + "/ws"
	dead.Close()
	b2 := newBackend(t, "tok", mcpws.Options{})
	b3 := newBackend(t, "tok", mcpws.Options{})
	var r runs
	_, states, _ := run(t, connect.Options{
		URL: deadURL, More: []string{b2.url(), b3.url()}, Token: "tok", Server: testServer(&r),
		Backoff:      connect.Backoff{Min: time.Hour, Max: time.Hour, Grace: -1},
		RelinkJitter: 20 * time.Millisecond,
	})
	l2 := b2.next(t) // the dead first address was skipped at once
	if reg, err := handshake(l2, "i1"); err != nil || reg.DeviceID != "dev1" {
		t.Fatalf("link on the second address: %+v %v", reg, err)
	}
	waitState(t, states, connect.StateUp)
	// The replica drains: "service restart". The desktop moves to the next address.
	l2.CloseWith(connect.CloseRestart, "the gateway is restarting")
	l3 := b3.next(t)
	if _, err := handshake(l3, "i2"); err != nil {
		t.Fatal(err)
	}
	// That replica dies (no close frame): the next address is the dead one, then b2 again.
	l3.Abort()
	l2b := b2.next(t)
	if _, err := handshake(l2b, "i3"); err != nil {
		t.Fatal(err)
	}
}

func TestSplitURLs(t *testing.T) {
	first, more := connect.SplitURLs([]string{"ws://g1/ws ws://g2/ws,ws://g3/ws", "", "wss://g4/ws"})
	if first != "ws://g1/ws" || strings.Join(more, " ") != "ws://g2/ws ws://g3/ws wss://g4/ws" {
		t.Fatalf("SplitURLs = %q %q", first, more)
	}
	if err := (connect.Options{URL: "ws://g1/ws", More: []string{"http://g2/ws?token=s3cret"}, DeviceID: "d"}).Check(); err == nil ||
		!strings.Contains(err.Error(), "http://g2/ws?…") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("Check of a bad second address: %v", err)
	}
}
