package flowserver

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/host/home"
	"github.com/rpa-dev/rpa/internal/host/localctl"
	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
)

// TestAnnounce: while it serves, the process is in the local control
// registry with what it serves and its link's gateway (credentials and
// query left out); the entry goes when the serving ends.
func TestAnnounce(t *testing.T) {
	s, err := New(Config{FlowsDir: flowsDir(t)}, mcpserver.Options{}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	home := home.Dir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeHTTP(ctx, ln, "tok") }()
	var e localctl.Entry
	for end := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		l, _ := localctl.List(home, localctl.KindServe)
		if len(l) == 1 {
			e = l[0]
			break
		}
		if time.Now().After(end) {
			t.Fatal("never announced")
		}
	}
	if e.PID != os.Getpid() || len(e.Serves) != 1 || e.Serves[0] != "MCP over Streamable HTTP at "+ln.Addr().String() {
		t.Errorf("entry %+v", e)
	}
	// A link's state shows with the gateway's address, never its secrets.
	on := s.linkState("wss://user:pw@gw.example/link?token=abc", nil)
	on(connect.StateDialing)
	l, _ := localctl.List(home, localctl.KindServe)
	if len(l) != 1 || l[0].Gateway != "wss://gw.example/link" || l[0].GatewayState != connect.StateDialing.String() {
		t.Errorf("after a link state: %+v", l)
	}
	raw, _ := os.ReadFile(localctl.Dir(home) + "/serve-" + itoa(os.Getpid()) + ".json")
	if strings.Contains(string(raw), "pw") || strings.Contains(string(raw), "abc") || strings.Contains(string(raw), `"tok"`) {
		t.Errorf("the entry holds a secret: %s", raw)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if l, _ := localctl.List(home, ""); len(l) != 0 {
		t.Errorf("still announced after serving: %+v", l)
	}
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
