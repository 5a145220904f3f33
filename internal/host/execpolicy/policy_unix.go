//go:build !windows

package execpolicy

import (
	"context"
	"os/exec"
	"syscall"
)

// setProcessGroup makes cmd the leader of a new process group and kills
// the whole group on cancellation, so `sh -c "sleep 100 &"` leaves nothing.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// shellCommand runs command with `sh -c`.
func shellCommand(ctx context.Context, command string) *exec.Cmd {
	return exec.CommandContext(ctx, "sh", "-c", command)
}
