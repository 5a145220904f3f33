package home

import (
	"strconv"

	"golang.org/x/sys/windows"
)

// ProcessStart returns a mark of when process pid started: the same for
// the whole life of the process, different for a later process given the
// same pid. On Windows it is the process's creation time
// (GetProcessTimes, 100 ns units). ok is false when it cannot be read.
func ProcessStart(pid int) (mark string, ok bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return "", false
	}
	defer windows.CloseHandle(h)
	var created, exited, kernel, user windows.Filetime
	if windows.GetProcessTimes(h, &created, &exited, &kernel, &user) != nil {
		return "", false
	}
	return strconv.FormatInt(created.Nanoseconds(), 10), true
}
