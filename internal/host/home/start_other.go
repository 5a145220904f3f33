//go:build !linux && !windows

package home

// ProcessStart is not known where there is no /proc (macOS, the BSDs):
// ok is false and callers go by the pid alone.
func ProcessStart(pid int) (mark string, ok bool) { return "", false }
