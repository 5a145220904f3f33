package mcpserver

import "os/exec"

// setProcessGroup is a no-op on Windows: exec.CommandContext kills the
// process itself.
func setProcessGroup(cmd *exec.Cmd) {}
