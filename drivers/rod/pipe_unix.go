//go:build !windows

package rod

import (
	"os"
	"os/exec"
)

// attachPipes gives cmd the DevTools pipes as its descriptors 3 (it
// reads) and 4 (it writes) and returns this end, and a function that
// closes the browser's ends here once it started (so its exit reads as
// the end of the pipe).
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
	cmd.ExtraFiles = []*os.File{childR, childW} // fds 3 and 4
	cmd.Args = append(cmd.Args, "--remote-debugging-pipe")
	return newPipeConn(parentW, parentR), func() { childR.Close(); childW.Close() }, nil
}
