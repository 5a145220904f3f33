package stdlib_test

import (
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/core"
)

// TestOpenNeverLoads: open of a page whose server never answers fails with
// kind timeout naming the URL and the limit, whether it is the run's first
// tab or a later navigation.
func TestOpenNeverLoads(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // never answered
		}
	}()
	url := fmt.Sprintf("http://%s/never", ln.Addr())
	for name, src := range map[string]string{
		"first tab":  fmt.Sprintf("open %q timeout: 2s retries: 0", url),
		"navigation": fmt.Sprintf("open \"{{ base }}/basic.html\"\nopen %q timeout: 2s retries: 0", url),
	} {
		t.Run(name, func(t *testing.T) {
			res := flowRun(t, src, nil, core.Host{})
			if res.Success || res.Error.Kind != "timeout" || !strings.Contains(res.Error.Message, url+" did not load within 2s") {
				t.Fatalf("%+v", res.Error)
			}
		})
	}
}
