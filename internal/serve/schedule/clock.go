package schedule

import (
	"sort"
	"sync"
	"time"
)

// Clock is the scheduler's time: the system's (SystemClock) or, in tests,
// a FakeClock moved by hand, so no test sleeps.
type Clock interface {
	Now() time.Time
	// After delivers the time on the channel once d has passed.
	After(d time.Duration) <-chan time.Time
}

// SystemClock is the real time.
type SystemClock struct{}

// Now is time.Now.
func (SystemClock) Now() time.Time { return time.Now() }

// After is time.After.
func (SystemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// FakeClock is a Clock that moves only when told (Set, Advance); timers
// fire when it reaches their time. Safe for concurrent use.
type FakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
	// waiting is signalled each time a timer is added, so a test can wait
	// until the scheduler sleeps.
	waiting chan struct{}
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

// NewFakeClock is a clock standing at t.
func NewFakeClock(t time.Time) *FakeClock {
	return &FakeClock{now: t, waiting: make(chan struct{}, 1024)}
}

// Now is the clock's time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After is a channel that receives when the clock reaches now+d.
func (c *FakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, waiter{c.now.Add(d), ch})
	select {
	case c.waiting <- struct{}{}:
	default:
	}
	return ch
}

// Advance moves the clock by d (Set).
func (c *FakeClock) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

// Set moves the clock to t and fires the timers due by then, earliest
// first.
func (c *FakeClock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	var due, keep []waiter
	for _, w := range c.waiters {
		if !w.at.After(t) {
			due = append(due, w)
		} else {
			keep = append(keep, w)
		}
	}
	c.waiters = keep
	c.mu.Unlock()
	sort.Slice(due, func(i, j int) bool { return due[i].at.Before(due[j].at) })
	for _, w := range due {
		w.ch <- t
	}
}

// Waiting receives once for each timer set (After with d > 0).
func (c *FakeClock) Waiting() <-chan struct{} { return c.waiting }
