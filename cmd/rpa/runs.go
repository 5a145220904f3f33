package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/runs"
	"github.com/rpa-dev/rpa/runs/report"
)

func init() {
	register(command{
		name: "runs",
		usage: "rpa runs [--flow NAME] [--failed] [--since D] [--limit N] [--json]\n" +
			"       rpa runs show ID [--json]\n" +
			"       rpa runs report ID [-o FILE]\n" +
			"       rpa runs prune [--keep N] [--max-mb MB]",
		summary: "list the recorded runs, show one, write its HTML report, prune old ones ($RPA_HOME/runs)",
		run: func(args []string, stdout, stderr io.Writer) int {
			return runRuns(args, stdout, stderr)
		},
	})
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
	flow := fs.String("flow", "", "only runs of this flow")
	failed := fs.Bool("failed", false, "only failed, cancelled and interrupted runs")
	since := fs.String("since", "", "only runs started in this past duration (24h, 30m) or since this date (2026-12-01)")
	limit := fs.Int("limit", 50, "at most this many runs")
	asJSON := fs.Bool("json", false, "print the runs as a JSON array")
	if done, code := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rpa runs: unexpected argument %q (subcommands: show, report, prune)\n", fs.Arg(0))
		return exitUsage
	}
	f := runs.Filter{Flow: *flow, Failed: *failed, Limit: *limit}
	if *since != "" {
		t, err := runs.ParseSince(*since, time.Now())
		if err != nil {
			fmt.Fprintf(stderr, "rpa runs: --since: %v\n", err)
			return exitUsage
		}
		f.Since = t
	}
	st, err := runs.OpenHome(drivers.Home(), 0, 0)
	if err != nil {
		fmt.Fprintf(stderr, "rpa runs: %v\n", err)
		return exitFailed
	}
	defer st.Close()
	l, err := st.List(f)
	if err != nil {
		fmt.Fprintf(stderr, "rpa runs: %v\n", err)
		return exitFailed
	}
	if *asJSON {
		return printJSON(stdout, stderr, l)
	}
	if len(l) == 0 {
		fmt.Fprintln(stderr, "no runs recorded yet")
		return exitOK
	}
	runs.WriteList(stdout, l)
	return exitOK
}

func printJSON(stdout, stderr io.Writer, v any) int {
	if err := runs.WriteJSON(stdout, v); err != nil {
		fmt.Fprintf(stderr, "rpa runs: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// oneRun parses `ID [flags]` and opens the store at that run.
func oneRun(name string, fs *flag.FlagSet, args []string, stderr io.Writer) (*runs.Store, *runs.Run, int) {
	pos, done, code := parseArgs(fs, args)
	if done {
		return nil, nil, code
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "rpa runs %s: which run? give one run ID (see rpa runs)\n", name)
		return nil, nil, exitUsage
	}
	id := pos[0]
	if err := runs.ValidID(id); err != nil {
		fmt.Fprintf(stderr, "rpa runs %s: %v\n", name, err)
		return nil, nil, exitUsage
	}
	st, err := runs.OpenHome(drivers.Home(), 0, 0)
	if err != nil {
		fmt.Fprintf(stderr, "rpa runs %s: %v\n", name, err)
		return nil, nil, exitFailed
	}
	r, err := st.Get(id)
	if err != nil {
		st.Close()
		fmt.Fprintf(stderr, "rpa runs %s: %v\n", name, err)
		if errors.Is(err, runs.ErrNotFound) {
			return nil, nil, exitUsage
		}
		return nil, nil, exitFailed
	}
	return st, r, exitOK
}

// runsShow is `rpa runs show ID [--json]`.
func runsShow(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("runs show", stderr)
	asJSON := fs.Bool("json", false, "print the run and its steps as JSON")
	st, r, code := oneRun("show", fs, args, stderr)
	if st == nil {
		return code
	}
	defer st.Close()
	steps, err := st.Steps(r.ID)
	if err != nil {
		fmt.Fprintf(stderr, "rpa runs show: %v\n", err)
		return exitFailed
	}
	if *asJSON {
		return printJSON(stdout, stderr, runs.RunSteps{Run: r, Steps: steps})
	}
	runs.WriteRun(stdout, r, steps, st.RunDir(r.ID))
	return exitOK
}

// runsReport is `rpa runs report ID [-o FILE]`: the report's path (written
// when missing), or a copy at FILE.
func runsReport(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("runs report", stderr)
	out := fs.String("o", "", "write a copy of the report to FILE instead of printing its path")
	st, r, code := oneRun("report", fs, args, stderr)
	if st == nil {
		return code
	}
	defer st.Close()
	path, err := report.Ensure(st, r.ID)
	if err != nil {
		fmt.Fprintf(stderr, "rpa runs report: %v\n", err)
		return exitFailed
	}
	if *out == "" {
		fmt.Fprintln(stdout, path)
		return exitOK
	}
	b, err := os.ReadFile(path)
	if err == nil {
		err = os.WriteFile(*out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rpa runs report: %v\n", err)
		return exitFailed
	}
	fmt.Fprintln(stderr, "wrote", *out)
	return exitOK
}

// runsPrune is `rpa runs prune`: retention now.
func runsPrune(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("runs prune", stderr)
	var e runs.Settings
	fs.IntVar(&e.Keep, "keep", 0, fmt.Sprintf("keep this many runs (default $RPA_RUNS_KEEP, else %d)", runs.DefaultKeep))
	fs.Float64Var(&e.MaxMB, "max-mb", 0, fmt.Sprintf("keep the run folders under this many MB (default $RPA_RUNS_MAX_MB, else %d)", runs.DefaultMaxBytes>>20))
	if done, code := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 || e.Keep < 0 || e.MaxMB < 0 {
		fmt.Fprintln(stderr, "rpa runs prune: takes only --keep N and --max-mb MB (not negative)")
		return exitUsage
	}
	st, err := e.Open(drivers.Home())
	if err != nil {
		fmt.Fprintf(stderr, "rpa runs prune: %v\n", err)
		return exitFailed
	}
	defer st.Close()
	n, err := st.Prune()
	if err != nil {
		fmt.Fprintf(stderr, "rpa runs prune: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "removed %d run(s)\n", n)
	return exitOK
}
