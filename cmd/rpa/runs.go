package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/rpa-dev/rpa/internal/cli"
	"github.com/rpa-dev/rpa/internal/host/home"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/report"
)

func init() {
	register(command{
		name: "runs",
		usage: "rpa runs [--flow NAME] [--schedule NAME] [--failed] [--since D] [--limit N] [--json]\n" +
			"       rpa runs show ID [--json]\n" +
			"       rpa runs report ID [-o FILE]\n" +
			"       " + runsPruneUsage,
		summary: "list the recorded runs, show one, write its HTML report, prune old ones ($RPA_HOME/runs)",
		run:     runRuns,
	})
}

// The subcommands' usage lines (-h and a bad flag print their own).
const (
	runsShowUsage   = "rpa runs show ID [--json]"
	runsReportUsage = "rpa runs report ID [-o FILE]"
	runsPruneUsage  = "rpa runs prune [--keep N] [--max-mb MB]"
)

// subFlags is the FlagSet of `rpa runs SUB`, with its own usage.
func subFlags(sub, usage, summary string, stderr io.Writer) *flag.FlagSet {
	return cli.SubFlags("runs "+sub, usage, summary, stderr)
}

// runRuns is `rpa runs`.
func runRuns(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "show":
			return runsShow(args[1:], stdout, stderr)
		case "report":
			return runsReport(args[1:], stdout, stderr)
		case "prune":
			return runsPrune(args[1:], stdout, stderr)
		}
	}
	fs := newFlags("runs", stderr)
	var f runs.Filter
	f.Register(fs)
	asJSON := fs.Bool("json", false, "print the runs as a JSON array")
	if done, code := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rpa runs: unexpected argument %q (subcommands: show, report, prune)\n", fs.Arg(0))
		return exitUsage
	}
	st, err := runs.OpenHome(home.Dir(), 0, 0)
	if err != nil {
		return fail(stderr, exitFailed, "runs", err)
	}
	defer st.Close()
	l, err := st.List(f)
	switch {
	case err != nil:
	case *asJSON:
		err = runs.WriteJSON(stdout, l)
	case len(l) == 0:
		fmt.Fprintln(stderr, "no runs recorded yet")
	default:
		err = runs.WriteList(stdout, l)
	}
	if err != nil {
		return fail(stderr, exitFailed, "runs", err)
	}
	return exitOK
}

// oneRun parses `ID [flags]` and opens the store at that run
// (runs.OpenRun); on a problem it is nil and the exit code.
func oneRun(name string, fs *flag.FlagSet, args []string, stderr io.Writer) (*runs.Store, *runs.Run, int) {
	pos, done, code := parseArgs(fs, args)
	if done {
		return nil, nil, code
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "rpa runs %s: which run? give one run ID (see rpa runs)\n", name)
		return nil, nil, exitUsage
	}
	st, r, err := runs.OpenRun(home.Dir(), pos[0])
	if err != nil {
		code = exitFailed
		if errors.Is(err, runs.ErrNotFound) || runs.ValidID(pos[0]) != nil {
			code = exitUsage
		}
		return nil, nil, fail(stderr, code, "runs "+name, err)
	}
	return st, r, exitOK
}

// runsShow is `rpa runs show ID [--json]`.
func runsShow(args []string, stdout, stderr io.Writer) int {
	fs := subFlags("show", runsShowUsage, "show a recorded run and its steps", stderr)
	asJSON := fs.Bool("json", false, "print the run and its steps as JSON")
	st, r, code := oneRun("show", fs, args, stderr)
	if st == nil {
		return code
	}
	defer st.Close()
	if err := st.Show(stdout, r, *asJSON); err != nil {
		return fail(stderr, exitFailed, "runs show", err)
	}
	return exitOK
}

// runsReport is `rpa runs report ID [-o FILE]`: the report's path (written
// when missing), or a copy at FILE.
func runsReport(args []string, stdout, stderr io.Writer) int {
	fs := subFlags("report", runsReportUsage, "print the path of a run's HTML report (written when missing), or copy it to FILE", stderr)
	out := fs.String("o", "", "write a copy of the report to FILE instead of printing its path")
	st, r, code := oneRun("report", fs, args, stderr)
	if st == nil {
		return code
	}
	defer st.Close()
	if *out != "" {
		if err := report.Copy(st, r.ID, *out); err != nil {
			return fail(stderr, exitFailed, "runs report", err)
		}
		fmt.Fprintln(stderr, "wrote", *out)
		return exitOK
	}
	path, err := report.Ensure(st, r.ID)
	if err != nil {
		return fail(stderr, exitFailed, "runs report", err)
	}
	fmt.Fprintln(stdout, path)
	return exitOK
}

// runsPrune is `rpa runs prune`: retention now. --runs-keep and
// --runs-max-mb (the names rpa run, serve and connect take) are the same
// flags as --keep and --max-mb.
func runsPrune(args []string, stdout, stderr io.Writer) int {
	fs := subFlags("prune", runsPruneUsage, "remove the oldest runs beyond the retention bounds now", stderr)
	var e runs.Settings
	e.RegisterPrune(fs)
	if done, code := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rpa runs prune: unexpected argument %q\nusage: %s\n", fs.Arg(0), runsPruneUsage)
		return exitUsage
	}
	if err := e.CheckPrune(fs); err != nil {
		return fail(stderr, exitUsage, "runs prune", err)
	}
	st, err := e.Open(home.Dir())
	if err != nil {
		return fail(stderr, exitFailed, "runs prune", err)
	}
	defer st.Close()
	n, err := st.Prune()
	if err != nil {
		return fail(stderr, exitFailed, "runs prune", err)
	}
	fmt.Fprintf(stdout, "removed %d run(s)\n", n)
	return exitOK
}
