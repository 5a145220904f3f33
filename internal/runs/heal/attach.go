package heal

import (
	"context"
	"os"
	"path/filepath"

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
	Proposals []Proposal // empty when there is nothing to propose
	Src, Out  []byte     // the file's text and the patched text (Out nil without proposals)
}

// Diff is the unified diff of the patch under the file's base name ("" when
// nothing is proposed).
func (p *FilePatch) Diff(path string) string {
	if p.Out == nil {
		return ""
	}
	return Diff(filepath.Base(path), p.Src, p.Out)
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
	p := &FilePatch{Flow: file.Name, Marks: len(marks), Src: src, Proposals: Propose(file, marks, n)}
	if len(p.Proposals) == 0 {
		return p, nil, nil
	}
	if p.Out, err = Apply(base, src, file, p.Proposals); err != nil {
		return nil, nil, err
	}
	return p, nil, nil
}
