package mcpserver

import (
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watcher reloads the flows folder after file events, debounced: a burst
// of events (an editor's write, rename and chmod) gives one reload, debounce
// after the last event.
type watcher struct {
	s        *Server
	fw       *fsnotify.Watcher
	debounce time.Duration
	done     chan struct{}
	wg       sync.WaitGroup
}

func newWatcher(s *Server, dir string, debounce time.Duration) (*watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if err := fw.Add(dir); err != nil {
		fw.Close()
		return nil, err
	}
	w := &watcher{s: s, fw: fw, debounce: debounce, done: make(chan struct{})}
	w.wg.Add(1)
	go w.loop()
	return w, nil
}

func (w *watcher) loop() {
	defer w.wg.Done()
	var timer *time.Timer
	var fire <-chan time.Time
	for {
		select {
		case <-w.done:
			if timer != nil {
				timer.Stop()
			}
			return
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			if ev.Op == fsnotify.Chmod {
				continue // no content change
			}
			if timer == nil {
				timer = time.NewTimer(w.debounce)
			} else {
				timer.Reset(w.debounce)
			}
			fire = timer.C
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			w.s.log.Warn("watching the flows folder", "error", err.Error())
			// Events may have been lost: rescan.
			w.s.reg.reload()
		case <-fire:
			fire = nil
			w.s.reg.reload()
		}
	}
}

func (w *watcher) close() error {
	close(w.done)
	err := w.fw.Close()
	w.wg.Wait()
	return err
}
