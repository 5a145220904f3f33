package rod

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// passPipes gives cmd the browser's ends of the DevTools pipes as two inherited handles named on
// its command line (--remote-debugging-io-pipes=READ,WRITE: an inherited handle has the same
// value in the child). Only these two handles are inherited (Go passes an explicit handle list).
func passPipes(cmd *exec.Cmd, childR, childW *os.File) error {
	for _, f := range []*os.File{childR, childW} {
		if err := windows.SetHandleInformation(windows.Handle(f.Fd()), windows.HANDLE_FLAG_INHERIT, windows.HANDLE_FLAG_INHERIT); err != nil {
			return err
		}
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles,
		syscall.Handle(childR.Fd()), syscall.Handle(childW.Fd()))
	cmd.Args = append(cmd.Args, "--remote-debugging-pipe",
		fmt.Sprintf("--remote-debugging-io-pipes=%d,%d", childR.Fd(), childW.Fd()))
	return nil
}
