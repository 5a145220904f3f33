package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/rpa-dev/rpa/internal/atomicfile"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/diag"
	"github.com/rpa-dev/rpa/lang/format"
)

func init() {
	register(command{
		name:    "fmt",
		usage:   "rpa fmt [-w] [--to flow|yaml] FILE...",
		summary: "print flows in canonical form, or convert between .flow and YAML (comments kept in .flow)",
		run:     runFmt,
	})
}

// runFmt parses each FILE (nothing is resolved or checked) and prints its
// canonical text in the target form (--to, default the file's own form) to
// stdout, or with -w writes it: in place when the form is unchanged, else
// next to the file with the other extension (the original is kept).
// Formatting is idempotent. Comments survive .flow → .flow only; a note on
// stderr counts the comments that are not kept (.flow → YAML, and any YAML
// input). Exit 0 ok, 1 when a file does not parse, 2 on
// usage or an unreadable file.
func runFmt(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("fmt", stderr)
	write := fs.Bool("w", false, "write the result to the file instead of stdout")
	to := fs.String("to", "", "target form: flow or yaml (default: the file's own form)")
	if done, code := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	switch *to {
	case "", "flow", "yaml":
	default:
		fmt.Fprintf(stderr, "rpa fmt: --to must be flow or yaml, not %q\n", *to)
		return exitUsage
	}
	code := exitOK
	for _, path := range fs.Args() {
		if !lang.IsFlowFile(path) {
			fmt.Fprintf(stderr, "rpa fmt: %s: not a flow file (want .flow, .yaml or .yml)\n", path)
			return exitUsage
		}
		src, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "rpa fmt: %v\n", err)
			return exitUsage
		}
		f, ds := lang.Parse(path, src)
		if ds.HasErrors() || f == nil {
			diag.Render(stderr, ds, func(string) []byte { return src })
			code = exitFailed
			continue
		}
		c := format.Convert(path, src, f, *to)
		for _, n := range c.Notes {
			fmt.Fprintf(stderr, "rpa fmt: %s\n", n)
		}
		out, dest := c.Out, c.Dest
		if !*write {
			stdout.Write(out)
			continue
		}
		if dest == path && bytes.Equal(out, src) {
			continue
		}
		if err := writeFileKeepMode(dest, path, out); err != nil {
			fmt.Fprintf(stderr, "rpa fmt: %v\n", err)
			return exitUsage
		}
		if dest != path {
			fmt.Fprintln(stdout, dest)
		}
	}
	return code
}

// writeFileKeepMode writes data to dest atomically (a crash never leaves
// half a flow), with the mode of src.
func writeFileKeepMode(dest, src string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(src); err == nil {
		mode = st.Mode().Perm()
	}
	return atomicfile.Write(dest, data, mode)
}
