package main

import (
	"fmt"
	"io"

	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/diag"
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
	code := exitOK
	for _, path := range fs.Args() {
		c, src, ds, err := lang.FormatFile(path, *to)
		if err != nil {
			return fail(stderr, exitUsage, "fmt", err)
		}
		if ds.HasErrors() {
			diag.Render(stderr, ds, func(string) []byte { return src })
			code = exitFailed
			continue
		}
		for _, n := range c.Notes {
			fmt.Fprintf(stderr, "rpa fmt: %s\n", n)
		}
		if !*write {
			stdout.Write(c.Out)
			continue
		}
		if wrote, err := lang.WriteFormatted(c, path, src); err != nil {
			return fail(stderr, exitUsage, "fmt", err)
		} else if wrote && c.Dest != path {
			fmt.Fprintln(stdout, c.Dest)
		}
	}
	return code
}
