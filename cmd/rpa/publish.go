package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rpa-dev/rpa/internal/atomicfile"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/yamlflow"
)

func init() {
	register(command{
		name:    "publish",
		usage:   "rpa publish FILE [--name N] [--description D] [--flows DIR]",
		summary: "check a flow and put it in the served folder (default $RPA_HOME/flows)",
		run:     runPublish,
	})
	register(command{
		name:    "unpublish",
		usage:   "rpa unpublish NAME [--flows DIR]",
		summary: "remove a flow from the served folder",
		run:     runUnpublish,
	})
}

// runPublish checks FILE and writes it (renamed with --name, described
// with --description) into the served folder, atomically, so a watching
// server never reads half a flow. Exit 0 published, 1 when the flow does
// not load (there: its `call` targets are resolved in the served folder),
// would break a flow of the folder that calls it, or its NAME is taken by
// another file, 2 on usage.
func runPublish(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("publish", stderr)
	name := fs.String("name", "", "publish under this flow NAME (the tool is workflow_NAME)")
	desc := fs.String("description", "", "replace the flow's description")
	flows := fs.String("flows", "", "served folder (default $RPA_HOME/flows)")
	pos, done, code := parseArgs(fs, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		fs.Usage()
		return exitUsage
	}
	if *name != "" && !ast.IsFlowName(*name) {
		fmt.Fprintf(stderr, "rpa publish: --name %q: want [a-z][a-z0-9_]*\n", *name)
		return exitUsage
	}
	file := pos[0]
	if !flowFileArg("publish", file, stderr) {
		return exitUsage
	}
	f, ds := lang.LoadFile(file)
	if f == nil {
		for _, d := range ds {
			fmt.Fprintln(stderr, d.OneLine())
		}
		return exitFailed
	}
	src, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "rpa publish: %v\n", err)
		return exitUsage
	}
	ext := strings.ToLower(filepath.Ext(file))
	if *name != "" || *desc != "" {
		if *name != "" {
			f.File.Name = *name
		}
		if *desc != "" {
			f.File.Description = *desc
		}
		if ext == ".flow" {
			src = lang.SetHeader(src, f.File, *name, *desc)
		} else {
			src = yamlflow.Write(f.File)
		}
		// What goes into the folder must load as is.
		if nf, ds := lang.Load(file, src); nf == nil {
			fmt.Fprintf(stderr, "rpa publish: the renamed flow does not load: %v\n", ds)
			return exitFailed
		}
	}
	dir := *flows
	if dir == "" {
		dir = defaultFlowsDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "rpa publish: %v\n", err)
		return exitUsage
	}
	flowName := f.File.Name
	dest := filepath.Join(dir, flowName+ext)
	if other, err := lang.FindFlow(dir, flowName); err == nil && other != dest {
		fmt.Fprintf(stderr, "rpa publish: %s already declares flow %q; unpublish it first or use --name\n", other, flowName)
		return exitFailed
	}
	// What goes into the folder must load there: its call targets are the
	// folder's flows, not those next to FILE, and the folder's flows that
	// call it must still load.
	if nf, broken, ds := lang.LoadInFolder(dest, src); nf == nil || len(broken) > 0 {
		if nf == nil {
			fmt.Fprintf(stderr, "rpa publish: %s would not load in %s:\n", file, dir)
		} else {
			fmt.Fprintf(stderr, "rpa publish: with %s in %s, %s would stop loading:\n", file, dir, strings.Join(broken, ", "))
		}
		for _, d := range ds {
			fmt.Fprintln(stderr, d.OneLine())
		}
		return exitFailed
	}
	if err := atomicfile.Write(dest, src, 0o600); err != nil {
		fmt.Fprintf(stderr, "rpa publish: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "published %s as workflow_%s (%s)\n", file, flowName, dest)
	return exitOK
}

// runUnpublish removes the file of flow NAME (or workflow_NAME) from the
// served folder. Exit 0 removed, 1 when no file declares it, 2 on usage.
func runUnpublish(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("unpublish", stderr)
	flows := fs.String("flows", "", "served folder (default $RPA_HOME/flows)")
	pos, done, code := parseArgs(fs, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		fs.Usage()
		return exitUsage
	}
	name := strings.TrimPrefix(pos[0], "workflow_")
	dir := *flows
	if dir == "" {
		dir = defaultFlowsDir()
	}
	p, err := lang.FindFlow(dir, name)
	if err != nil {
		fmt.Fprintf(stderr, "rpa unpublish: flow %q is not in %s\n", name, dir)
		return exitFailed
	}
	if err := os.Remove(p); err != nil {
		fmt.Fprintf(stderr, "rpa unpublish: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "unpublished workflow_%s (%s)\n", name, p)
	return exitOK
}
