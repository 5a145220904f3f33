package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/rpa-dev/rpa/internal/host/home"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/heal"
)

func init() {
	register(command{
		name:    "heal",
		usage:   "rpa heal FLOW [--runs N] [--write] [--json]",
		summary: "propose a patch of FLOW from its runs' healing marks (reordered fallbacks, healed selectors, stale lines); --write applies it",
		run:     runHeal,
	})
}

// runHeal is `rpa heal`: it prints the unified diff of the proposals
// (heal.ProposeFile; nothing when there are none) or, with --write, applies
// it through the formatter (temp file + rename).
func runHeal(args []string, stdout, stderr io.Writer) int {
	flags := newFlags("heal", stderr)
	n := flags.Int("runs", heal.DefaultRuns, "look at the last N runs of each line")
	write := flags.Bool("write", false, "apply the patch to FLOW (formatted; comments kept)")
	asJSON := flags.Bool("json", false, "print the proposals as JSON instead of a diff")
	pos, done, code := parseArgs(flags, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "rpa heal: which flow? give one FILE (.flow)")
		flags.Usage()
		return exitUsage
	}
	path := pos[0]
	st, err := runs.OpenHome(home.Dir(), 0, 0)
	if err != nil {
		return fail(stderr, exitFailed, "heal", fmt.Errorf("run store: %w", err))
	}
	defer st.Close()
	p, ds, err := heal.ProposeFile(path, st, *n)
	switch {
	case ds.HasErrors():
		fmt.Fprint(stderr, ds.Error())
		return exitUsage
	case errors.As(err, new(*fs.PathError)):
		return fail(stderr, exitUsage, "heal", err) // FLOW cannot be read
	case err != nil:
		return fail(stderr, exitFailed, "heal", err)
	}
	if err := p.Print(stdout, stderr, path, *asJSON, *write); err != nil {
		return fail(stderr, exitFailed, "heal", err)
	}
	return exitOK
}
