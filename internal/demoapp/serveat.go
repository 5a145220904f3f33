package demoapp

import (
	"context"
	"net"
)

// ServeUntil serves the app on addr until ctx ends (`rpa demo --serve
// ADDR`, for trying flows with `rpa run`); ready is called with the
// server's base URL once it listens. The only error is an address that
// cannot be listened on, at once.
func ServeUntil(ctx context.Context, addr string, opts Options, ready func(url string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := Serve(ln, opts)
	ready(srv.URL)
	<-ctx.Done()
	_ = srv.Close() // waits up to 2 s for open requests; the process is ending
	return nil
}
