// Package atomicfile writes a file so that a reader (a folder watcher, the
// next start after a kill) sees either the old content or the new, never
// half of it: the data goes to a temporary file in the same folder, is
// synced, and is renamed over the destination.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to path with permission bits perm (set as given, the
// umask does not apply). The temporary file is named
// .PATHBASE-* in path's folder and is removed on any error; an error leaves
// path as it was.
func Write(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, true)
}

// WriteNoSync is Write without the sync: a reader still sees the old
// content or the new, never half, but after a power cut the file may hold
// either, or nothing. For small notes whose loss is harmless and that are
// written on a hot path (an account lease's holder note: a sync costs
// milliseconds per call).
func WriteNoSync(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, false)
}

func write(path string, data []byte, perm os.FileMode, sync bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			tmp.Close()
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
