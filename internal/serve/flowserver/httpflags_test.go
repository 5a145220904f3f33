package flowserver

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// TestHTTPFlags: the HTTP flags under the caller's names; the token from
// $RPA_TOKEN when none is given; a bad origin named; Listen binds loopback
// for a bare port.
func TestHTTPFlags(t *testing.T) {
	t.Setenv("RPA_TOKEN", "env-tok")
	parse := func(args ...string) (HTTP, error) {
		var h HTTP
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		h.Register(fs, "http", "serve on ADDR", "token")
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return h, h.Check()
	}
	h, err := parse("--http", "0", "--allow-origin", "https://app.example")
	if err != nil || len(h.Tokens) != 1 || h.Tokens[0] != "env-tok" || h.Addr != "0" || len(h.AllowOrigins) != 1 {
		t.Fatalf("%+v, %v", h, err)
	}
	ln, err := h.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if !strings.HasPrefix(ln.Addr().String(), "127.0.0.1:") {
		t.Errorf("bare port listens on %s", ln.Addr())
	}
	if h, _ := parse("--token", "flag-tok", "--token", "second"); len(h.Tokens) != 2 || h.Tokens[0] != "flag-tok" || h.Tokens[1] != "second" {
		t.Errorf("tokens %q", h.Tokens)
	}
	if _, err := parse("--allow-origin", "not a url"); err == nil {
		t.Error("a bad origin passed")
	}
}
