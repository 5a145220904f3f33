package rod

// Gone reports, without a DevTools round trip, that the browser has
// ended: its process exited or its DevTools connection closed
// (drivers.GoneReporter).
func (b *browser) Gone() bool {
	if b.isClosed() {
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
