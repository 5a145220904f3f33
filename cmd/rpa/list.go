package main

import (
	"fmt"
	"io"
	"os"

	"github.com/rpa-dev/rpa/internal/serve/flowserver"

	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/diag"
)

func init() {
	register(command{
		name:    "list",
		usage:   "rpa list [DIR]",
		summary: "print the MCP tools a folder of flows serves (default $RPA_HOME/flows)",
		run:     runList,
	})
}

// runList prints the tools of DIR's flows (mcpserver.WriteTools); the errors of files
// that do not load follow on stderr, one line each. Exit 0, 1 when a flow
// has errors, 2 on usage or when DIR is not a folder.
func runList(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("list", stderr)
	if done, code := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 1 {
		fs.Usage()
		return exitUsage
	}
	dir := flowserver.DefaultFlowsDir()
	if fs.NArg() == 1 {
		dir = fs.Arg(0)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		fmt.Fprintf(stderr, "rpa list: %s is not a folder\n", dir)
		return exitUsage
	}
	flows, ds := lang.LoadDir(dir)
	code := exitOK
	for _, err := range mcpserver.WriteTools(stdout, flows) {
		fmt.Fprintln(stderr, err)
		code = exitFailed
	}
	for _, d := range ds {
		if d.Severity == diag.Error {
			fmt.Fprintln(stderr, d.OneLine())
			code = exitFailed
		}
	}
	return code
}
