package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"

	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/cliflag"
	"github.com/rpa-dev/rpa/internal/host/home"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/host/vault"
)

// rpa vault and rpa profile: their work lives in vault.Cmd and
// profiles.StateCmd; this file wires them.
func init() {
	register(command{name: "vault", usage: vault.Usage, run: withSignals(runVault),
		summary: "keep accounts (username, password, TOTP seed, ...) for credential params, encrypted in $RPA_HOME/vault"})
	register(command{name: "profile", usage: profiles.StateUsage, run: withSignals(runProfile),
		summary: "move a browser profile's sign-ins (cookies, local storage) to another desktop as an encrypted file"})
}

// vaultStdin is where `rpa vault set` reads (tests replace it).
var vaultStdin io.Reader = os.Stdin

func runVault(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := &vault.Cmd{Home: home.Dir(), Stdin: vaultStdin, Ask: vault.TerminalAsker, Stdout: stdout, Stderr: stderr}
	if f, ok := vaultStdin.(*os.File); ok {
		c.StdinTTY = term.IsTerminal(int(f.Fd()))
	}
	return runSub(ctx, "vault", vault.Usage, c, vault.ErrUsage, args, stderr)
}

func runProfile(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := &profiles.StateCmd{Driver: rodd.New(), Ask: vault.TerminalAsker, Stdout: stdout}
	return runSub(ctx, "profile", profiles.StateUsage, c, profiles.ErrStateUsage, args, stderr)
}

// subCmd is a command with subcommands whose work lives in a package.
type subCmd interface {
	Register(*flag.FlagSet)
	Run(ctx context.Context, sub string, pos []string) error
	// BadInput reports whether an error of Run is the caller's bad input
	// (nothing was changed).
	BadInput(error) bool
}

// runSub parses `rpa NAME SUB [flags] POS...` and runs it, with README's
// exit codes: 0 done, 2 usage or bad input (c.BadInput), 130 cancelled (a
// signal ended ctx), 1 any other failure (a file that would not open or
// could not be written, a profile in use, a browser that would not start).
func runSub(ctx context.Context, name, usage string, c subCmd, errUsage error, args []string, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, errUsage)
		return exitUsage
	}
	fs := cliflag.SubFlags(name+" "+args[0], usage, "", stderr)
	c.Register(fs)
	pos, done, code := parseArgs(fs, args[1:])
	if done {
		return code
	}
	switch err := c.Run(ctx, args[0], pos); {
	case err == nil:
		return exitOK
	case errors.Is(err, errUsage):
		fmt.Fprintln(stderr, err)
		return exitUsage
	case ctx.Err() != nil:
		return fail(stderr, exitCancelled, name+" "+args[0], err)
	case c.BadInput(err):
		return fail(stderr, exitUsage, name+" "+args[0], err)
	default:
		return fail(stderr, exitFailed, name+" "+args[0], err)
	}
}
