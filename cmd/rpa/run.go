package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/execpolicy"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/diag"
	"github.com/rpa-dev/rpa/mcpserver"
)

func init() {
	register(command{
		name:    "run",
		usage:   "rpa run FILE [--arg NAME=VALUE]... [--args FILE.json] [--profile ID] [--show] [--json] [--timeout D] [--browser ws://...] [--browser-bin PATH] [--allow-exec [--exec-allow GLOB]...]",
		summary: "run a flow once in Chromium and print its result (exit 0 ok, 1 flow failed, 2 bad input, 130 cancelled)",
		run: func(args []string, stdout, stderr io.Writer) int {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// After the first Ctrl-C the run winds down; a second one kills.
			context.AfterFunc(ctx, stop)
			return runRun(ctx, args, runIO{stdin: os.Stdin, stdout: stdout, stderr: stderr})
		},
	})
}

// runIO is where `rpa run` talks to: stdin answers `ask`, stdout carries
// the result, stderr the progress, diagnostics and errors.
type runIO struct {
	stdin          *os.File // nil: no terminal to ask on
	stdout, stderr io.Writer
}

// kvFlag collects repeated --arg NAME=VALUE flags.
type kvFlag struct {
	order []string
	m     map[string]string
}

func (f *kvFlag) String() string { return strings.Join(f.order, ",") }

func (f *kvFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return fmt.Errorf("want NAME=VALUE, got %q", s)
	}
	if f.m == nil {
		f.m = map[string]string{}
	}
	if _, dup := f.m[k]; !dup {
		f.order = append(f.order, k)
	}
	f.m[k] = v
	return nil
}

// runFlags are the parsed command line of `rpa run`.
type runFlags struct {
	cmd      string // "run" or "demo", for messages
	nolog    bool   // progress leaves out run-log lines (demo)
	file     string
	args     kvFlag
	argsFile string
	profile  string
	show     bool
	json     bool
	timeout  time.Duration
	remote   string
	bin      string
	// exec is the policy of the `exec` action (--allow-exec, --exec-allow).
	exec      execpolicy.Policy
	execAllow kvList
	hitl      string        // --hitl order ("" = default; run_hitl.go)
	evid      evidenceFlags // --evidence, --resume, --from, retention (runs.go)
	heal      string        // --heal (heal.go)
}

// kvList collects a repeated string flag.
type kvList []string

func (l *kvList) String() string     { return strings.Join(*l, ",") }
func (l *kvList) Set(s string) error { *l = append(*l, s); return nil }

// parseRunFlags parses args, allowing flags before and after FILE.
func parseRunFlags(args []string, stderr io.Writer) (rf *runFlags, done bool, code int) {
	rf = &runFlags{cmd: "run"}
	fs := newFlags("run", stderr)
	fs.Var(&rf.args, "arg", "a flow argument NAME=VALUE, converted to the param's type (repeatable)")
	fs.StringVar(&rf.argsFile, "args", "", "a JSON file holding an object of flow arguments (--arg wins on a clash)")
	fs.StringVar(&rf.profile, "profile", "", "browser profile ID (folder $RPA_HOME/profiles/ID); default: the flow's \"defaults profile:\", else a temporary profile")
	fs.BoolVar(&rf.show, "show", false, "show the browser window instead of running headless")
	fs.BoolVar(&rf.json, "json", false, "print only the result JSON (WorkflowExecutionResult) on stdout")
	fs.DurationVar(&rf.timeout, "timeout", 0, "bound for the whole run, e.g. 2m (0: none)")
	fs.Var(joinedFlag{&rf.remote}, "browser", "attach to a running browser's DevTools endpoint (ws://, http:// or wss://...) instead of launching one; repeatable")
	fs.StringVar(&rf.bin, "browser-bin", "", "Chromium binary (default: $ROD_BROWSER, else chromium on PATH)")
	fs.BoolVar(&rf.exec.Enabled, "allow-exec", false, "let the flow's exec actions run commands (refused otherwise)")
	fs.Var(&rf.execAllow, "exec-allow", "with --allow-exec, allow only commands matching this glob (repeatable)")
	fs.StringVar(&rf.hitl, "hitl", "", hitlUsage)
	rf.evid.register(fs, true)
	fs.StringVar(&rf.heal, "heal", "", healUsage)
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
	if err := checkHeal(rf.heal); err != nil {
		fmt.Fprintf(stderr, "rpa run: --heal: %v\n", err)
		return nil, true, exitUsage
	}
	if err := rf.evid.check(); err != nil {
		fmt.Fprintf(stderr, "rpa run: %v\n", err)
		return nil, true, exitUsage
	}
	if len(rf.execAllow) > 0 && !rf.exec.Enabled {
		fmt.Fprintln(stderr, "rpa run: --exec-allow needs --allow-exec")
		return nil, true, exitUsage
	}
	rf.exec.Allow = rf.execAllow
	rf.exec.Disabled = "rpa run: command execution is disabled (run with --allow-exec)"
	if rf.timeout < 0 {
		fmt.Fprintln(stderr, "rpa run: --timeout must not be negative")
		return nil, true, exitUsage
	}
	return rf, false, 0
}

// runRun is `rpa run`. It loads and checks the flow, converts the
// arguments (both before any browser starts: a problem there is exit 2),
// launches Chromium, runs the flow and prints the result. Exit 0 when the
// flow succeeded, 1 when it failed (or the browser could not start), 130
// when cancelled by a signal (ctx); the result is printed in every case.
func runRun(ctx context.Context, args []string, rio runIO) int {
	stdout, stderr := rio.stdout, rio.stderr
	rf, done, code := parseRunFlags(args, stderr)
	if done {
		return code
	}
	if !lang.IsFlowFile(rf.file) {
		fmt.Fprintf(stderr, "rpa run: %s: not a flow file (want .flow, .yaml or .yml)\n", rf.file)
		return exitUsage
	}
	if _, err := os.Stat(rf.file); err != nil {
		fmt.Fprintf(stderr, "rpa run: %v\n", err)
		return exitUsage
	}
	f, ds := lang.LoadFile(rf.file)
	if len(ds) > 0 {
		if err := diag.Render(stderr, ds, nil); err != nil {
			fmt.Fprintf(stderr, "rpa run: %v\n", err)
		}
	}
	if f == nil || ds.HasErrors() {
		fmt.Fprintf(stderr, "rpa run: %s has errors; nothing was run\n", rf.file)
		return exitUsage
	}
	if err := rf.evid.resumeRefusal(); err != nil {
		fmt.Fprintf(stderr, "rpa run: %v\n", err)
		return exitUsage
	}
	typed, err := flowArgs(f, rf)
	if err != nil {
		fmt.Fprintf(stderr, "rpa run: %v\n", err)
		return exitUsage
	}
	res, code := execute(ctx, f, typed, rf, rio, lang.FolderFlows(filepath.Dir(rf.file)))
	if res == nil {
		return code
	}
	switch {
	case rf.json:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res); err != nil {
			fmt.Fprintf(stderr, "rpa run: cannot encode the result: %v\n", err)
			if code == 0 {
				code = exitFailed // never exit 0 without a result
			}
		}
	default:
		interp.PrintOutcome(stdout, stderr, f, res)
	}
	if !rf.json {
		rf.evid.printRun(stderr) // runs.go
	}
	mcpserver.RemoveTempScreenshots(res) // no picture of a page left in the temp folder
	return code
}

// execute launches (or attaches to) the browser for rf, runs f with the
// typed args and returns the result with the exit code: 0 success, 1
// failed, 130 cancelled through ctx. A nil result means nothing ran (the
// profile or the browser could not be set up; the reason is on stderr).
// Progress goes to stderr unless rf.json.
func execute(ctx context.Context, f *lang.Flow, typed map[string]any, rf *runFlags, rio runIO,
	flows func(string) (*lang.Flow, bool)) (*interp.Result, int) {
	stderr := rio.stderr
	// The host (--hitl, RPA_LLM_*) is set up first: a bad value is bad
	// input, reported before any browser starts.
	host, err := rf.runHost(rio)
	if err != nil {
		fmt.Fprintf(stderr, "rpa %s: %v\n", rf.cmd, err)
		return nil, exitUsage
	}
	var profileDir string
	if rf.remote == "" {
		id := rf.profile
		if id == "" {
			id = f.Profile()
		}
		dir, cleanup, err := drivers.RunProfile(id)
		if err != nil {
			fmt.Fprintf(stderr, "rpa %s: %v\n", rf.cmd, err)
			return nil, exitUsage
		}
		defer cleanup()
		profileDir = dir
	}

	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if rf.timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, rf.timeout)
	}
	defer cancel()

	if rf.show && rf.remote == "" {
		if msg := noDisplay("drop --show to run headless (the default)"); msg != "" { // display.go
			fmt.Fprintf(stderr, "rpa %s: --show: %s\n", rf.cmd, msg)
			return nil, exitUsage
		}
	}
	prog := &interp.Progress{W: stderr, Live: isTerminal(stderr), Quiet: rf.json, NoLog: rf.nolog}
	launchCtx, lcancel := context.WithTimeout(runCtx, 60*time.Second)
	br, err := rodd.New().Launch(launchCtx, drivers.LaunchOptions{
		Bin: rf.bin, UserDataDir: profileDir, Show: rf.show, Remote: rf.remote})
	lcancel()
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "rpa %s: cancelled while starting the browser\n", rf.cmd)
			return nil, exitCancelled
		}
		if runCtx.Err() != nil {
			fmt.Fprintf(stderr, "rpa %s: the run was stopped by --timeout %s while the browser was starting\n", rf.cmd, rf.timeout)
			return nil, exitFailed
		}
		if ie := (*drivers.InUseError)(nil); errors.As(err, &ie) {
			// Another rpa process holds the profile: bad input, not a crash.
			fmt.Fprintf(stderr, "rpa %s: %v\n", rf.cmd, ie)
			return nil, exitUsage
		}
		fmt.Fprintf(stderr, "rpa %s: the browser could not be started: %v\n", rf.cmd, err)
		return nil, exitFailed
	}
	// The browser closes before the persistent profile is scrubbed of the
	// run's secrets and the temporary profile removed (defers run in
	// reverse order).
	defer scrubAfterRun(profileDir, f, typed, stderr)()
	defer br.Close()

	rec := rf.evid.startRun(f, typed, rf.profile, stderr)          // runs.go; nil when not recorded
	healCtx, healFlush := healFor(runCtx, rf.heal, f, rec, stderr) // heal.go
	res, page := interp.Run(healCtx, f, interp.Options{
		Args:    typed,
		Browser: br,
		Flows:   flows,
		Events:  rec.Hook(prog.Event),
		Host:    host,
		Mask:    rec.Mask(), // the record's masker (nil when not recorded)
	})
	prog.Flush()
	healFlush()
	rf.evid.finishRun(ctx, rec, res, page, stderr)
	if page != nil && rf.remote != "" {
		// Leave a remote browser as we found it: close the tab we used.
		_ = page.Close()
	}
	prog.Flush()
	switch {
	case res.Success:
		return res, exitOK
	case ctx.Err() != nil:
		return res, exitCancelled
	default:
		if runCtx.Err() != nil {
			fmt.Fprintf(stderr, "rpa %s: the run was stopped by --timeout %s\n", rf.cmd, rf.timeout)
		}
		return res, exitFailed
	}
}

// flowArgs builds the typed arguments from --args (a JSON file, see
// interp.ArgsFromJSON) and --arg (strings, interp.ParseArgs).
func flowArgs(f *lang.Flow, rf *runFlags) (map[string]any, error) {
	if rf.argsFile == "" {
		return interp.ParseArgs(f, rf.args.m)
	}
	b, err := os.ReadFile(rf.argsFile)
	if err != nil {
		return nil, fmt.Errorf("--args: %w", err)
	}
	args, err := interp.ArgsFromJSON(f, b, rf.args.m)
	var ae *interp.ArgError
	if err != nil && !errors.As(err, &ae) {
		return nil, fmt.Errorf("--args %s: %v", rf.argsFile, err)
	}
	return args, err
}

// isTerminal reports whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

var _ flag.Value = (*kvFlag)(nil)
