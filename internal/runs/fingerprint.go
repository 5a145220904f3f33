package runs

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Marks are what healing (package heal, docs/healing.md) keeps of each
// successful locate of a page action: per flow, line and selector list,
// which selector matched (or the new list when the step healed) and the
// element's fingerprint. The table lives in the run store's database; its
// schema is created by Open (schemaHooks).

// KeepMarks is how many marks are kept per flow, line and selector list
// (the newest); older ones are deleted when new ones are added.
const KeepMarks = 20

const marksSchema = `
CREATE TABLE IF NOT EXISTS heal_marks (
  flow TEXT NOT NULL,
  line INTEGER NOT NULL,
  sels TEXT NOT NULL,
  at INTEGER NOT NULL,
  run TEXT NOT NULL DEFAULT '',
  matched INTEGER NOT NULL,
  healed TEXT NOT NULL DEFAULT '',
  score REAL NOT NULL DEFAULT 0,
  fp TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS heal_marks_key ON heal_marks(flow, sels, line, at);
CREATE INDEX IF NOT EXISTS heal_marks_flow ON heal_marks(flow, at);
`

func init() {
	schemaHooks = append(schemaHooks, marksSchema)
	addColumn("heal_marks", "page", "TEXT NOT NULL DEFAULT ''")
}

// Special values of Mark.Matched.
const (
	MatchedHealed = -1
	MatchedNone   = -2
)

// Mark is one locate of a page action: which selector matched, or that it
// healed, or that nothing matched.
type Mark struct {
	Flow      string    `json:"flow"`
	Line      int       `json:"line"`
	Selectors []string  `json:"selectors"` // the list as the flow wrote it (masked)
	At        time.Time `json:"at"`
	Run       string    `json:"run,omitempty"` // run ID when known
	// Matched is the index in Selectors of the selector that matched;
	// MatchedHealed when the step healed (Healed is then the healed
	// element's list), MatchedNone when nothing matched and it did not
	// heal (no fingerprint then).
	Matched int      `json:"matched"`
	Healed  []string `json:"healed,omitempty"`
	Score   float64  `json:"score,omitempty"`
	// Fingerprint is the element's drivers.Fingerprint as JSON (masked;
	// never a field's value).
	Fingerprint json.RawMessage `json:"fingerprint,omitempty"`
	// Page, with MatchedNone, is why nothing matched when the page, not
	// the selectors, was to blame: the kind of drivers.PageState that
	// ended the wait (sign_in, error, http_error).
	Page string `json:"page,omitempty"`
}

// AddMarks stores ms in one transaction and keeps the newest KeepMarks of
// each key it touched.
func (s *Store) AddMarks(ms []Mark) error {
	if len(ms) == 0 {
		return nil
	}
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("run store: marks: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	type key struct {
		flow, sels string
		line       int
	}
	seen := map[key]bool{}
	for _, m := range ms {
		sels, _ := json.Marshal(m.Selectors)
		var healed []byte
		if len(m.Healed) > 0 {
			healed, _ = json.Marshal(m.Healed)
		}
		at := m.At
		if at.IsZero() {
			at = time.Now()
		}
		if _, err := tx.Exec(`INSERT INTO heal_marks(flow, line, sels, at, run, matched, healed, score, fp, page) VALUES (?,?,?,?,?,?,?,?,?,?)`,
			m.Flow, m.Line, string(sels), at.UnixNano(), m.Run, m.Matched, string(healed), m.Score, string(m.Fingerprint), m.Page); err != nil {
			return fmt.Errorf("run store: marks: %w", err)
		}
		seen[key{m.Flow, string(sels), m.Line}] = true
	}
	for k := range seen {
		if _, err := tx.Exec(`DELETE FROM heal_marks WHERE flow = ? AND sels = ? AND line = ? AND at NOT IN
			(SELECT at FROM heal_marks WHERE flow = ? AND sels = ? AND line = ? ORDER BY at DESC LIMIT ?)`,
			k.flow, k.sels, k.line, k.flow, k.sels, k.line, KeepMarks); err != nil {
			return fmt.Errorf("run store: marks: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("run store: marks: %w", err)
	}
	return nil
}

// LastFingerprint returns the newest fingerprint stored for flow's
// selector list sels (at any line), else for flow's line; nil when none.
func (s *Store) LastFingerprint(flow string, line int, sels []string) (json.RawMessage, error) {
	js, _ := json.Marshal(sels)
	var fp string
	err := s.db.QueryRow(`SELECT fp FROM heal_marks WHERE flow = ? AND sels = ? AND fp != '' ORDER BY line = ? DESC, at DESC LIMIT 1`, flow, string(js), line).Scan(&fp)
	if errors.Is(err, sql.ErrNoRows) {
		err = s.db.QueryRow(`SELECT fp FROM heal_marks WHERE flow = ? AND line = ? AND fp != '' ORDER BY at DESC LIMIT 1`, flow, line).Scan(&fp)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("run store: marks: %w", err)
	}
	return json.RawMessage(fp), nil
}

// Marks returns flow's marks, newest first, at most limit (0: all kept).
func (s *Store) Marks(flow string, limit int) ([]Mark, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.db.Query(`SELECT flow, line, sels, at, run, matched, healed, score, fp, page FROM heal_marks WHERE flow = ? ORDER BY at DESC LIMIT ?`, flow, limit)
	if err != nil {
		return nil, fmt.Errorf("run store: marks: %w", err)
	}
	defer rows.Close()
	var out []Mark
	for rows.Next() {
		var m Mark
		var sels, healed, fp string
		var at int64
		if err := rows.Scan(&m.Flow, &m.Line, &sels, &at, &m.Run, &m.Matched, &healed, &m.Score, &fp, &m.Page); err != nil {
			return nil, fmt.Errorf("run store: marks: %w", err)
		}
		m.At = time.Unix(0, at)
		_ = json.Unmarshal([]byte(sels), &m.Selectors)
		if healed != "" {
			_ = json.Unmarshal([]byte(healed), &m.Healed)
		}
		if fp != "" {
			m.Fingerprint = json.RawMessage(fp)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
