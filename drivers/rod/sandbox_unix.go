//go:build !windows

package rod

import "os"

// rootReason is "running as root" when this process runs as root.
func rootReason() string {
	if os.Geteuid() == 0 {
		return "running as root"
	}
	return ""
}
