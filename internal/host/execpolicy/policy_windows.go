package execpolicy

import (
	"context"
	"os/exec"
	"syscall"
)

// setProcessGroup is a no-op on Windows: exec.CommandContext kills the
// process itself.
func setProcessGroup(cmd *exec.Cmd) {}

// shellCommand runs command with `cmd /S /C "COMMAND"`, the command line
// written as is: Go's own argument quoting (backslash-escaped quotes) is
// not what cmd.exe reads, and would break the ^-escaped values interp
// interpolates into exec strings.
func shellCommand(ctx context.Context, command string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "cmd.exe")
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: `cmd.exe /S /C "` + command + `"`}
	return cmd
}
