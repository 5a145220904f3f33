package rod

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// attachPipes gives cmd the DevTools pipes as two inherited handles named
// on its command line (--remote-debugging-io-pipes=READ,WRITE: an
// inherited handle has the same value in the child) and returns this end,
// and a function that closes the browser's ends here once it started.
// Only these two handles are inherited (Go passes an explicit handle list).
func attachPipes(cmd *exec.Cmd) (*pipeConn, func(), error) {
	childR, parentW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	parentR, childW, err := os.Pipe()
	if err != nil {
		childR.Close()
		parentW.Close()
		return nil, nil, err
	}
	closeAll := func() { childR.Close(); childW.Close(); parentR.Close(); parentW.Close() }
	for _, f := range []*os.File{childR, childW} {
		if err := windows.SetHandleInformation(windows.Handle(f.Fd()), windows.HANDLE_FLAG_INHERIT, windows.HANDLE_FLAG_INHERIT); err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("cdp pipe: %w", err)
		}
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles,
		syscall.Handle(childR.Fd()), syscall.Handle(childW.Fd()))
	cmd.Args = append(cmd.Args, "--remote-debugging-pipe",
		fmt.Sprintf("--remote-debugging-io-pipes=%d,%d", childR.Fd(), childW.Fd()))
	return newPipeConn(parentW, parentR), func() { childR.Close(); childW.Close() }, nil
}
