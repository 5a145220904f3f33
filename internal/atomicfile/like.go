package atomicfile

import "os"

// WriteLike is Write with the permission bits of the file like (0644 when
// like cannot be read): a file rewritten in place, or written next to the
// one it was made from, keeps its mode.
func WriteLike(path, like string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(like); err == nil {
		mode = st.Mode().Perm()
	}
	return Write(path, data, mode)
}
