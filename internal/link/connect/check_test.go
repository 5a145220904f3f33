package connect

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestOptionsCheck(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{URL: "ws://h/ws", DeviceID: "d"}, ""},
		{Options{URL: "wss://h:8/x", DeviceID: "d"}, ""},
		{Options{URL: "http://h/ws", DeviceID: "d"}, "must be ws://"},
		{Options{URL: "ws:///ws", DeviceID: "d"}, "must be ws://"},
		{Options{URL: "ws://h/ws", DeviceID: " "}, "--device-id is required"},
	} {
		err := c.o.Check()
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}

// TestTokenInClearWarned: a token sent over ws:// to another machine is
// named at start (it went unencrypted without a word); loopback and wss://
// are not, nor a link without a token.
func TestTokenInClearWarned(t *testing.T) {
	var logs strings.Builder
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	_, err := New(Options{URL: "ws://10.1.2.3:8790/ws", More: []string{"wss://gw.example/ws", "ws://127.0.0.1:8790/ws", "ws://localhost/ws", "ws://[::1]:1/ws"},
		DeviceID: "d", Token: "tok", Server: srv, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "unencrypted") || !strings.Contains(logs.String(), "10.1.2.3") ||
		strings.Contains(logs.String(), "gw.example") || strings.Contains(logs.String(), "127.0.0.1") || strings.Contains(logs.String(), "localhost") {
		t.Errorf("warning: %s", logs.String())
	}
	if got := (Options{URL: "ws://10.1.2.3/ws"}).InClear(); got != nil {
		t.Errorf("no token: %v", got)
	}
}
