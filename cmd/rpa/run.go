package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/term"

	"github.com/rpa-dev/rpa/internal/cliflag"
	"github.com/rpa-dev/rpa/internal/host/execpolicy"
	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/internal/host/home"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/host/vault"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/localrun"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/diag"
)

func init() {
	register(command{
		name:    "run",
		usage:   "rpa run FILE [--arg NAME=VALUE]... [--args FILE.json] [--profile ID] [--show] [--json] [--timeout D] [--browser ws://...] [--browser-bin PATH] [--allow-exec [--exec-allow GLOB]...]",
		summary: "run a flow once in Chromium and print its result (exit 0 ok, 1 flow failed, 2 bad input, 130 cancelled)",
		run: withSignals(func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
			return runRun(ctx, args, runIO{stdin: os.Stdin, stdout: stdout, stderr: stderr})
		}),
	})
}

// runIO is where `rpa run` talks to: stdin answers `ask`, stdout carries
// the result, stderr the progress, diagnostics and errors.
type runIO struct {
	stdin          *os.File // nil: no terminal to ask on
	stdout, stderr io.Writer
}

// runFlags are the parsed command line of `rpa run` (and what `rpa demo`
// sets of it).
type runFlags struct {
	cmd      string // "run" or "demo", for messages
	nolog    bool   // progress leaves out run-log lines (demo)
	file     string
	args     cliflag.KV
	argsFile string
	json     bool
	run      localrun.Options // --profile, --show, --timeout, --browser, --browser-bin, --heal, run store flags
	exec     execpolicy.Policy
	hitl     string // --hitl order ("" = the default)
	resume   string // --resume ID
	from     int    // --from LINE
}

// parseRunFlags parses args, allowing flags before and after FILE.
func parseRunFlags(args []string, stderr io.Writer) (rf *runFlags, done bool, code int) {
	rf = &runFlags{cmd: "run", args: cliflag.KV{}}
	fs := newFlags("run", stderr)
	rf.run.Register(fs)
	fs.Var(rf.args, "arg", "a flow argument NAME=VALUE, converted to the param's type (repeatable)")
	fs.StringVar(&rf.argsFile, "args", "", "a JSON file holding an object of flow arguments (--arg wins on a clash)")
	fs.BoolVar(&rf.json, "json", false, "print only the result JSON on stdout (WorkflowExecutionResult with runId and report)")
	rf.exec.Register(fs)
	fs.StringVar(&rf.hitl, "hitl", "", hitl.OrderUsage)
	fs.StringVar(&rf.resume, "resume", "", "resume the run ID from its failed line (only while a server holds it: see the message)")
	fs.IntVar(&rf.from, "from", 0, "with --resume, the line to resume from")
	pos, done, code := parseArgs(fs, args)
	if done {
		return nil, true, code
	}
	if len(pos) != 1 {
		if len(pos) == 0 {
			fmt.Fprintln(stderr, "rpa run: which flow? give one FILE (.flow, .yaml or .yml)")
		} else {
			fmt.Fprintf(stderr, "rpa run: one FILE at a time, got %d: %s\n", len(pos), strings.Join(pos, " "))
		}
		fs.Usage()
		return nil, true, exitUsage
	}
	rf.file = pos[0]
	rf.exec.Disabled = "rpa run: command execution is disabled (run with --allow-exec)"
	var err error
	switch {
	case rf.run.Check() != nil:
		err = rf.run.Check()
	case rf.from != 0 && rf.resume == "":
		err = errors.New("--from needs --resume ID")
	default:
		err = rf.exec.CheckFlags()
	}
	if err != nil {
		return nil, true, fail(stderr, exitUsage, "run", err)
	}
	return rf, false, 0
}

// runRun is `rpa run`. It loads and checks the flow, converts the
// arguments (both before any browser starts: a problem there is exit 2),
// runs the flow (localrun.Run) and prints the result. Exit 0 when the
// flow succeeded, 1 when it failed (or the browser could not start), 130
// when cancelled by a signal (ctx); the result is printed in every case.
func runRun(ctx context.Context, args []string, rio runIO) int {
	stdout, stderr := rio.stdout, rio.stderr
	rf, done, code := parseRunFlags(args, stderr)
	if done {
		return code
	}
	if !flowFileArg("run", rf.file, stderr) {
		return exitUsage
	}
	f, ds := lang.LoadFile(rf.file)
	if err := diag.Render(stderr, ds, nil); err != nil {
		fmt.Fprintf(stderr, "rpa run: %v\n", err)
	}
	if f == nil || ds.HasErrors() {
		fmt.Fprintf(stderr, "rpa run: %s has errors; nothing was run\n", rf.file)
		return exitUsage
	}
	if rf.resume != "" {
		// One process runs one flow: another process's run cannot be
		// resumed (its scope is gone, and secrets are never stored).
		return fail(stderr, exitUsage, "run", runs.ResumeRefusalIn(home.Dir(), rf.resume))
	}
	typed, err := f.ArgsFromFile(rf.argsFile, rf.args)
	if err != nil {
		return fail(stderr, exitUsage, "run", err)
	}
	rf.run.Flows = lang.FolderFlows(filepath.Dir(rf.file))
	out, code := execute(ctx, f, typed, rf, rio)
	if out == nil {
		return code
	}
	if rf.json {
		if err := printJSON(stdout, resultJSON(out)); err != nil {
			fmt.Fprintf(stderr, "rpa run: cannot encode the result: %v\n", err)
			code = max(code, exitFailed) // never exit 0 without a result
		}
	} else {
		interp.PrintOutcome(stdout, stderr, f, out.Result)
		if out.Record != "" {
			fmt.Fprintln(stderr, out.Record)
		}
	}
	out.Result.RemoveTempFiles() // no picture of a page left in the temp folder
	return code
}

// execute runs f with the typed args as rf says (localrun.Run) and returns
// the outcome with the exit code: 0 success, 1 failed, 130 cancelled
// through ctx. A nil outcome means nothing ran (the reason is on stderr).
// Progress goes to stderr unless rf.json.
func execute(ctx context.Context, f *lang.Flow, typed lang.Args, rf *runFlags, rio runIO) (*localrun.Outcome, int) {
	stderr := rio.stderr
	// The host (--hitl, RPA_LLM_*) is set up first: a bad value is bad
	// input, reported before any browser starts.
	host, err := localrun.Host(rf.hitl, rio.stdin, stderr, &rf.exec) // ask: the desktop dialog, then the terminal on stdin
	if err != nil {
		return nil, fail(stderr, exitUsage, rf.cmd, err)
	}
	o := rf.run
	o.Args, o.Host = typed, host
	o.Progress = &interp.Progress{W: stderr, Live: isTerminal(stderr), Quiet: rf.json, NoLog: rf.nolog}
	o.Warn = func(msg string) { fmt.Fprintf(stderr, "rpa %s: %s\n", rf.cmd, msg) }
	out, err := localrun.Run(ctx, f, o)
	if err != nil { // nothing ran
		code := exitFailed
		if errors.Is(err, localrun.ErrCancelled) {
			code = exitCancelled
		} else if errors.As(err, new(*localrun.SetupError)) && !errors.Is(err, profiles.ErrInUse) &&
			!errors.Is(err, vault.ErrWrongKey) && !errors.Is(err, vault.ErrDamaged) {
			// a profile in use, a vault that would not open (a wrong
			// passphrase, a damaged file) are not bad input: exit 1 (README)
			code = exitUsage
		}
		return nil, fail(stderr, code, rf.cmd, err)
	}
	switch {
	case out.Result.Success:
		return out, exitOK
	case out.Cancelled:
		return out, exitCancelled
	case out.TimedOut:
		fmt.Fprintf(stderr, "rpa %s: the run was stopped by --timeout %s\n", rf.cmd, o.Timeout)
	}
	return out, exitFailed
}

// isTerminal reports whether w is a terminal (a file, or a writer on one: msg.Writer).
func isTerminal(w any) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// runJSON is what `rpa run --json` and `rpa demo --json` print: the
// WorkflowExecutionResult with the run's record beside it, as the MCP
// result's structuredContent carries runId (PROTOCOL.md).
type runJSON struct {
	*interp.Result
	RunID  string `json:"runId,omitempty"`  // the run's ID in the run store
	Report string `json:"report,omitempty"` // path of its report.html
}

// resultJSON is out's result with its record for --json.
func resultJSON(out *localrun.Outcome) runJSON {
	return runJSON{Result: out.Result, RunID: out.RunID, Report: out.Report}
}
