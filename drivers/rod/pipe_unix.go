//go:build !windows

package rod

import (
	"os"
	"os/exec"
)

// passPipes gives cmd the browser's ends of the DevTools pipes as its descriptors 3 (it reads)
// and 4 (it writes).
func passPipes(cmd *exec.Cmd, childR, childW *os.File) error {
	cmd.ExtraFiles = []*os.File{childR, childW} // fds 3 and 4
	cmd.Args = append(cmd.Args, "--remote-debugging-pipe")
	return nil
}
