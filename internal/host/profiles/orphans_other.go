//go:build !linux && !windows

package profiles

// endOrphans finds no orphans outside Linux (no /proc to search).
func endOrphans(dir string) int { return 0 }
