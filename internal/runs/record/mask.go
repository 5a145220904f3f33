package record

import "github.com/rpa-dev/rpa/interp"

// Mask is the record's masker: the run's secrets (Options.Secrets and the
// flow's secret params). Pass it to the run as interp.Options.Mask so the
// values the run derives from a secret (a secret transformed inside
// {{ }}: open "{{ urlquery(lower(password)) }}") are registered with it
// and hidden in what the record reads from the page itself (URLs, tabs,
// titles, snapshot, failure screenshots) as well as in events.
func (r *Recorder) Mask() *interp.Mask { return r.mask }

// Mask is the record's masker for interp.Options.Mask (Recorder.Mask);
// on a nil Local (a run not recorded) it is nil, and interp makes its own.
func (l *Local) Mask() *interp.Mask {
	if l == nil || l.Rec == nil {
		return nil
	}
	return l.Rec.Mask()
}
