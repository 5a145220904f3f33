package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rpa-dev/rpa/internal/authoring/importer"
	"github.com/rpa-dev/rpa/lang/diag"
)

func init() {
	register(command{
		name:    "import",
		usage:   "rpa import FILE [-o OUT.flow|DIR] [--force] [--strict] [--format chrome|side|json]",
		summary: "turn a Chrome Recorder JSON, a Selenium IDE .side project or a JSON flow into .flow files",
		run:     runImport,
	})
}

// runImport imports FILE. One flow goes to stdout, or to -o OUT (a .flow
// file, or a folder); the flows of a .side project (one per test) need -o
// DIR and are written as DIR/NAME.flow. Diagnostics (what could not be
// expressed, positioned in FILE) go to stderr. Every flow written has been
// loaded back with lang.Load; a .flow that exists already is refused
// (nothing written) unless --force. Exit 0 when written (warnings
// allowed), 1 when the import has errors (--strict: any warning) and
// nothing was written, 2 on usage, an unreadable file or an existing
// .flow.
func runImport(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("import", stderr)
	out := fs.String("o", "", "output: a .flow file, or a folder (one NAME.flow per flow)")
	strict := fs.Bool("strict", false, "anything that cannot be expressed is an error, and nothing is written")
	formatName := fs.String("format", "", "input format: chrome, side or json (default: detected)")
	force := fs.Bool("force", false, "replace a .flow that exists already (else it is refused, exit 2, nothing written)")
	pos, done, code := parseArgs(fs, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		fs.Usage()
		return exitUsage
	}
	in := pos[0]
	format, err := importer.ParseFormat(*formatName)
	if err != nil {
		return fail(stderr, exitUsage, "import", err)
	}
	opts := importer.Options{Strict: *strict, Format: format}
	src, err := readAtMost(in, importer.MaxInput+1) // a larger file: Import says it is too large
	if err != nil {
		return fail(stderr, exitUsage, "import", err)
	}
	flows, ds := importer.Import(in, src, opts)
	// src with the recorded passwords as *** (the quoted lines)
	source := importer.Shown(in, src, opts)
	if err := diag.Render(stderr, ds, source); err != nil {
		fmt.Fprintf(stderr, "rpa import: %v\n", err)
	}
	if ds.HasErrors() {
		fmt.Fprintf(stderr, "rpa import: %s: %s; nothing written\n", in, diag.Plural(ds.Count(diag.Error), "error"))
		return exitFailed
	}
	if len(flows) == 0 {
		fmt.Fprintf(stderr, "rpa import: %s: no flow in it\n", in)
		return exitFailed
	}
	dest, err := importer.Write(stdout, *out, in, flows, *force)
	switch te := (*importer.TextError)(nil); {
	case errors.As(err, &te):
		return internalError(stderr, "import", "the flow imported from "+in, te)
	case errors.As(err, new(*importer.OutputError)):
		return fail(stderr, exitUsage, "import", err)
	case err != nil:
		return fail(stderr, exitFailed, "import", err)
	}
	names := make([]string, len(flows))
	for i, f := range flows {
		names[i] = f.Name
	}
	fmt.Fprintf(stderr, "imported %s (%s) from %s to %s, %s\n", diag.Plural(len(flows), "flow"), strings.Join(names, ", "), in, dest, diag.Plural(ds.Count(diag.Warning), "warning"))
	return exitOK
}

// internalError reports a flow rpa made that does not check (a bug: its
// text and diagnostics) and returns exitFailed.
func internalError(stderr io.Writer, cmd, what string, te *importer.TextError) int {
	fmt.Fprintf(stderr, "rpa %s: internal error: %s does not check:\n", cmd, what)
	diag.Render(stderr, te.Diag, func(string) []byte { return te.Text })
	return exitFailed
}

// readAtMost reads the file at path, at most its first n bytes (a file of
// gigabytes is not read whole to be refused).
func readAtMost(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}
