package profiles

import (
	"fmt"
	"os"
)

// ForRun is the browser user-data folder of one run (PROTOCOL.md): the
// persistent profile id (Dir, created when missing), or, when id is "", a
// temporary profile under $RPA_HOME that cleanup removes (Temp).
// cleanup is never nil when err is nil. The caller picks id: --profile,
// else the flow's `defaults profile:`.
func ForRun(id string) (dir string, cleanup func(), err error) {
	if id != "" {
		dir, err := Dir(id)
		if err != nil {
			return "", nil, fmt.Errorf("profile %q: %v", id, err)
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", nil, fmt.Errorf("profile %q: %w", id, err)
		}
		return dir, func() {}, nil
	}
	dir, cleanup, err = Temp()
	if err != nil {
		return "", nil, err // Temp names the temporary profile
	}
	return dir, cleanup, nil
}
