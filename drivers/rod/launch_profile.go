package rod

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// running holds the profile folders (absolute) a browser of this process
// runs on.
var (
	runningMu sync.Mutex
	running   = map[string]bool{}
)

// profileHold is a launch's hold on its profile folder: rpa's lock file
// (drivers.ClaimProfile) plus this process's own record.
type profileHold struct {
	dir  string
	lock *drivers.ProfileLock
	once sync.Once
}

// claim readies dir for a new browser: a folder a browser of this process
// already uses, or one another rpa process holds, is refused with a
// KindBrowser error wrapping a *drivers.InUseError ("profile X is in use
// by rpa (pid N)"), before Chromium could print its own complaint. A
// browser left running on it by a killed rpa is ended and a stale
// SingletonLock removed.
func claim(dir string) (*profileHold, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, &core.Error{Kind: core.KindBrowser, Msg: "launch: user-data dir: " + err.Error(), Err: err}
	}
	runningMu.Lock()
	if running[abs] {
		runningMu.Unlock()
		ie := &drivers.InUseError{Profile: filepath.Base(abs), PID: os.Getpid()}
		return nil, &core.Error{Kind: core.KindBrowser, Msg: ie.Error(), Err: ie}
	}
	running[abs] = true
	runningMu.Unlock()
	lock, err := drivers.ClaimProfile(abs)
	if err != nil {
		runningMu.Lock()
		delete(running, abs)
		runningMu.Unlock()
		return nil, &core.Error{Kind: core.KindBrowser, Msg: err.Error(), Err: err}
	}
	return &profileHold{dir: abs, lock: lock}, nil
}

// release gives the folder back (once).
func (h *profileHold) release() {
	h.once.Do(func() {
		h.lock.Unlock()
		runningMu.Lock()
		delete(running, h.dir)
		runningMu.Unlock()
	})
}
