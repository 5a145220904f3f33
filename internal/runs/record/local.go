package record

import (
	"context"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/interp"
)

// Local is the record of a run made in this process (`rpa run`): the
// store it is kept in, which it owns, and its recorder. A nil *Local is a
// run that is not recorded; its methods do nothing.
type Local struct {
	Store *runs.Store
	Rec   *Recorder
}

// StartLocal begins the record of a run in st (o.Store is set to st). On
// an error st is closed.
func StartLocal(st *runs.Store, o Options) (*Local, error) {
	o.Store = st
	rec, err := Start(o)
	if err != nil {
		st.Close()
		return nil, err
	}
	return &Local{Store: st, Rec: rec}, nil
}

// Hook wraps next with the recorder; on a nil Local it is next.
func (l *Local) Hook(next func(interp.Event)) func(interp.Event) {
	if l == nil {
		return next
	}
	return l.Rec.Hook(next)
}

// Finish completes the record (Recorder.Finish) and closes the store. It
// returns what was recorded (the run ID, the report's path, "" when it
// could not be written) and the first error met while recording (the
// record is incomplete; the run is not affected). On a nil Local it
// returns nil, nil.
func (l *Local) Finish(ctx context.Context, res *interp.Result, page drivers.Page) (*Finished, error) {
	if l == nil {
		return nil, nil
	}
	defer l.Store.Close()
	fin := l.Rec.Finish(ctx, res, page)
	return fin, fin.Err
}

// Line is what a command prints at the end of a recorded run:
// "run ID  report PATH" (without the report when it could not be
// written); "" for nil.
func (f *Finished) Line() string {
	if f == nil {
		return ""
	}
	line := "run " + f.ID
	if f.Report != "" {
		line += "  report " + f.Report
	}
	return line
}
