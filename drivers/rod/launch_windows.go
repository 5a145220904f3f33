package rod

import (
	"os/exec"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// jobs holds the job object of each browser started here, by its command.
var jobs sync.Map // *exec.Cmd -> windows.Handle

// StartBrowser starts cmd inside a job object of its own that is set to
// kill every process in it when its last handle closes
// (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE). Only this process holds that
// handle, so when rpa dies, however it dies, Windows ends the browser and
// the helpers it started (they inherit the job): the counterpart of the
// parent-death signal on Linux (launch_linux.go). killProcessGroup ends
// the job at once. A helper spawned in the moment between the start and
// the assignment escapes the job; Chromium starts its helpers later than
// that. When the job cannot be made (a restricted session), the browser
// runs without it, as before: the next launch on its profile ends it
// (the caller's claim of the folder ends orphans).
func StartBrowser(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return nil
	}
	proc, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err != nil {
		_ = windows.CloseHandle(job)
		return nil
	}
	defer windows.CloseHandle(proc)
	if err := windows.AssignProcessToJobObject(job, proc); err != nil {
		_ = windows.CloseHandle(job)
		return nil
	}
	jobs.Store(cmd, job)
	return nil
}

// endJob kills every process of cmd's job and closes it (no-op without one).
func endJob(cmd *exec.Cmd) {
	if v, ok := jobs.LoadAndDelete(cmd); ok {
		job := v.(windows.Handle)
		_ = windows.TerminateJobObject(job, 1)
		_ = windows.CloseHandle(job)
	}
}
