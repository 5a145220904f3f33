package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/diag"
)

func init() {
	register(command{
		name:    "check",
		usage:   "rpa check FILE|DIR... [--oneline] [--json]",
		summary: "parse and check flows without a browser: every problem with file:line:col, source line and caret",
		run:     runCheck,
	})
}

// runCheck checks each FILE and each DIR (as a folder: calls, with: keys
// and duplicate names are checked). A FILE's `call` targets are resolved among the flows of its
// folder (lang.LoadFile). Diagnostics go to stderr, errors first then
// warnings; a summary line goes to stdout (with --json only the JSON of
// the counts and diagnostics, diag.Item, goes to stdout). Exit 0 when there is no error
// (warnings do not fail), 1 on check errors, 2 on usage, an unreadable
// path or a DIR with no flow file.
func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("check", stderr)
	oneline := fs.Bool("oneline", false, "one line per diagnostic (file:line:col: severity: summary; detail)")
	asJSON := fs.Bool("json", false, `print {"clean","errors","warnings","diagnostics":[{"file","line","col","severity","summary","detail"}]} instead`)
	if done, code := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	flows, all, err := lang.CheckPaths(fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "rpa check: %v\n", err)
		return exitUsage
	}
	errs := all.Count(diag.Error)
	if *asJSON {
		b, _ := json.MarshalIndent(map[string]any{"clean": flows, "errors": errs, "warnings": len(all) - errs, "diagnostics": all.Items()}, "", "  ")
		fmt.Fprintln(stdout, string(b))
	} else if *oneline {
		for _, d := range all {
			fmt.Fprintln(stderr, d.OneLine())
		}
	} else if err := diag.Render(stderr, all, nil); err != nil {
		fmt.Fprintf(stderr, "rpa check: %v\n", err)
	}
	if !*asJSON {
		fmt.Fprintf(stdout, "%s, %s, %s\n", diag.Plural(flows, "clean flow"), diag.Plural(errs, "error"), diag.Plural(len(all)-errs, "warning"))
	}
	if errs > 0 {
		return exitFailed
	}
	return exitOK
}

// flowFileArg reports whether path names a readable flow file
// (lang.CheckFlowFile); when not, it says why on stderr as "rpa CMD: ..."
// and the caller exits 2.
func flowFileArg(cmd, path string, stderr io.Writer) bool {
	if err := lang.CheckFlowFile(path); err != nil {
		fmt.Fprintf(stderr, "rpa %s: %v\n", cmd, err)
		return false
	}
	return true
}
