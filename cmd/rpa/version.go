package main

import (
	"fmt"
	"io"

	"github.com/rpa-dev/rpa/internal/buildinfo"
)

func init() {
	register(command{
		name:    "version",
		usage:   "rpa version [--json]",
		summary: "print the version, commit, build date, Go version and OS/arch of this binary",
		run:     runVersion,
	})
}

// runVersion prints buildinfo.Get(): one line, or with --json an object
// {"version","commit","date","modified","go","os","arch","license"}.
func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("version", stderr)
	asJSON := fs.Bool("json", false, "print a JSON object instead of one line")
	if done, code := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rpa version: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	in := buildinfo.Get()
	if *asJSON {
		_ = printJSON(stdout, in)
		return exitOK
	}
	fmt.Fprintln(stdout, in.String())
	return exitOK
}
