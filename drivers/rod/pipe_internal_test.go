package rod

import (
	"context"
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/cdp"
)

// TestPipeCallAfterBrowserGone: once the browser's end of the pipe closed
// (rod's client stopped reading), a call fails at once with a closed
// connection, even while another process of the dead browser keeps the
// pipe the calls are written to open. On the old code the message went
// into that pipe and the call waited for its ctx (profiles
// TestClosedConnectionIsKindBrowser: a navigation on a killed browser
// came back "timeout" after 30 s, 1 run in ~30).
func TestPipeCallAfterBrowserGone(t *testing.T) {
	toR, toW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromR, fromW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer toR.Close() // the browser's reading end, still open
	c := newPipeConn(toW, fromR)
	defer c.Close()
	cl := cdp.New().Start(c)
	fromW.Close() // the browser is gone
	for range cl.Event() {
	} // closed when the client's reader ended
	// 5 s: a hang guard; the call must fail without waiting
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = cl.Call(ctx, "", "Page.navigate", map[string]string{"url": "about:blank"})
	if !errors.Is(err, net.ErrClosed) || ctx.Err() != nil {
		t.Fatalf("call after the browser's end closed: %v (ctx %v), want a closed connection at once", err, ctx.Err())
	}
}
