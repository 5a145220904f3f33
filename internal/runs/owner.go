package runs

import (
	"os"
	"strconv"
	"strings"
)

// self is this process.
func self() owner {
	return owner{pid: os.Getpid(), start: procStart(os.Getpid())}
}

// procStart is a process's start time in clock ticks since boot, read from
// /proc/PID/stat (Linux); 0 where that is not available. With the pid it
// tells a live owner from a new process that reused its pid.
func procStart(pid int) int64 {
	_, start := procStat(pid)
	return start
}

// procStat reads a process's state (field 3 of /proc/PID/stat: 'R', 'S',
// 'Z' for a zombie...) and start time (see procStart); 0, 0 where that is
// not available (not Linux, or no such process).
func procStat(pid int) (state byte, start int64) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0
	}
	s := string(b)
	// The command name (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); starttime is field 22.
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0
	}
	n, err := strconv.ParseInt(f[19], 10, 64)
	if err != nil {
		return 0, 0
	}
	return f[0][0], n
}

// ProcessNode names process pid as ThisProcess names this one ("pid:start").
func ProcessNode(pid int) string {
	return strconv.Itoa(pid) + ":" + strconv.FormatInt(procStart(pid), 10)
}

// alive reports whether the process o still runs: its pid exists and, when
// both start times are known, it started when o did.
func alive(o owner) bool {
	if o.pid <= 0 || !pidAlive(o.pid) {
		return false
	}
	state, now := procStat(o.pid)
	if state == 'Z' || state == 'X' {
		// Killed (kill -9) and not yet reaped by its parent: it runs no more, and a process
		// started right after it must take its work over now, not at the next restart.
		return false
	}
	if o.start != 0 && now != 0 && now != o.start {
		return false // the pid was reused
	}
	return true
}
