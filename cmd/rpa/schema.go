package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
	"github.com/rpa-dev/rpa/lang"
)

func init() {
	register(command{
		name:    "schema",
		usage:   "rpa schema FILE",
		summary: "print the MCP tool definition of one flow as JSON",
		run:     runSchema,
	})
}

// runSchema prints the MCP tool definition of FILE's flow as indented
// JSON. Exit 0, 1 when the flow does not load or has no valid schema, 2 on
// usage or a path that is not a readable flow file.
func runSchema(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("schema", stderr)
	if done, code := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	if !flowFileArg("schema", fs.Arg(0), stderr) {
		return exitUsage
	}
	f, ds := lang.LoadFile(fs.Arg(0))
	if f == nil {
		for _, d := range ds {
			fmt.Fprintln(stderr, d.OneLine())
		}
		return exitFailed
	}
	def, err := mcpserver.FlowTool(f)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", fs.Arg(0), err)
		return exitFailed
	}
	out, err := json.MarshalIndent(def, "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "rpa schema: %v\n", err)
		return exitFailed
	}
	fmt.Fprintln(stdout, string(out))
	return exitOK
}
