package rod

import (
	"context"
	"sync"
)

// waitOn calls cond under mu until it is true, the owner is closed (*closed
// under mu; gone gives the error then) or ctx ends. Between calls it
// sleeps on *wake, the channel the owner closes and replaces on every
// recorded event (read under mu). It is the one wait loop of the browser
// and of a tab.
func waitOn(ctx context.Context, mu *sync.Mutex, closed *bool, wake *chan struct{}, gone func() error, cond func() bool) error {
	for {
		mu.Lock()
		ok := cond()
		c := *closed
		w := *wake
		mu.Unlock()
		if ok {
			return nil
		}
		if c {
			return gone()
		}
		select {
		case <-w:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
