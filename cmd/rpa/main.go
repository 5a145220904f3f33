// Command rpa loads, checks, formats, runs and serves browser flows (.flow
// or YAML) as typed MCP tools. Each subcommand lives in its own file and
// registers itself from init() with register; main only dispatches.
//
// Exit codes: 0 ok, 1 failed (flow failed, check errors), 2 usage or bad
// input, 130 cancelled.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/rpa-dev/rpa/internal/cliflag"
	"github.com/rpa-dev/rpa/lang/diag"
)

// command is one subcommand: `rpa NAME ARGS...`.
type command struct {
	name    string // the word after rpa
	usage   string // one line: "rpa check FILE|DIR..."
	summary string // one line, lower-case, no trailing period
	// run executes the command with the arguments after its name, writing
	// only to stdout and stderr, and returns the exit code.
	run func(args []string, stdout, stderr io.Writer) int
}

// Exit codes shared by every command.
const (
	exitOK        = 0
	exitFailed    = 1
	exitUsage     = 2
	exitCancelled = 130
)

var commands = map[string]command{}

// register adds c to the command table; called from init() of each
// command's file. A duplicate or unnamed command is a programming error
// and panics at start-up.
func register(c command) {
	if c.name == "" || c.run == nil {
		panic("rpa: register: command without name or run func")
	}
	if _, dup := commands[c.name]; dup {
		panic("rpa: register: duplicate command " + c.name)
	}
	commands[c.name] = c
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches args (without the program name) and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		help(stderr)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && args[0] == "help" {
			c, ok := commands[args[1]]
			if !ok {
				fmt.Fprintf(stderr, "rpa help: unknown command %q\n", args[1])
				return exitUsage
			}
			fmt.Fprintf(stdout, "usage: %s\n\n%s\n\nRun `rpa %s -h` for its flags.\n", c.usage, c.summary, c.name)
			return exitOK
		}
		help(stdout)
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "rpa: unknown command %q\n", args[0])
		if s := diag.Suggest(args[0], slices.Collect(maps.Keys(commands))); s != "" {
			fmt.Fprintf(stderr, "did you mean %q?\n", s)
		}
		fmt.Fprintln(stderr, "run `rpa help` for the list of commands")
		return exitUsage
	}
	return c.run(args[1:], stdout, stderr)
}

func help(w io.Writer) {
	fmt.Fprintln(w, "rpa turns browser workflows (.flow or YAML) into typed tools AI agents call over MCP.")
	fmt.Fprintln(w, "\nusage: rpa COMMAND [ARGS]\n\ncommands:")
	names := slices.Sorted(maps.Keys(commands))
	width := len(slices.MaxFunc(names, func(a, b string) int { return len(a) - len(b) }))
	for _, n := range names {
		fmt.Fprintf(w, "  %-*s  %s\n", width, n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun `rpa help COMMAND` or `rpa COMMAND -h` for details.")
}

// newFlags returns a FlagSet for command name whose -h output is the
// usage line, the summary and the flags, written to stderr.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		c := commands[name]
		fmt.Fprintf(stderr, "usage: %s\n\n%s\n", c.usage, c.summary)
		var hasFlags bool
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(stderr, "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// withSignals adapts a long-running command: its context ends at the
// first SIGINT or SIGTERM (the command winds down: calls in flight are
// cancelled, their answers sent); a second one kills at once.
func withSignals(run func(ctx context.Context, args []string, stdout, stderr io.Writer) int) func([]string, io.Writer, io.Writer) int {
	return func(args []string, stdout, stderr io.Writer) int {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		context.AfterFunc(ctx, stop) // the default action again: a second signal kills
		return run(ctx, args, stdout, stderr)
	}
}

// printJSON writes v as indented JSON, HTML characters as they are.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// fail prints "rpa CMD: err" on stderr and returns code.
func fail(stderr io.Writer, code int, cmd string, err error) int {
	fmt.Fprintf(stderr, "rpa %s: %v\n", cmd, err)
	return code
}

// logger is a command's log on stderr (stdout may carry the protocol):
// info lines, and debug ones when verbose.
func logger(stderr io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
}

// parseFlags parses args with fs; done is true when the command must stop
// now with code (exitOK after -h, exitUsage on a bad flag).
func parseFlags(fs *flag.FlagSet, args []string) (done bool, code int) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return true, exitOK
		}
		return true, exitUsage
	}
	return false, exitOK
}

// parseArgs is parseFlags for commands whose flags may stand before,
// between and after their positional arguments (cliflag.Parse); it returns
// the positional arguments in order.
func parseArgs(fs *flag.FlagSet, args []string) (pos []string, done bool, code int) {
	pos, err := cliflag.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil, true, exitOK
	} else if err != nil {
		return nil, true, exitUsage
	}
	return pos, false, exitOK
}
