package interp

import (
	"runtime"
	"strings"
)

// commandQuote quotes the values interpolated into an `exec` command
// string for the shell that will read it: sh -c (shellQuote), or cmd /C on
// Windows (cmdQuote).
var commandQuote = quoteFor(runtime.GOOS)

// quoteFor returns the quoting of a command string on goos.
func quoteFor(goos string) func(string) string {
	if goos == "windows" {
		return cmdQuote
	}
	return shellQuote
}

// cmdMeta are the characters cmd.exe treats specially on a command line.
const cmdMeta = `()%!^"<>&|`

// cmdQuote quotes s as one argument of a `cmd /C` command line: first as
// CommandLineToArgvW reads it (in double quotes, backslashes doubled
// before a quote, quotes escaped), then every cmd.exe metacharacter
// (quotes included) is escaped with ^, so cmd passes the argument through
// unchanged: no &, |, redirection or %VAR% / !VAR! expansion can happen.
func cmdQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; ; {
		n := 0
		for i < len(s) && s[i] == '\\' {
			i++
			n++
		}
		if i == len(s) {
			b.WriteString(strings.Repeat(`\`, 2*n))
			break
		}
		if s[i] == '"' {
			b.WriteString(strings.Repeat(`\`, 2*n+1))
		} else {
			b.WriteString(strings.Repeat(`\`, n))
		}
		b.WriteByte(s[i])
		i++
	}
	b.WriteByte('"')
	var out strings.Builder
	for _, r := range b.String() {
		if strings.ContainsRune(cmdMeta, r) {
			out.WriteByte('^')
		}
		out.WriteRune(r)
	}
	return out.String()
}
