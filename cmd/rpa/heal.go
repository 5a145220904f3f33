package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rpa-dev/rpa/heal"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/stdlib"
)

// healUsage is the help of --heal (run; docs/healing.md).
const healUsage = `healing when no selector finds an element found before: off, suggest (default), auto, ask-model; overrides the flow's "defaults heal:"`

// healFor returns ctx carrying the heal hook of a run of f (mode: flag over
// the flow's defaults over suggest; marks kept in rec's store) and a func
// that writes the run's marks (call it before finishing rec). A bad --heal is
// reported by checkHeal before the run.
func healFor(ctx context.Context, flag string, f *lang.Flow, rec *cliRun, stderr io.Writer) (context.Context, func()) {
	mode, err := heal.Resolve(flag, f)
	if err != nil || mode == heal.Off {
		return ctx, func() {}
	}
	var store heal.Store
	run := ""
	if rec != nil {
		store = rec.Store
		run = rec.Rec.ID()
	}
	h := heal.New(mode, store, run)
	return stdlib.WithLocateHook(ctx, h), func() {
		if err := h.Flush(); err != nil {
			fmt.Fprintf(stderr, "rpa run: healing marks not kept: %v\n", err)
		}
	}
}

// checkHeal checks a --heal value.
func checkHeal(flag string) error {
	if flag == "" {
		return nil
	}
	_, err := heal.ParseMode(flag)
	return err
}

func init() {
	register(command{
		name:    "heal",
		usage:   "rpa heal FLOW [--runs N] [--write] [--json]",
		summary: "propose a patch of FLOW from its runs' healing marks (reordered fallbacks, healed selectors, stale lines); --write applies it",
		run: func(args []string, stdout, stderr io.Writer) int {
			return runHeal(args, stdout, stderr)
		},
	})
}

// runHeal is `rpa heal`: it prints the unified diff of the proposals
// (nothing when there are none) or, with --write, applies it through the
// formatter (temp file + rename).
func runHeal(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("heal", stderr)
	n := fs.Int("runs", heal.DefaultRuns, "look at the last N runs of each line")
	write := fs.Bool("write", false, "apply the patch to FLOW (formatted; comments kept)")
	asJSON := fs.Bool("json", false, "print the proposals as JSON instead of a diff")
	pos, done, code := parseArgs(fs, args)
	if done {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "rpa heal: which flow? give one FILE (.flow)")
		fs.Usage()
		return exitUsage
	}
	path := pos[0]
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "rpa heal: %v\n", err)
		return exitUsage
	}
	file, ds := lang.Parse(filepath.Base(path), src)
	if ds.HasErrors() {
		fmt.Fprint(stderr, ds.Error())
		return exitUsage
	}
	st, err := (*evidenceFlags)(nil).openStore()
	if err != nil {
		fmt.Fprintf(stderr, "rpa heal: run store: %v\n", err)
		return exitFailed
	}
	defer st.Close()
	marks, err := st.Marks(file.Name, 0)
	if err != nil {
		fmt.Fprintf(stderr, "rpa heal: %v\n", err)
		return exitFailed
	}
	props := heal.Propose(file, marks, *n)
	if *asJSON {
		if props == nil {
			props = []heal.Proposal{}
		}
		b, _ := json.MarshalIndent(props, "", "  ")
		fmt.Fprintln(stdout, string(b))
		return exitOK
	}
	if len(props) == 0 {
		fmt.Fprintf(stderr, "rpa heal: nothing to propose for %s (%d marks)\n", file.Name, len(marks))
		return exitOK
	}
	out, err := heal.Apply(filepath.Base(path), src, file, props)
	if err != nil {
		fmt.Fprintf(stderr, "rpa heal: %v\n", err)
		return exitFailed
	}
	if !*write {
		fmt.Fprint(stdout, heal.Diff(filepath.Base(path), src, out))
		return exitOK
	}
	if err := writeFileKeepMode(path, path, out); err != nil {
		fmt.Fprintf(stderr, "rpa heal: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stderr, "rpa heal: %s: %d changes written\n", path, len(props))
	return exitOK
}
