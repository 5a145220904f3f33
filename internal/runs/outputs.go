package runs

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rpa-dev/rpa/internal/orderedjson"
)

// Outputs is what a finished run returned (interp.Result.Outputs), as kept
// with the run: JSON, secrets already masked (the recorder hands it over
// masked), a table's rows in the page's column order.
type Outputs struct {
	// JSON is the outputs as stored: the whole value, or when it was over
	// the store's cap (MaxOutputBytes) the same value with every list cut
	// to its first rows ("null" when even that did not fit).
	JSON json.RawMessage `json:"json"`
	// Bytes is the size of the whole value's JSON, before any cut.
	Bytes int `json:"bytes"`
	// Truncated says JSON holds fewer rows (or nothing) of a value over
	// the cap.
	Truncated bool `json:"truncated,omitempty"`
}

// MaxOutputBytes caps the outputs kept with one run (their JSON).
const MaxOutputBytes = 1 << 20

const outputsSchema = `
CREATE TABLE IF NOT EXISTS outputs (
  run_id TEXT PRIMARY KEY,
  json TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  truncated INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
`

func init() { schemaHooks = append(schemaHooks, outputsSchema) }

// SetOutputs keeps v (a run's outputs, masked: interp.Result.Outputs) with
// run id, replacing what it kept before. Its JSON over max bytes (0:
// MaxOutputBytes) is cut (Outputs.Truncated): every list keeps its first n
// items, n the largest that fits. A nil v keeps nothing.
func (s *Store) SetOutputs(id string, v any, max int) error {
	if v == nil {
		return nil
	}
	if max <= 0 {
		max = MaxOutputBytes
	}
	full, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("run %s: outputs: %w", id, err)
	}
	o := Outputs{JSON: full, Bytes: len(full)}
	if len(full) > max {
		o.Truncated = true
		o.JSON = cutToFit(full, max)
	}
	_, err = s.db.Exec(`INSERT OR REPLACE INTO outputs (run_id, json, bytes, truncated) VALUES (?,?,?,?)`,
		id, string(o.JSON), o.Bytes, o.Truncated)
	if err != nil {
		return fmt.Errorf("run %s: outputs: %w", id, err)
	}
	return nil
}

// Outputs returns the outputs kept with run id; nil (and no error) when
// it kept none (a failed run, or one recorded before outputs were kept).
func (s *Store) Outputs(id string) (*Outputs, error) {
	var o Outputs
	var js string
	err := s.db.QueryRow(`SELECT json, bytes, truncated FROM outputs WHERE run_id=?`, id).Scan(&js, &o.Bytes, &o.Truncated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("run %s: outputs: %w", id, err)
	}
	o.JSON = json.RawMessage(js)
	return &o, nil
}

// cutToFit returns full (a JSON value) with every array cut to its first
// n items, n the largest that keeps it within max bytes; "null" when not
// even n = 0 fits. Object keys keep their order.
func cutToFit(full []byte, max int) json.RawMessage {
	v, err := orderedjson.Decode(full)
	if err != nil {
		return json.RawMessage("null")
	}
	enc := func(n int) []byte {
		b, err := json.Marshal(cutLists(v, n))
		if err != nil {
			return nil
		}
		return b
	}
	if b := enc(0); b == nil || len(b) > max {
		return json.RawMessage("null")
	}
	lo, hi := 0, longestList(v) // enc(lo) fits; enc(hi) is full and does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if len(enc(mid)) <= max {
			lo = mid
		} else {
			hi = mid
		}
	}
	return enc(lo)
}

// cutLists returns v with every array cut to its first n items.
func cutLists(v any, n int) any {
	switch x := v.(type) {
	case []any:
		if len(x) > n {
			x = x[:n]
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cutLists(e, n)
		}
		return out
	case *orderedjson.Object:
		o := &orderedjson.Object{Keys: x.Keys, Vals: make(map[string]any, len(x.Vals))}
		for k, e := range x.Vals {
			o.Vals[k] = cutLists(e, n)
		}
		return o
	}
	return v
}

// longestList is the length of the longest array inside v.
func longestList(v any) int {
	n := 0
	switch x := v.(type) {
	case []any:
		n = len(x)
		for _, e := range x {
			n = max(n, longestList(e))
		}
	case *orderedjson.Object:
		for _, e := range x.Vals {
			n = max(n, longestList(e))
		}
	}
	return n
}
