//go:build !linux && !windows

package drivers

// endOrphans finds no orphans outside Linux (no /proc to search).
func endOrphans(dir string) int { return 0 }

// isZombie is false where there is no /proc to ask.
func isZombie(pid int) bool { return false }
