package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// The exit codes ParseFlags and ParseArgs return (internal/cli's ExitOK
// and ExitUsage).
const (
	exitOK    = 0
	exitUsage = 2
)

// SubFlags is the FlagSet of a subcommand that is not in the table
// (`rpa runs prune`): -h and a bad flag print its own usage line and
// summary, then its flags.
func SubFlags(name, usage, summary string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s\n\n%s\n", usage, summary)
		var hasFlags bool
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(stderr, "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// ParseFlags parses args with fs, flags before, between and after the
// positional arguments as with ParseArgs (`rpa fmt F --to yaml`, `rpa check
// F --oneline`); fs.Args() then returns the positional arguments in order.
// done is true when the command must stop now with code (0 after -h, 2 on
// a bad flag: the flag package has said why; the exit codes of
// internal/cli).
func ParseFlags(fs *flag.FlagSet, args []string) (done bool, code int) {
	pos, err := Parse(fs, args)
	if done, code := parsed(err); done {
		return true, code
	}
	// fs.Args() is what follows the terminator: the positional arguments.
	_ = fs.Parse(append([]string{"--"}, pos...))
	return false, exitOK
}

// ParseArgs is ParseFlags for commands whose flags may stand before,
// between and after their positional arguments (cliflag.Parse); it returns
// the positional arguments in order.
func ParseArgs(fs *flag.FlagSet, args []string) (pos []string, done bool, code int) {
	pos, err := Parse(fs, args)
	if done, code := parsed(err); done {
		return nil, true, code
	}
	return pos, false, exitOK
}

func parsed(err error) (done bool, code int) {
	switch {
	case errors.Is(err, flag.ErrHelp):
		return true, exitOK
	case err != nil:
		return true, exitUsage
	}
	return false, exitOK
}
