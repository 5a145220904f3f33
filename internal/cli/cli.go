// Package cli is the frame of a command with subcommands (`rpa COMMAND
// ARGS`), as cmd/go/internal/base is the go command's: a table of
// commands, dispatch with a suggestion for a mistyped name, help, flag
// sets whose -h prints the command's usage (internal/cliflag has the flag
// parsing, for packages that hold a command's work), SIGINT/SIGTERM handling for
// long-running commands, and the exit codes every command shares. A
// command writes only to the writers it is given, so a whole command line
// runs in-process in tests.
package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/rpa-dev/rpa/internal/cliflag"
	"github.com/rpa-dev/rpa/internal/msg"
	"github.com/rpa-dev/rpa/lang/diag"
)

// Exit codes shared by every command.
const (
	ExitOK        = 0   // done
	ExitFailed    = 1   // failed: a flow failed, check errors, serving failed
	ExitUsage     = 2   // usage or bad input: nothing ran
	ExitCancelled = 130 // cancelled by a signal
)

// Command is one subcommand: `PROG NAME ARGS...`.
type Command struct {
	Name    string // the word after the program's name
	Usage   string // "rpa check FILE|DIR..." (lines after the first indented to match)
	Summary string // one line, lower-case, no trailing period
	// Run executes the command with the arguments after its name, writing
	// only to stdout and stderr, and returns the exit code.
	Run func(args []string, stdout, stderr io.Writer) int
}

// Table is a program's commands.
type Table struct {
	Prog     string             // the program's name, "rpa"
	Intro    string             // the first line of the help
	Commands map[string]Command // by Name (Register fills it)
	// RawStdout names the commands whose stdout is a protocol or a file's
	// bytes (MCP over stdio, a formatted flow): it is never localized.
	RawStdout []string
}

// Register adds c. An unnamed command, one without Run or a duplicate
// name is a programming error: Register panics (at start-up, from init).
func (t *Table) Register(c Command) {
	if c.Name == "" || c.Run == nil {
		panic(t.Prog + ": register: command without name or run func")
	}
	if _, dup := t.Commands[c.Name]; dup {
		panic(t.Prog + ": register: duplicate command " + c.Name)
	}
	if t.Commands == nil {
		t.Commands = map[string]Command{}
	}
	t.Commands[c.Name] = c
}

// Run dispatches args (without the program's name) and returns the exit
// code: `help [COMMAND]`, -h and --help print help; an unknown command is
// ExitUsage with a suggestion within edit distance 2 (diag.Suggest).
func (t *Table) Run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		t.Help(stderr)
		return ExitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && args[0] == "help" {
			c, ok := t.Commands[args[1]]
			if !ok {
				fmt.Fprintf(stderr, "%s help: unknown command %q\n", t.Prog, args[1])
				return ExitUsage
			}
			fmt.Fprintf(stdout, "usage: %s\n\n%s\n\nRun `%s %s -h` for its flags.\n", c.Usage, c.Summary, t.Prog, c.Name)
			return ExitOK
		}
		t.Help(stdout)
		return ExitOK
	}
	c, ok := t.Commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "%s: unknown command %q\n", t.Prog, args[0])
		if s := diag.Suggest(args[0], slices.Collect(maps.Keys(t.Commands))); s != "" {
			fmt.Fprintf(stderr, "did you mean %q?\n", s)
		}
		fmt.Fprintf(stderr, "run `%s help` for the list of commands\n", t.Prog)
		return ExitUsage
	}
	// A person reading Chinese (LANG=zh_*, RPA_LANG=zh) reads the
	// command's lines in Chinese (msg.Localize: the catalog's output lines).
	lang := msg.Env()
	if !slices.Contains(t.RawStdout, c.Name) {
		stdout = msg.Writer(lang, stdout)
	}
	return c.Run(args[1:], stdout, msg.Writer(lang, stderr))
}

// Help writes the intro and the commands with their summaries on w.
func (t *Table) Help(w io.Writer) {
	fmt.Fprintln(w, t.Intro)
	fmt.Fprintf(w, "\nusage: %s COMMAND [ARGS]\n\ncommands:\n", t.Prog)
	names := slices.Sorted(maps.Keys(t.Commands))
	width := len(slices.MaxFunc(names, func(a, b string) int { return len(a) - len(b) }))
	for _, n := range names {
		fmt.Fprintf(w, "  %-*s  %s\n", width, n, t.Commands[n].Summary)
	}
	fmt.Fprintf(w, "\nRun `%s help COMMAND` or `%s COMMAND -h` for details.\n", t.Prog, t.Prog)
}

// NewFlags returns a FlagSet for command name whose -h output is the
// command's usage line, its summary and the flags, written to stderr.
func (t *Table) NewFlags(name string, stderr io.Writer) *flag.FlagSet {
	c := t.Commands[name]
	return cliflag.SubFlags(name, c.Usage, c.Summary, stderr)
}

// Fail prints "PROG CMD: err" on stderr and returns code.
func (t *Table) Fail(stderr io.Writer, code int, cmd string, err error) int {
	fmt.Fprintf(stderr, "%s %s: %v\n", t.Prog, cmd, err)
	return code
}

// WithSignals adapts a long-running command: its context ends at the first
// SIGINT or SIGTERM (the command winds down: calls in flight are
// cancelled, their answers sent); a second one kills at once.
func WithSignals(run func(ctx context.Context, args []string, stdout, stderr io.Writer) int) func([]string, io.Writer, io.Writer) int {
	return func(args []string, stdout, stderr io.Writer) int {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		context.AfterFunc(ctx, stop) // the default action again: a second signal kills
		return run(ctx, args, stdout, stderr)
	}
}
