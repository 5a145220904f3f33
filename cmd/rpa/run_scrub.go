package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/profiles"
)

// scrubAfterRun returns what `rpa run` defers before closing its browser
// (so it runs after): the values of the flow's secret params are scrubbed
// from a persistent profile folder (profiles.Scrub: History, cache and
// session files), since Chromium keeps every address it opened. A
// temporary profile is removed whole instead; an attached browser's
// profile is not ours. Call it after the launch: until the scrub succeeds
// the folder holds drivers.DirtyFileName, so a kill before it leads the
// next claim to wipe the folder's history-like files.
func scrubAfterRun(dir string, f *lang.Flow, typed map[string]any, stderr io.Writer) func() {
	if dir == "" || strings.HasPrefix(dir, filepath.Join(drivers.Home(), "tmp")+string(filepath.Separator)) {
		return func() {}
	}
	var secrets []string
	for _, p := range f.File.Params {
		if p.Type != nil && p.Type.Name == "secret" {
			if v, ok := typed[p.Name].(string); ok && v != "" {
				secrets = append(secrets, v)
			}
		}
	}
	if len(secrets) == 0 {
		return func() {}
	}
	// Marked until the scrub succeeds: if this process is killed first,
	// the next claim of the folder wipes its history-like files
	// (drivers.ClaimProfile). Called after the launch's claim.
	if err := drivers.MarkDirty(dir); err != nil {
		fmt.Fprintf(stderr, "rpa: cannot mark the profile for a scrub: %v\n", err)
	}
	return func() {
		if _, err := profiles.Scrub(dir, secrets); err != nil {
			fmt.Fprintf(stderr, "rpa: the profile could not be fully cleaned of the run's secrets: %v\n", err)
			return
		}
		_ = drivers.ClearDirty(dir)
	}
}
