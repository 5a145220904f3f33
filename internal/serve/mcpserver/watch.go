package mcpserver

import (
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watcher reloads the flows folder after file events, debounced: a burst
// of events (an editor's write, rename and chmod) gives one reload, debounce
// after the last event. It watches the vault's folder too (vaultDir; its
// parent until it exists), so the account names offered as credential
// params' enums follow `rpa vault set|rm` (registry.vaultChanged).
type watcher struct {
	s        *Server
	fw       *fsnotify.Watcher
	debounce time.Duration
	vaultDir string
	done     chan struct{}
	wg       sync.WaitGroup
}

func newWatcher(s *Server, dir string, debounce time.Duration, vaultDir string) (*watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if err := fw.Add(dir); err != nil {
		fw.Close()
		return nil, err
	}
	w := &watcher{s: s, fw: fw, debounce: debounce, vaultDir: vaultDir, done: make(chan struct{})}
	if vaultDir != "" && fw.Add(vaultDir) != nil {
		_ = fw.Add(filepath.Dir(vaultDir)) // until the vault's folder is made
	}
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
			if w.vaultDir != "" && filepath.Dir(w.vaultDir) != filepath.Clean(w.s.opts.FlowsDir) && filepath.Dir(ev.Name) == filepath.Dir(w.vaultDir) {
				if ev.Name != w.vaultDir || ev.Op&fsnotify.Create == 0 {
					continue // another file of rpa's folder
				}
				_ = w.fw.Add(w.vaultDir) // the vault's folder was made
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
