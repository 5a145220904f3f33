//go:build !linux && !windows

package rod

import "os/exec"

// StartBrowser starts cmd. Outside Linux and Windows nothing ties the
// browser to this process:
// a browser whose rpa process was killed is ended by the next launch on
// its profile (the caller's claim of the folder), or lives on.
func StartBrowser(cmd *exec.Cmd) error { return cmd.Start() }
