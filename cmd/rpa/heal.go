package main

import (
	"context"
	"fmt"
	"io"

	"github.com/rpa-dev/rpa/heal"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/stdlib"
)

// healUsage is the help of --heal (run; docs/healing.md).
const healUsage = `healing when no selector finds an element found before: off, suggest (default), auto, ask-model; overrides the flow's "defaults heal:"`

// healFor returns ctx carrying the heal hook of a run of f (mode: flag over
// the flow's defaults over suggest; marks kept in rec's store) and a func
// that writes the run's marks (call it before rec.finish). A bad --heal is
// reported by checkHeal before the run.
func healFor(ctx context.Context, flag string, f *lang.Flow, rec *cliRun, stderr io.Writer) (context.Context, func()) {
	mode, err := heal.Resolve(flag, f)
	if err != nil || mode == heal.Off {
		return ctx, func() {}
	}
	var store heal.Store
	run := ""
	if rec != nil {
		store = rec.st
		run = rec.rec.ID()
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
