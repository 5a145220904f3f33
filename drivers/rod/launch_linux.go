package rod

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// startJob is one process start handed to the starter thread.
type startJob struct {
	cmd  *exec.Cmd
	done chan error
}

var (
	starterOnce sync.Once
	starts      chan startJob
)

// StartBrowser starts cmd so that the kernel kills it (SIGKILL) when this
// process dies, however it dies (PR_SET_PDEATHSIG). The death signal
// fires when the thread that forked the child exits, not the process, so
// every browser is started from one goroutine locked to its OS thread for
// the life of the process (the Go runtime never ends a thread whose
// goroutine stays locked). Chromium's helpers end when their main process
// does.
func StartBrowser(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	starterOnce.Do(func() {
		starts = make(chan startJob)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the process
			for j := range starts {
				j.done <- j.cmd.Start()
			}
		}()
	})
	j := startJob{cmd: cmd, done: make(chan error, 1)}
	starts <- j
	return <-j.done
}
