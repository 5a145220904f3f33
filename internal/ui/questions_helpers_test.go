package ui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/snapshot"
)

// uibVolatile matches what changes from one run of the tests of the runs,
// questions, status and record pages to the next.
var uibVolatile = []struct {
	re  *regexp.Regexp
	rep string
}{
	{regexp.MustCompile(`\d{8}T\d{9}-[0-9a-f]{4}`), "RUNID"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?`), "DATETIME"},
	{regexp.MustCompile(`\d{1,2}:\d\d:\d\d( [AP]M)?`), "TIME"},
	{regexp.MustCompile(`pid \d+(, \d+)*`), "pid N"}, // (a browser's helper processes may follow its pid)
	{regexp.MustCompile(`127\.0\.0\.1:\d+`), "127.0.0.1:PORT"},
	{regexp.MustCompile(`\d+(\.\d+)? ?(ms|s)\b`), "DUR"},
	{regexp.MustCompile(` \[ref=[a-z0-9]+\]`), ""},
}

// uibCheck is checkPage with the volatile parts of these pages (run IDs,
// clock times, pids, ports, durations) replaced: the page's structure (its
// accessibility snapshot) against testdata/golden/NAME.txt, and with -update
// a screenshot as testdata/screenshots/NAME.png. Only the <main> part is
// compared (the navigation bar grows as pages are added).
func uibCheck(t *testing.T, c *console, pg drivers.Page, name string) {
	t.Helper()
	ctx := step(t)
	snap, err := snapshot.Take(ctx, pg, snapshot.Options{MaxRows: 3})
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	var b strings.Builder
	for _, l := range snap.Lines {
		b.WriteString(strings.Repeat("  ", l.Depth) + l.Text + "\n")
	}
	// Only <main>: the nav grows as pages are added.
	got := b.String()
	if i := strings.Index(got, "- main:"); i >= 0 {
		got = got[i:]
	}
	got = strings.ReplaceAll(got, c.dir, "$FLOWS")
	got = strings.ReplaceAll(got, c.home, "$HOME")
	for _, v := range uibVolatile {
		got = v.re.ReplaceAllString(got, v.rep)
	}
	golden(t, ctx, pg, name, got)
}
