package home

import (
	"os"
	"strconv"
	"strings"
)

// ProcessStart returns a mark of when process pid started: the same for
// the whole life of the process, different for a later process given the
// same pid. On Linux it is the starttime field of /proc/PID/stat (clock
// ticks after boot, proc(5)). ok is false when it cannot be read (no such
// process).
func ProcessStart(pid int) (mark string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses;
	// starttime is field 22, the 20th after comm.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return "", false
	}
	return f[19], true
}
