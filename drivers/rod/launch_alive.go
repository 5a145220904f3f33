package rod

import (
	"errors"
	"io"
	"net"
	"strings"
)

// Gone reports, without a DevTools round trip, that the browser has
// ended: its process exited or its DevTools connection closed
// (drivers.GoneReporter).
func (b *browser) Gone() bool {
	if b.isClosed() {
		return true
	}
	// exitedCtx ends as soon as the process is reaped, before its group is
	// killed and its folder let go (exited closes after those).
	if b.exitedCtx != nil && b.exitedCtx.Err() != nil {
		return true
	}
	if b.exited != nil {
		select {
		case <-b.exited:
			return true
		default:
		}
	}
	return false
}

// connLost reports an error of a DevTools connection that is gone (the
// browser died or closed): such a failure is kind browser, never
// navigation, so the pool replaces the browser.
func connLost(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) ||
		strings.Contains(s, "use of closed network connection") ||
		strings.Contains(s, "broken pipe") || strings.Contains(s, "connection reset")
}
