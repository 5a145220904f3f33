package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/diag"
	"github.com/rpa-dev/rpa/mcpserver"
)

func init() {
	register(command{
		name:    "list",
		usage:   "rpa list [DIR]",
		summary: "print the MCP tools a folder of flows serves (default $RPA_HOME/flows)",
		run:     runList,
	})
}

func runList(args []string) int {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 1 {
		fmt.Fprintln(os.Stderr, "usage: rpa list [DIR]")
		return 2
	}
	dir := defaultFlowsDir()
	if fs.NArg() == 1 {
		dir = fs.Arg(0)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		fmt.Fprintf(os.Stderr, "rpa list: %s is not a folder\n", dir)
		return 2
	}
	flows, ds := lang.LoadDir(dir)
	code := listFlows(os.Stdout, flows)
	for _, d := range ds {
		if d.Severity == diag.Error {
			fmt.Fprintln(os.Stderr, d.OneLine())
			code = 1
		}
	}
	return code
}

// listFlows prints one line per tool: name, arguments (required ones
// marked *), description. It returns 1 when a flow has no valid schema.
func listFlows(w io.Writer, flows map[string]*lang.Flow) int {
	names := make([]string, 0, len(flows))
	for n := range flows {
		names = append(names, n)
	}
	sort.Strings(names)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tARGUMENTS\tDESCRIPTION")
	code := 0
	for _, n := range names {
		f := flows[n]
		if _, err := mcpserver.InputSchema(f.File); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", f.Path, err)
			code = 1
			continue
		}
		var params []string
		for _, p := range f.File.Params {
			s := p.Name + ":" + p.Type.Name
			if p.Default == nil {
				s += "*"
			}
			params = append(params, s)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", mcpserver.ToolName(n), strings.Join(params, " "), f.File.Description)
	}
	tw.Flush()
	return code
}
