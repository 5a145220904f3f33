package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/mcpserver"
	"github.com/rpa-dev/rpa/runs"
	"github.com/rpa-dev/rpa/runs/record"
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

// evidenceFlags are the run-store flags of run, serve and connect.
type evidenceFlags struct {
	mode   string  // --evidence default|full
	keep   int     // --runs-keep
	maxMB  float64 // --runs-max-mb
	packet int     // --packet-budget (tokens)
	resume string  // --resume ID (rpa run)
	from   int     // --from LINE (rpa run)
	done   string  // "run ID  report PATH" of the finished run (rpa run)
}

// register declares the flags on fs; withResume adds rpa run's --resume
// and --from.
func (e *evidenceFlags) register(fs *flag.FlagSet, withResume bool) {
	fs.StringVar(&e.mode, "evidence", "", `what runs record: "default" (events, steps, a screenshot at a failure, report) or "full" (also a screenshot after every page action); default: the flow's "defaults evidence:", else default`)
	fs.IntVar(&e.keep, "runs-keep", 0, fmt.Sprintf("keep this many runs in $RPA_HOME/runs (default $RPA_RUNS_KEEP, else %d)", runs.DefaultKeep))
	fs.Float64Var(&e.maxMB, "runs-max-mb", 0, fmt.Sprintf("keep the run folders under this many MB (default $RPA_RUNS_MAX_MB, else %d)", runs.DefaultMaxBytes>>20))
	if !withResume {
		fs.IntVar(&e.packet, "packet-budget", 0, fmt.Sprintf("the failure packet's budget in tokens (default %d)", record.DefaultPacketBudget))
		return
	}
	fs.StringVar(&e.resume, "resume", "", "resume the run ID from its failed line (only while a server holds it: see the message)")
	fs.IntVar(&e.from, "from", 0, "with --resume, the line to resume from")
}

// check validates the flag values.
func (e *evidenceFlags) check() error {
	switch e.mode {
	case "", runs.EvidenceDefault, runs.EvidenceFull:
	default:
		return fmt.Errorf("--evidence %q: want default or full", e.mode)
	}
	if e.keep < 0 || e.maxMB < 0 || e.packet < 0 {
		return errors.New("--runs-keep, --runs-max-mb and --packet-budget must not be negative")
	}
	if e.from != 0 && e.resume == "" {
		return errors.New("--from needs --resume ID")
	}
	return nil
}

// openStore opens $RPA_HOME/runs with the flags over the environment.
func (e *evidenceFlags) openStore() (*runs.Store, error) {
	if e == nil {
		return runs.OpenHome(drivers.Home(), 0, 0)
	}
	return runs.OpenHome(drivers.Home(), e.keep, e.maxMB)
}

// serverOptions sets the run-store fields of a server's options; the
// returned func closes the store (call it after the server closed). A
// store that cannot be opened is a usage error (exit 2).
func (e *evidenceFlags) serverOptions(cmd string, opts *mcpserver.Options) (func(), error) {
	if err := e.check(); err != nil {
		return nil, err
	}
	if e.resume != "" {
		return nil, errors.New("--resume is a flag of rpa run")
	}
	st, err := e.openStore()
	if err != nil {
		return nil, fmt.Errorf("run store: %w", err)
	}
	opts.Runs, opts.Evidence, opts.PacketBudget = st, e.mode, e.packet
	if cmd == "connect" {
		opts.RunCaller = runs.CallerLink
	}
	return func() { st.Close() }, nil
}

// resumeRefusal is rpa run's answer to --resume: one process runs one
// flow, so another process's run cannot be resumed (its scope is gone, and
// secrets are never stored).
func (e *evidenceFlags) resumeRefusal() error {
	if e.resume == "" {
		return nil
	}
	st, err := e.openStore()
	if err != nil {
		return runs.ResumeRefusal(nil, e.resume)
	}
	defer st.Close()
	return runs.ResumeRefusal(st, e.resume)
}

// cliRun records one `rpa run` (nil: not recorded).
type cliRun = record.Local

// startRun begins the record of an `rpa run`; a store that cannot be
// opened is reported on stderr and the run goes on unrecorded (nil).
func (e *evidenceFlags) startRun(f *lang.Flow, typed map[string]any, profile string, stderr io.Writer) *cliRun {
	st, err := e.openStore()
	if err == nil {
		var rec *cliRun
		rec, err = record.StartLocal(st, record.Options{Flow: f, Args: typed, Caller: runs.Caller{Kind: runs.CallerCLI},
			Profile: profile, Evidence: e.mode, PacketBudget: e.packet})
		if err == nil {
			return rec
		}
	}
	fmt.Fprintf(stderr, "rpa run: this run is not recorded: %v\n", err)
	return nil
}

// finishRun completes the record of rec; printRun then prints the run ID
// and the report's path.
func (e *evidenceFlags) finishRun(ctx context.Context, rec *cliRun, res *interp.Result, page drivers.Page, stderr io.Writer) {
	line, err := rec.Finish(ctx, res, page)
	if err != nil {
		fmt.Fprintf(stderr, "rpa run: the run record is incomplete: %v\n", err)
	}
	e.done = line
}

// printRun prints "run ID  report PATH" of the finished run on w (the
// last line of `rpa run`; nothing when the run was not recorded).
func (e *evidenceFlags) printRun(w io.Writer) {
	if e.done != "" {
		fmt.Fprintln(w, e.done)
	}
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
	st, err := (*evidenceFlags)(nil).openStore()
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
	st, err := (*evidenceFlags)(nil).openStore()
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
	var e evidenceFlags
	fs.IntVar(&e.keep, "keep", 0, fmt.Sprintf("keep this many runs (default $RPA_RUNS_KEEP, else %d)", runs.DefaultKeep))
	fs.Float64Var(&e.maxMB, "max-mb", 0, fmt.Sprintf("keep the run folders under this many MB (default $RPA_RUNS_MAX_MB, else %d)", runs.DefaultMaxBytes>>20))
	if done, code := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 || e.keep < 0 || e.maxMB < 0 {
		fmt.Fprintln(stderr, "rpa runs prune: takes only --keep N and --max-mb MB (not negative)")
		return exitUsage
	}
	st, err := e.openStore()
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
