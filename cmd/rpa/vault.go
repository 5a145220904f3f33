package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/cli"
	"github.com/rpa-dev/rpa/internal/host/vault"
)

func init() {
	register(command{name: "vault", usage: vault.Usage, run: runVault,
		summary: "keep accounts (username, password, TOTP seed, ...) for credential params, encrypted in $RPA_HOME/vault"})
}

// vaultStdin is where `rpa vault set` reads (tests replace it).
var vaultStdin io.Reader = os.Stdin

// runVault is `rpa vault SUB` (vault.Cmd): exit 0 done, 1 refused (no
// such account, a vault that cannot be opened), 2 usage or bad input.
func runVault(args []string, stdout, stderr io.Writer) int {
	c := &vault.Cmd{Home: drivers.Home(), Stdin: vaultStdin, Ask: vault.TerminalAsker, Stdout: stdout, Stderr: stderr}
	if f, ok := vaultStdin.(*os.File); ok {
		c.StdinTTY = term.IsTerminal(int(f.Fd()))
	}
	if len(args) == 0 {
		return fail(stderr, exitUsage, "vault", vault.ErrUsage)
	}
	fs := cli.SubFlags("vault "+args[0], vault.Usage, "", stderr)
	fs.BoolVar(&c.Merge, "merge", false, "set: keep the account's other fields")
	fs.Func("field", "set: also ask for this field (repeatable)", func(s string) error { c.Fields = append(c.Fields, s); return nil })
	fs.BoolVar(&c.JSON, "json", false, "list: print JSON")
	fs.StringVar(&c.Out, "o", "", "export: the file to write")
	fs.BoolVar(&c.Overwrite, "overwrite", false, "import: replace accounts the vault holds")
	pos, done, code := parseArgs(fs, args[1:])
	if done {
		return code
	}
	switch err := c.Run(args[0], pos); {
	case err == nil:
		return exitOK
	case vault.Refused(err):
		return fail(stderr, exitFailed, "vault "+args[0], err)
	case errors.Is(err, vault.ErrUsage):
		fmt.Fprintln(stderr, err)
		return exitUsage
	default:
		return fail(stderr, exitUsage, "vault "+args[0], err)
	}
}
