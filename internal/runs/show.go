package runs

import "io"

// OpenRun opens the store under home (OpenHome, the environment's
// retention) at run id: `rpa runs show ID`, `rpa runs report ID`. An id
// that is not a run ID is ValidID's error, an unknown one wraps
// ErrNotFound; the store is closed on an error, else the caller closes it.
func OpenRun(home, id string) (*Store, *Run, error) {
	if err := ValidID(id); err != nil {
		return nil, nil, err
	}
	st, err := OpenHome(home, 0, 0)
	if err != nil {
		return nil, nil, err
	}
	r, err := st.Get(id)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, r, nil
}

// Show writes run r of s with its steps and kept outputs on w: as JSON (RunSteps, WriteJSON)
// or as text (WriteRun).
func (s *Store) Show(w io.Writer, r *Run, asJSON bool) error {
	steps, err := s.Steps(r.ID)
	if err != nil {
		return err
	}
	out, err := s.Outputs(r.ID)
	if err != nil {
		return err
	}
	if asJSON {
		rs := RunSteps{Run: r, Steps: steps}
		if out != nil {
			rs.Outputs, rs.OutputsTruncated = out.JSON, out.Truncated
		}
		return WriteJSON(w, rs)
	}
	if err := WriteRun(w, r, steps, s.RunDir(r.ID)); err != nil {
		return err
	}
	return WriteOutputs(w, r.ID, out)
}
