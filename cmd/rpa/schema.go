package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/mcpserver"
)

func init() {
	register(command{
		name:    "schema",
		usage:   "rpa schema FILE",
		summary: "print the MCP tool definition of one flow as JSON",
		run:     runSchema,
	})
}

func runSchema(args []string) int {
	fs := flag.NewFlagSet("schema", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: rpa schema FILE")
		return 2
	}
	if !flowFileArg("schema", fs.Arg(0), os.Stderr) {
		return 2
	}
	f, ds := lang.LoadFile(fs.Arg(0))
	if f == nil {
		for _, d := range ds {
			fmt.Fprintln(os.Stderr, d.OneLine())
		}
		return 1
	}
	def, _, err := mcpserver.FlowTool(f.File)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", fs.Arg(0), err)
		return 1
	}
	out, err := json.MarshalIndent(def, "", "  ")
	if err != nil {
		fmt.Fprintf(os.Stderr, "rpa schema: %v\n", err)
		return 1
	}
	fmt.Println(string(out))
	return 0
}
