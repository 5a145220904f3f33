package runs

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/rpa-dev/rpa/internal/atomicfile"
	"github.com/rpa-dev/rpa/internal/cliflag"
)

// The subcommands' usage lines (-h and a bad flag print their own).
const (
	runsShowUsage   = "rpa runs show ID [--json]"
	runsReportUsage = "rpa runs report ID [-o FILE]"
	runsPruneUsage  = "rpa runs prune [--keep N] [--max-mb MB]"
	runsExportUsage = "rpa runs export ID [--output NAME] --format csv|xlsx -o FILE"
)

// CmdUsage is the usage of `rpa runs`, every subcommand.
const CmdUsage = "rpa runs [--flow NAME] [--schedule NAME] [--failed] [--since D] [--limit N] [--json]\n" +
	"       " + runsShowUsage + "\n" +
	"       " + runsReportUsage + "\n" +
	"       " + runsExportUsage + "\n" +
	"       " + runsPruneUsage

// CmdSummary is the one-line summary of `rpa runs`.
const CmdSummary = "list the recorded runs, show one, write its HTML report, export its table, prune old ones ($RPA_HOME/runs)"

// Cmd is `rpa runs [SUB]`: each subcommand's flags, its work and what it
// prints (cmd/rpa only wires it). It writes only to Stdout and Stderr.
type Cmd struct {
	Home   string // rpa's folder ($RPA_HOME)
	Stdout io.Writer
	Stderr io.Writer
	// ReportPath and ReportCopy are package report's Ensure and Copy (the
	// HTML report of a run: its path, written when missing; a copy).
	ReportPath func(st *Store, id string) (string, error)
	ReportCopy func(st *Store, id, path string) error
	// Export writes a table as format (csv or xlsx): package
	// runs/export's Write.
	Export func(w io.Writer, t Table, format string) error
}

// The exit codes of the command line (internal/cli).
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

// Run runs `rpa runs ARGS...` and returns the exit code: 0 done, 1 failed,
// 2 usage or bad input.
func (c *Cmd) Run(args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "show":
			return c.show(args[1:])
		case "report":
			return c.report(args[1:])
		case "prune":
			return c.prune(args[1:])
		case "export":
			return c.export(args[1:])
		}
	}
	fs := cliflag.SubFlags("runs", CmdUsage, CmdSummary, c.Stderr)
	var f Filter
	f.Register(fs)
	asJSON := fs.Bool("json", false, "print the runs as a JSON array")
	if done, code := cliflag.ParseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(c.Stderr, "rpa runs: unexpected argument %q (subcommands: show, report, export, prune)\n", fs.Arg(0))
		return exitUsage
	}
	st, err := OpenHome(c.Home, 0, 0)
	if err != nil {
		return c.fail(exitFailed, "runs", err)
	}
	defer st.Close()
	l, err := st.List(f)
	switch {
	case err != nil:
	case *asJSON:
		err = WriteJSON(c.Stdout, l)
	case len(l) == 0:
		fmt.Fprintln(c.Stderr, "no runs recorded yet")
	default:
		err = WriteList(c.Stdout, l)
	}
	if err != nil {
		return c.fail(exitFailed, "runs", err)
	}
	return exitOK
}

// one parses `ID [flags]` and opens the store at that run
// (OpenRun); on a problem it is nil and the exit code.
func (c *Cmd) one(name string, fs *flag.FlagSet, args []string) (*Store, *Run, int) {
	pos, done, code := cliflag.ParseArgs(fs, args)
	if done {
		return nil, nil, code
	}
	if len(pos) != 1 {
		fmt.Fprintf(c.Stderr, "rpa runs %s: which run? give one run ID (see rpa runs)\n", name)
		return nil, nil, exitUsage
	}
	st, r, err := OpenRun(c.Home, pos[0])
	if err != nil {
		code = exitFailed
		if errors.Is(err, ErrNotFound) || ValidID(pos[0]) != nil {
			code = exitUsage
		}
		return nil, nil, c.fail(code, "runs "+name, err)
	}
	return st, r, exitOK
}

// show is `rpa runs show ID [--json]`.
func (c *Cmd) show(args []string) int {
	fs := cliflag.SubFlags("runs "+"show", runsShowUsage, "show a recorded run and its steps", c.Stderr)
	asJSON := fs.Bool("json", false, "print the run and its steps as JSON")
	st, r, code := c.one("show", fs, args)
	if st == nil {
		return code
	}
	defer st.Close()
	if err := st.Show(c.Stdout, r, *asJSON); err != nil {
		return c.fail(exitFailed, "runs show", err)
	}
	return exitOK
}

// report is `rpa runs report ID [-o FILE]`: the report's path (written
// when missing), or a copy at FILE.
func (c *Cmd) report(args []string) int {
	fs := cliflag.SubFlags("runs "+"report", runsReportUsage, "print the path of a run's HTML report (written when missing), or copy it to FILE", c.Stderr)
	out := fs.String("o", "", "write a copy of the report to FILE instead of printing its path")
	st, r, code := c.one("report", fs, args)
	if st == nil {
		return code
	}
	defer st.Close()
	if *out != "" {
		if err := c.ReportCopy(st, r.ID, *out); err != nil {
			return c.fail(exitFailed, "runs report", err)
		}
		fmt.Fprintln(c.Stderr, "wrote", *out)
		return exitOK
	}
	path, err := c.ReportPath(st, r.ID)
	if err != nil {
		return c.fail(exitFailed, "runs report", err)
	}
	fmt.Fprintln(c.Stdout, path)
	return exitOK
}

// export is `rpa runs export ID [--output NAME] --format csv|xlsx -o
// FILE`: a table of the run's kept outputs (Tables, PickTable) written to
// FILE (atomically). --format defaults to FILE's extension.
func (c *Cmd) export(args []string) int {
	fs := cliflag.SubFlags("runs "+"export", runsExportUsage, "write a table of a run's outputs as CSV (UTF-8 with BOM) or XLSX", c.Stderr)
	name := fs.String("output", "", "the output that holds the table (its key in the outputs); needed when there are several")
	format := fs.String("format", "", "csv or xlsx (default: FILE's extension)")
	file := fs.String("o", "", "the file to write")
	st, r, code := c.one("export", fs, args)
	if st == nil {
		return code
	}
	defer st.Close()
	if *file == "" {
		fmt.Fprintf(c.Stderr, "rpa runs export: where to? give -o FILE\nusage: %s\n", runsExportUsage)
		return exitUsage
	}
	if *format == "" {
		*format = strings.TrimPrefix(strings.ToLower(filepath.Ext(*file)), ".")
	}
	if *format != "csv" && *format != "xlsx" {
		fmt.Fprintf(c.Stderr, "rpa runs export: --format %q: want csv or xlsx\nusage: %s\n", *format, runsExportUsage)
		return exitUsage
	}
	out, err := st.Outputs(r.ID)
	if err != nil {
		return c.fail(exitFailed, "runs export", err)
	}
	if out == nil {
		return c.fail(exitFailed, "runs export", fmt.Errorf("run %s kept no outputs (status %s)", r.ID, r.Status))
	}
	ts, err := Tables(out.JSON)
	if err != nil {
		return c.fail(exitFailed, "runs export", err)
	}
	t, err := PickTable(ts, *name)
	if err != nil {
		return c.fail(exitUsage, "runs export", fmt.Errorf("run %s: %w", r.ID, err))
	}
	var b bytes.Buffer
	if err := c.Export(&b, t, *format); err != nil {
		return c.fail(exitFailed, "runs export", err)
	}
	if err := atomicfile.Write(*file, b.Bytes(), 0o600); err != nil {
		return c.fail(exitFailed, "runs export", err)
	}
	note := ""
	if out.Truncated {
		note = fmt.Sprintf(" (the run's outputs were %d bytes, over the %d kept: only the first rows were kept)", out.Bytes, MaxOutputBytes)
	}
	fmt.Fprintf(c.Stderr, "wrote %s: %d rows, %d columns%s\n", *file, len(t.Rows), len(t.Columns), note)
	return exitOK
}

// prune is `rpa runs prune`: retention now. --runs-keep and
// --runs-max-mb (the names rpa run, serve and connect take) are the same
// flags as --keep and --max-mb.
func (c *Cmd) prune(args []string) int {
	fs := cliflag.SubFlags("runs "+"prune", runsPruneUsage, "remove the oldest runs beyond the retention bounds now", c.Stderr)
	var e Settings
	e.RegisterPrune(fs)
	if done, code := cliflag.ParseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(c.Stderr, "rpa runs prune: unexpected argument %q\nusage: %s\n", fs.Arg(0), runsPruneUsage)
		return exitUsage
	}
	if err := e.CheckPrune(fs); err != nil {
		return c.fail(exitUsage, "runs prune", err)
	}
	st, err := e.Open(c.Home)
	if err != nil {
		return c.fail(exitFailed, "runs prune", err)
	}
	defer st.Close()
	n, err := st.Prune()
	if err != nil {
		return c.fail(exitFailed, "runs prune", err)
	}
	fmt.Fprintf(c.Stdout, "removed %d run(s)\n", n)
	return exitOK
}

// fail prints "rpa CMD: err" and returns code.
func (c *Cmd) fail(code int, cmd string, err error) int {
	fmt.Fprintf(c.Stderr, "rpa %s: %v\n", cmd, err)
	return code
}
