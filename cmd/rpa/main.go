// Command rpa loads, checks, formats, runs and serves browser flows (.flow
// or YAML) as typed MCP tools. Each subcommand lives in its own file and
// registers itself from init() with register; main only dispatches
// (internal/cli: the command table, help, flag parsing, signals).
//
// Exit codes: 0 ok, 1 failed (flow failed, check errors), 2 usage or bad
// input, 130 cancelled.
package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"

	"github.com/rpa-dev/rpa/internal/cli"
	"github.com/rpa-dev/rpa/internal/cliflag"
	_ "github.com/rpa-dev/rpa/internal/noprof" // no heap-profile sampling (its doc says why)
)

// commands is rpa's command table.
var commands = &cli.Table{Prog: "rpa", Intro: "rpa turns browser workflows (.flow or YAML) into typed tools AI agents call over MCP.", RawStdout: []string{"serve", "fmt", "schema", "import", "record"}}

// command is one subcommand, as each file declares it (cli.Command).
type command struct {
	name    string // the word after rpa
	usage   string // one line: "rpa check FILE|DIR..."
	summary string // one line, lower-case, no trailing period
	run     func(args []string, stdout, stderr io.Writer) int
}

// register adds c to the command table; called from init() of each
// command's file (a duplicate or unnamed command panics at start-up).
func register(c command) {
	commands.Register(cli.Command{Name: c.name, Usage: c.usage, Summary: c.summary, Run: c.run})
}

// Exit codes shared by every command (cli.Exit*).
const (
	exitOK        = cli.ExitOK
	exitFailed    = cli.ExitFailed
	exitUsage     = cli.ExitUsage
	exitCancelled = cli.ExitCancelled
)

// The frame's helpers under the names the commands use.
var (
	newFlags    = commands.NewFlags  // a command's FlagSet; -h prints its usage
	fail        = commands.Fail      // "rpa CMD: err" on stderr, and the code
	parseFlags  = cliflag.ParseFlags // done and the code after -h or a bad flag
	parseArgs   = cliflag.ParseArgs  // flags before, between and after positional arguments
	withSignals = cli.WithSignals    // a long-running command's context ends at SIGINT/SIGTERM
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches args (without the program name) and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int { return commands.Run(args, stdout, stderr) }

// printJSON writes v as indented JSON, HTML characters as they are.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
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
