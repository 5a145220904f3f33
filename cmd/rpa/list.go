package main

import (
	"fmt"
	"github.com/rpa-dev/rpa/flowserver"
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

// runList prints the tools of DIR's flows (listFlows); the errors of files
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
	code := listFlows(stdout, stderr, flows)
	for _, d := range ds {
		if d.Severity == diag.Error {
			fmt.Fprintln(stderr, d.OneLine())
			code = exitFailed
		}
	}
	return code
}

// listFlows prints one line per tool: name, arguments (required ones
// marked *), description, on w; a flow without a valid schema is reported
// on stderr instead and makes the result exitFailed.
func listFlows(w, stderr io.Writer, flows map[string]*lang.Flow) int {
	names := make([]string, 0, len(flows))
	for n := range flows {
		names = append(names, n)
	}
	sort.Strings(names)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tARGUMENTS\tDESCRIPTION")
	code := exitOK
	for _, n := range names {
		f := flows[n]
		if _, err := mcpserver.InputSchema(f.File); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", f.Path, err)
			code = exitFailed
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
