package heal

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rpa-dev/rpa/internal/atomicfile"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/diag"
	"github.com/rpa-dev/rpa/stdlib"
)

// ModeUsage is the help of a --heal flag (rpa run, serve, connect;
// docs/healing.md).
const ModeUsage = `healing when no selector finds an element found before: off, suggest (default), auto, ask-model; overrides the flow's "defaults heal:"`

// CheckFlag checks a --heal value; "" is valid (the flow's `defaults
// heal:`, else DefaultMode, applies).
func CheckFlag(flag string) error {
	if flag == "" {
		return nil
	}
	_, err := ParseMode(flag)
	return err
}

// Attach returns ctx carrying the heal hook of one run of f
// (stdlib.WithLocateHook; the mode is flag over the flow's `defaults heal:`
// over suggest, see Resolve) and a func that writes the run's marks into
// store under run (the run's ID) and returns the error of that write; call
// it when the run ended, before its record is finished. store may be nil
// (no marks are kept). With mode off, or a bad flag (CheckFlag reports it
// before the run), ctx is returned as it is and flush does nothing.
func Attach(ctx context.Context, flag string, f *lang.Flow, store Store, run string) (context.Context, func() error) {
	mode, err := Resolve(flag, f)
	if err != nil || mode == Off {
		return ctx, func() error { return nil }
	}
	h := New(mode, store, run)
	return stdlib.WithLocateHook(ctx, h), h.Flush
}

// MarkSource gives the healing marks of a flow's runs, newest first
// (*runs.Store; limit <= 0: all).
type MarkSource interface {
	Marks(flow string, limit int) ([]runs.Mark, error)
}

// FilePatch is what healing proposes for one flow file from its runs'
// marks (`rpa heal`).
type FilePatch struct {
	Flow      string     // the flow's name
	Marks     int        // how many marks were read
	Runs      int        // how many runs they come from (a mark without a run ID counts as one)
	Proposals []Proposal // empty when there is nothing to propose
	Notes     []Note     // lines whose failures were the page's (Notes)
	Src, Out  []byte     // the file's text and the patched text (Out nil without proposals)
}

// countRuns is how many runs marks come from (a mark without a run ID
// counts as one).
func countRuns(marks []runs.Mark) int {
	seen := map[string]bool{}
	n := 0
	for _, m := range marks {
		if m.Run == "" || !seen[m.Run] {
			n++
		}
		seen[m.Run] = true
	}
	return n
}

// Diff is the unified diff of the patch under the file's base name ("" when
// nothing is proposed).
func (p *FilePatch) Diff(path string) string {
	if p.Out == nil {
		return ""
	}
	return Diff(filepath.Base(path), p.Src, p.Out)
}

// Print is what `rpa heal` prints for the patch of the file at path: each
// note on stderr ("rpa heal: FILE:LINE: text"), then the proposals as JSON
// ([{line, kind, old, new, note}]) on stdout with asJSON, else a line on
// stderr when there are none, else the diff on stdout or, with write, the
// patched file written in place (temp file + rename) and a line on stderr.
// The error is the write's.
func (p *FilePatch) Print(stdout, stderr io.Writer, path string, asJSON, write bool) error {
	for _, nt := range p.Notes {
		fmt.Fprintf(stderr, "rpa heal: %s:%d: %s\n", path, nt.Line, nt.Text)
	}
	switch {
	case asJSON:
		b, _ := json.MarshalIndent(append([]Proposal{}, p.Proposals...), "", "  ")
		fmt.Fprintln(stdout, string(b))
	case len(p.Proposals) == 0:
		fmt.Fprintf(stderr, "rpa heal: nothing to propose for %s (%d marks of %d runs)\n", p.Flow, p.Marks, p.Runs)
	case !write:
		fmt.Fprint(stdout, p.Diff(path))
	default:
		if err := atomicfile.WriteLike(path, path, p.Out); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "rpa heal: %s: %d changes written\n", path, len(p.Proposals))
	}
	return nil
}

// ProposeFile reads the flow file at path, reads its marks from ms and
// proposes the patch of the last n runs of each line (Propose, Apply). A
// file that cannot be read is an error; one that does not parse returns
// its diagnostics (and a nil patch).
func ProposeFile(path string, ms MarkSource, n int) (*FilePatch, diag.Diagnostics, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	base := filepath.Base(path)
	file, ds := lang.Parse(base, src)
	if ds.HasErrors() {
		return nil, ds, nil
	}
	marks, err := ms.Marks(file.Name, 0)
	if err != nil {
		return nil, nil, err
	}
	p := &FilePatch{Flow: file.Name, Marks: len(marks), Runs: countRuns(marks), Src: src, Proposals: Propose(file, marks, n), Notes: Notes(file, marks, n)}
	if len(p.Proposals) == 0 {
		return p, nil, nil
	}
	if p.Out, err = Apply(base, src, file, p.Proposals); err != nil {
		return nil, nil, err
	}
	return p, nil, nil
}
