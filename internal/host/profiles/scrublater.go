package profiles

import (
	"path/filepath"
	"strings"

	"github.com/rpa-dev/rpa/internal/host/home"
)

// ScrubAfter prepares the scrub of a persistent profile folder dir of the
// secrets one run used (Scrub: History, cache and session files, since
// Chromium keeps every address it opened): it marks dir
// (MarkDirty) and returns the func that scrubs it and clears the
// mark, to call once the run's browser has closed. While the mark stands, a
// kill of this process leads the next claim of the folder to wipe its
// history-like files (Claim). Call it after the launch
// claimed dir. A temporary profile (under $RPA_HOME/tmp, removed whole
// after the run), dir "" (an attached browser's profile is not ours) or no
// secret give a scrub that does nothing. markErr is the error of marking.
func ScrubAfter(dir string, secrets []string) (scrub func() error, markErr error) {
	none := func() error { return nil }
	if dir == "" || len(secrets) == 0 || strings.HasPrefix(dir, filepath.Join(home.Dir(), "tmp")+string(filepath.Separator)) {
		return none, nil
	}
	markErr = MarkDirty(dir)
	return func() error {
		if _, err := Scrub(dir, secrets); err != nil {
			return err
		}
		return ClearDirty(dir)
	}, markErr
}
