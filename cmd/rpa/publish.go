package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

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

var flowNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// parseInterleaved parses flags that may come after positional arguments
// (`rpa publish FILE --name N`).
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func runPublish(args []string) int {
	fs := flag.NewFlagSet("publish", flag.ContinueOnError)
	name := fs.String("name", "", "publish under this flow NAME (the tool is workflow_NAME)")
	desc := fs.String("description", "", "replace the flow's description")
	flows := fs.String("flows", "", "served folder (default $RPA_HOME/flows)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 {
		fmt.Fprintln(os.Stderr, "usage: rpa publish FILE [--name N] [--description D] [--flows DIR]")
		return 2
	}
	if *name != "" && !flowNameRE.MatchString(*name) {
		fmt.Fprintf(os.Stderr, "rpa publish: --name %q: want [a-z][a-z0-9_]*\n", *name)
		return 2
	}
	file := pos[0]
	if !flowFileArg("publish", file, os.Stderr) {
		return 2
	}
	f, ds := lang.LoadFile(file)
	if f == nil {
		for _, d := range ds {
			fmt.Fprintln(os.Stderr, d.OneLine())
		}
		return 1
	}
	src, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rpa publish: %v\n", err)
		return 2
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
			src = rewriteHeader(src, f.File, *name, *desc)
		} else {
			src = yamlflow.Write(f.File)
		}
		// What goes into the folder must load as is.
		if nf, ds := lang.Load(file, src); nf == nil {
			fmt.Fprintf(os.Stderr, "rpa publish: the renamed flow does not load: %v\n", ds)
			return 1
		}
	}
	dir := *flows
	if dir == "" {
		dir = defaultFlowsDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "rpa publish: %v\n", err)
		return 2
	}
	flowName := f.File.Name
	dest := filepath.Join(dir, flowName+ext)
	if other, err := findFlowFile(dir, flowName); err == nil && other != dest {
		fmt.Fprintf(os.Stderr, "rpa publish: %s already declares flow %q; unpublish it first or use --name\n", other, flowName)
		return 1
	}
	if err := writeAtomic(dest, src); err != nil {
		fmt.Fprintf(os.Stderr, "rpa publish: %v\n", err)
		return 2
	}
	fmt.Printf("published %s as workflow_%s (%s)\n", file, flowName, dest)
	return 0
}

// rewriteHeader replaces the name and/or description of a .flow header in
// place (from the NAME to the end of its line), keeping every other byte,
// comments included. Go string escapes are the DSL's.
func rewriteHeader(src []byte, f *ast.File, name, desc string) []byte {
	start, end := f.NameRange.Start.Offset, f.NameRange.End.Offset
	eol := end
	for eol < len(src) && src[eol] != '\n' {
		eol++
	}
	if name == "" {
		name = string(src[start:end])
	}
	rest := string(src[end:eol])
	if desc != "" {
		rest = " " + strconv.Quote(desc)
		if i := strings.Index(string(src[end:eol]), "#"); i >= 0 && !strings.Contains(string(src[end:end+i]), `"`) {
			rest += " " + string(src[end+i:eol]) // a trailing comment after a bare name
		}
	}
	out := append([]byte{}, src[:start]...)
	out = append(out, name+rest...)
	return append(out, src[eol:]...)
}

// writeAtomic writes data to a temporary file next to path and renames it
// over path, so a watcher never sees half a file.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".publish-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

var errNoFlow = errors.New("no such flow")

// findFlowFile returns the file of dir whose header declares flow name
// (parsing only, so a flow that no longer checks can still be found).
func findFlowFile(dir, name string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") || !lang.IsFlowFile(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		src, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if f, _ := lang.Parse(p, src); f != nil && f.Name == name {
			return p, nil
		}
	}
	return "", errNoFlow
}

func runUnpublish(args []string) int {
	fs := flag.NewFlagSet("unpublish", flag.ContinueOnError)
	flows := fs.String("flows", "", "served folder (default $RPA_HOME/flows)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 {
		fmt.Fprintln(os.Stderr, "usage: rpa unpublish NAME [--flows DIR]")
		return 2
	}
	name := strings.TrimPrefix(pos[0], "workflow_")
	dir := *flows
	if dir == "" {
		dir = defaultFlowsDir()
	}
	p, err := findFlowFile(dir, name)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rpa unpublish: flow %q is not in %s\n", name, dir)
		return 1
	}
	if err := os.Remove(p); err != nil {
		fmt.Fprintf(os.Stderr, "rpa unpublish: %v\n", err)
		return 2
	}
	fmt.Printf("unpublished workflow_%s (%s)\n", name, p)
	return 0
}
