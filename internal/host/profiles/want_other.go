//go:build !linux

package profiles

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/rpa-dev/rpa/internal/host/home"
)

// lockEvents signals (coalesced, on a channel with room for one) each
// change of the lock file path (its holder's unlock writes it), and, once
// a second, a holder that died (no file event tells of it here). stop
// ends the watch.
func lockEvents(path string) (<-chan struct{}, func(), error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, nil, err
	}
	if err := w.Add(filepath.Dir(path)); err != nil {
		_ = w.Close()
		return nil, nil, err
	}
	ch := make(chan struct{}, 1)
	quit, done := make(chan struct{}), make(chan struct{})
	signal := func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if filepath.Base(ev.Name) == filepath.Base(path) {
					signal()
				}
			case <-w.Errors:
			case <-tick.C:
				if pid := readPIDOnce(path); pid > 0 && !home.ProcessAlive(pid) {
					signal()
				}
			}
		}
	}()
	return ch, func() { close(quit); _ = w.Close(); <-done }, nil
}

// readPIDOnce reads the pid a lock file holds, 0 when unreadable or
// empty.
func readPIDOnce(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return max(n, 0)
}
