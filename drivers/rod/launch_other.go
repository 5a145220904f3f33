//go:build !linux && !windows

package rod

import "os/exec"

// StartBrowser starts cmd. Outside Linux and Windows nothing ties the
// browser to this process:
// a browser whose rpa process was killed is ended by the next launch on
// its profile (drivers.ClaimProfile), or lives on.
func StartBrowser(cmd *exec.Cmd) error { return cmd.Start() }
