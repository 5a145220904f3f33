// Package runs is rpa's run store: every run of a flow (`rpa run`, a
// workflow call over MCP, over the link or through the gateway) is
// recorded where the flow runs, in an embedded SQLite database under
// $RPA_HOME/runs/ (runs.db, WAL mode, modernc.org/sqlite: no cgo), with one
// folder of artifacts per run ($RPA_HOME/runs/ID/: events.jsonl,
// screenshots, report.html).
//
// The store keeps what it is given: callers mask secrets before they hand
// anything over (interp already masks events and results; Run.Args are
// stored as given, so pass them masked, see MaskArgs).
//
// Lifecycle of a record: Begin inserts it with status "running" and the
// owning process (pid and process start time); AddStep appends one row per
// finished action; Finish sets the outcome. A process killed mid-run leaves
// a "running" record: the next Open by any process marks it "interrupted"
// once its owner is gone (a live owner's runs are left alone). Retention
// (Options.Keep, Options.MaxBytes) prunes the oldest finished runs with
// their folders, after each Finish and on Prune.
//
// A Store is safe for concurrent use, and several processes may open the
// same folder at once (SQLite WAL, a busy timeout of 5 s).
package runs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/internal/atomicfile"
	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

// Status values of a run.
const (
	StatusRunning     = "running"     // started, not finished (yet)
	StatusOK          = "ok"          // the flow succeeded
	StatusFailed      = "failed"      // the flow failed (Error* set)
	StatusCancelled   = "cancelled"   // cancelled by the caller or a signal
	StatusInterrupted = "interrupted" // its process died before it finished
)

// Caller kinds (Caller.Kind).
const (
	CallerCLI     = "cli"     // rpa run / rpa demo
	CallerMCP     = "mcp"     // a workflow tool call over stdio or HTTP
	CallerLink    = "link"    // a call relayed over `rpa connect`
	CallerGateway = "gateway" // a call through `rpa gateway` (Device set)
	// CallerSchedule is a run a schedule started (Run.Schedule names it).
	CallerSchedule = "schedule"
	// CallerDebug is a run of the console's step debugger (a person
	// stepping through a flow in the editor).
	CallerDebug = "debug"
)

// Evidence levels (Run.Evidence).
const (
	EvidenceDefault = "default" // events, step rows, a screenshot at a failure, report
	EvidenceFull    = "full"    // also a screenshot around every page action
)

// Caller says who started a run.
type Caller struct {
	Kind string `json:"kind"` // cli, mcp, link, gateway, schedule or debug
	// Session names the MCP session: SessionDigest of its ID, never the
	// raw ID (a credential on Streamable HTTP).
	Session string `json:"session,omitempty"`
	Client  string `json:"client,omitempty"` // MCP client name (clientInfo.name)
	Device  string `json:"device,omitempty"` // gateway device ID
	// Token is the TokenDigest of the bearer token the caller presented
	// (never the token; not shown): with Session, who owns the run (Owner).
	Token string `json:"-"`
}

// Run is one run record. Times are UTC; durations in milliseconds.
type Run struct {
	ID       string `json:"id"`
	Flow     string `json:"flow"`               // the flow's name
	FlowPath string `json:"flowPath,omitempty"` // its file, when it has one
	// Hash is the SHA-256 (hex) of the flow's source text, so two runs of
	// different versions of a flow can be told apart.
	Hash string `json:"hash,omitempty"`
	// Args are the arguments, secrets already "***".
	Args     map[string]any `json:"args,omitempty"`
	Caller   Caller         `json:"caller"`
	Profile  string         `json:"profile,omitempty"`
	Evidence string         `json:"evidence"` // default or full
	Start    time.Time      `json:"start"`
	// DurationMs is 0 while running.
	DurationMs int64  `json:"durationMs"`
	Status     string `json:"status"`
	// ErrorKind, ErrorMessage, ErrorLine and ErrorAction describe the
	// error that ended a failed or cancelled run (LANGUAGE.md kinds), or why
	// it was interrupted.
	ErrorKind    string `json:"errorKind,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	ErrorLine    int    `json:"errorLine,omitempty"`
	ErrorAction  string `json:"errorAction,omitempty"`
	// ResumedFrom is the ID of the run this one resumed ("" for a fresh run).
	ResumedFrom string `json:"resumedFrom,omitempty"`
	// Schedule is the name of the schedule that started the run ("" when
	// it was not scheduled: `rpa schedule`, package serve/schedule).
	Schedule string `json:"schedule,omitempty"`
	// RetryOf is the ID of the failed run of the same scheduled fire that
	// this run retries ("" for a first attempt), so the attempts link up.
	RetryOf string `json:"retryOf,omitempty"`
	// Actions and FailedActions count the step rows.
	Actions       int `json:"actions"`
	FailedActions int `json:"failedActions"`
	// Bytes is the size of the run's folder, set by Finish.
	Bytes int64 `json:"bytes"`
}

// Step is one executed action of a run (as interp's StepResult).
type Step struct {
	Index      int    `json:"index"` // 1-based, execution order
	Action     string `json:"action"`
	Line       int    `json:"line"`
	Status     string `json:"status"` // ok, failed, skipped
	DurationMs int64  `json:"durationMs"`
	Target     string `json:"target,omitempty"` // the first argument, masked
	// Selector is the selector that matched, SelectorIndex its index in
	// the fallback list (-1: no selector matched or none was used).
	Selector      string `json:"selector,omitempty"`
	SelectorIndex int    `json:"selectorIndex"`
	Error         string `json:"error,omitempty"`
	ErrorKind     string `json:"errorKind,omitempty"`
}

// Options bound the store's size. Zero values take the defaults.
type Options struct {
	// Keep is how many runs are kept (DefaultKeep); older ones are pruned.
	Keep int
	// MaxBytes bounds the total size of the run folders (DefaultMaxBytes).
	MaxBytes int64
}

// Retention defaults.
const (
	DefaultKeep     = 1000
	DefaultMaxBytes = 500 << 20
)

// OptionsFromEnv reads RPA_RUNS_KEEP (a count) and RPA_RUNS_MAX_MB
// (megabytes); unset values are 0 (the defaults). A malformed value is an
// error naming the variable.
func OptionsFromEnv() (Options, error) {
	var o Options
	if v := strings.TrimSpace(os.Getenv("RPA_RUNS_KEEP")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return o, fmt.Errorf("RPA_RUNS_KEEP=%q: want a whole number of runs, at least 1", v)
		}
		o.Keep = n
	}
	if v := strings.TrimSpace(os.Getenv("RPA_RUNS_MAX_MB")); v != "" {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || n <= 0 {
			return o, fmt.Errorf("RPA_RUNS_MAX_MB=%q: want a positive number of megabytes", v)
		}
		o.MaxBytes = int64(n * (1 << 20))
	}
	return o, nil
}

// Store is an open run store.
type Store struct {
	dir  string
	db   *sql.DB
	opts Options
	me   owner
	mu   sync.Mutex // serialises prune

	movedAside string // where Open moved a corrupt database (MovedAside)
	checked    bool   // Open checked the database (PRAGMA quick_check)
	holder     string // the Store's entry in runs/open (clean.go)
}

// MovedAside is the path Open moved a corrupt runs.db to before it created
// a fresh one ("" when the database was sound): callers log it.
func (s *Store) MovedAside() string { return s.movedAside }

// owner identifies a process: its pid and start time (clock ticks since
// boot on Linux; 0 where unknown).
type owner struct {
	pid   int
	start int64
}

// schemaHooks are the schemas of tables other files of the package add
// (fingerprint.go); Open creates them after the runs and steps tables.
var schemaHooks []string

// DBName is the database file inside the store's folder.
const DBName = "runs.db"

const schema = `
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY,
  flow TEXT NOT NULL,
  flow_path TEXT NOT NULL DEFAULT '',
  hash TEXT NOT NULL DEFAULT '',
  args TEXT NOT NULL DEFAULT '',
  caller_kind TEXT NOT NULL DEFAULT '',
  session TEXT NOT NULL DEFAULT '',
  client TEXT NOT NULL DEFAULT '',
  device TEXT NOT NULL DEFAULT '',
  token TEXT NOT NULL DEFAULT '',
  profile TEXT NOT NULL DEFAULT '',
  evidence TEXT NOT NULL DEFAULT 'default',
  start_ms INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL,
  error_kind TEXT NOT NULL DEFAULT '',
  error_message TEXT NOT NULL DEFAULT '',
  error_line INTEGER NOT NULL DEFAULT 0,
  error_action TEXT NOT NULL DEFAULT '',
  resumed_from TEXT NOT NULL DEFAULT '',
  actions INTEGER NOT NULL DEFAULT 0,
  failed_actions INTEGER NOT NULL DEFAULT 0,
  bytes INTEGER NOT NULL DEFAULT 0,
  owner_pid INTEGER NOT NULL DEFAULT 0,
  owner_start INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS runs_flow ON runs(flow, id);
CREATE INDEX IF NOT EXISTS runs_status ON runs(status, id);
CREATE TABLE IF NOT EXISTS steps (
  run_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  action TEXT NOT NULL,
  line INTEGER NOT NULL,
  status TEXT NOT NULL,
  duration_ms INTEGER NOT NULL,
  target TEXT NOT NULL DEFAULT '',
  selector TEXT NOT NULL DEFAULT '',
  selector_index INTEGER NOT NULL DEFAULT -1,
  error TEXT NOT NULL DEFAULT '',
  error_kind TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;
PRAGMA user_version = 1;
`

// Open opens (creating when needed) the store under home/runs (home is
// $RPA_HOME, see home.Dir), marks the runs of dead processes
// "interrupted" and applies retention. A database that is not a run store
// (or is damaged) is an error naming the file; it is never overwritten.
func Open(home string, opts Options) (*Store, error) {
	dir := filepath.Join(home, "runs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("run store: %w", err)
	}
	s, err := open(dir, opts)
	if err == nil || !IsCorrupt(err) {
		return s, err
	}
	// A corrupt database would stop every server and CLI command that records
	// runs: keep it for inspection under another name and start afresh.
	moved, merr := moveAside(filepath.Join(dir, DBName), time.Now())
	if merr != nil {
		return nil, fmt.Errorf("%w (and it cannot be moved aside: %v)", err, merr)
	}
	cause := err
	if s, err = open(dir, opts); err != nil {
		return nil, err
	}
	s.movedAside = moved
	slog.Warn("the run store was corrupt: it was moved aside and a fresh one created", "moved_to", moved, "cause", cause)
	return s, nil
}

// open opens (creating) the database of dir and checks it (PRAGMA
// quick_check) unless it is known sound (needsCheck, clean.go): a damaged
// file is an error IsCorrupt knows.
func open(dir string, opts Options) (*Store, error) {
	path := filepath.Join(dir, DBName)
	dsn := "file:" + filepath.ToSlash(path) + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("run store %s: %w", path, err)
	}
	if opts.Keep <= 0 {
		opts.Keep = DefaultKeep
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	s := &Store{dir: dir, db: db, opts: opts, me: self()}
	check, dead := needsCheck(dir) // clean.go
	if check {
		if err := quickCheck(db); err != nil {
			db.Close()
			return nil, fmt.Errorf("run store %s: %w", path, err)
		}
		s.checked = true
	}
	for _, sc := range append([]string{schema}, schemaHooks...) {
		if _, err := db.Exec(sc); err != nil {
			db.Close()
			return nil, fmt.Errorf("run store %s: %w", path, err)
		}
	}
	if err := s.addColumns(); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.scrubSessions(); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.markInterrupted(); err != nil {
		db.Close()
		return nil, err
	}
	if check {
		forget(dir, dead)
	}
	s.holder = register(dir, s.me)
	return s, nil
}

// scrubSessions replaces the raw MCP session IDs that versions before
// SessionDigest stored, in the database and in the runs' events.jsonl,
// with their digests (a no-op once done).
func (s *Store) scrubSessions() error {
	rows, err := s.db.Query(`SELECT id, session FROM runs WHERE session<>'' AND session NOT GLOB 's-` +
		strings.Repeat("[0-9a-f]", 12) + `'`)
	if err != nil {
		return fmt.Errorf("run store: %w", err)
	}
	raw := map[string]string{}
	for rows.Next() {
		var id, sess string
		if err := rows.Scan(&id, &sess); err != nil {
			rows.Close()
			return fmt.Errorf("run store: %w", err)
		}
		raw[id] = sess
	}
	rows.Close()
	for id, sess := range raw {
		// The run's events.jsonl names the caller too (its "run" line).
		ev := filepath.Join(s.RunDir(id), "events.jsonl")
		if b, err := os.ReadFile(ev); err == nil && strings.Contains(string(b), sess) {
			if err := atomicfile.Write(ev, []byte(strings.ReplaceAll(string(b), sess, SessionDigest(sess))), 0o600); err != nil {
				return fmt.Errorf("run store: %w", err)
			}
		}
		if _, err := s.db.Exec(`UPDATE runs SET session=? WHERE id=?`, SessionDigest(sess), id); err != nil {
			return fmt.Errorf("run store: %w", err)
		}
	}
	return nil
}

// Dir is the store's folder ($RPA_HOME/runs).
func (s *Store) Dir() string { return s.dir }

// Options returns the retention bounds in force.
func (s *Store) Options() Options { return s.opts }

// RunDir is the artifact folder of run id (not created here).
func (s *Store) RunDir(id string) string { return filepath.Join(s.dir, id) }

// Close closes the database; the last Store of the folder to close marks
// it closed cleanly (clean.go), so the next Open need not check it.
func (s *Store) Close() error {
	err := s.db.Close()
	unregister(s.dir, s.holder)
	s.holder = ""
	return err
}

// ErrNotFound is returned (wrapped) for a run ID the store does not hold.
var ErrNotFound = errors.New("no such run")

// Begin records r as running, owned by this process, and creates its
// folder. r.Caller.Session is replaced by its SessionDigest. r.ID is set with NewID(r.Start) when empty; r.Start defaults to
// now; r.Status is set to "running". Returns the folder.
func (s *Store) Begin(r *Run) (string, error) {
	if r.Start.IsZero() {
		r.Start = time.Now()
	}
	r.Start = r.Start.UTC()
	if r.ID == "" {
		r.ID = NewID(r.Start)
	} else if err := ValidID(r.ID); err != nil {
		return "", err
	}
	if r.Evidence == "" {
		r.Evidence = EvidenceDefault
	}
	r.Status = StatusRunning
	r.Caller.Session = SessionDigest(r.Caller.Session)
	args := ""
	if len(r.Args) > 0 {
		b, err := json.Marshal(r.Args)
		if err != nil {
			return "", fmt.Errorf("run %s: arguments: %w", r.ID, err)
		}
		args = string(b)
	}
	dir := s.RunDir(r.ID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("run %s: %w", r.ID, err)
	}
	_, err := s.db.Exec(`INSERT INTO runs (id, flow, flow_path, hash, args, caller_kind, session, client, device,
		token, profile, evidence, start_ms, status, resumed_from, schedule, retry_of, owner_pid, owner_start)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		r.ID, r.Flow, r.FlowPath, r.Hash, args, r.Caller.Kind, r.Caller.Session, r.Caller.Client, r.Caller.Device,
		r.Caller.Token, r.Profile, r.Evidence, r.Start.UnixMilli(), StatusRunning, r.ResumedFrom, r.Schedule, r.RetryOf,
		s.me.pid, s.me.start)
	if err != nil {
		return "", fmt.Errorf("run %s: %w", r.ID, err)
	}
	return dir, nil
}

// AddStep records one finished action of run id (a step with the same
// index replaces the earlier row, so a caller may refine it later, e.g.
// with the selector from the final result).
func (s *Store) AddStep(id string, st Step) error {
	_, err := s.db.Exec(`INSERT OR REPLACE INTO steps (run_id, idx, action, line, status, duration_ms, target,
		selector, selector_index, error, error_kind) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
		id, st.Index, st.Action, st.Line, st.Status, st.DurationMs, st.Target, st.Selector, st.SelectorIndex, st.Error, st.ErrorKind)
	if err != nil {
		return fmt.Errorf("run %s: step %d: %w", id, st.Index, err)
	}
	return nil
}

// Outcome is how a run ended (Finish).
type Outcome struct {
	Status       string // ok, failed or cancelled
	DurationMs   int64
	ErrorKind    string
	ErrorMessage string // masked
	ErrorLine    int
	ErrorAction  string
}

// Finish records how run id ended: the outcome, the step counts and the
// size of its folder, then applies retention.
func (s *Store) Finish(id string, o Outcome) error {
	size := dirSize(s.RunDir(id))
	_, err := s.db.Exec(`UPDATE runs SET status=?, duration_ms=?, error_kind=?, error_message=?, error_line=?,
		error_action=?, bytes=?,
		actions=(SELECT count(*) FROM steps WHERE run_id=?),
		failed_actions=(SELECT count(*) FROM steps WHERE run_id=? AND status<>'ok')
		WHERE id=?`,
		o.Status, o.DurationMs, o.ErrorKind, o.ErrorMessage, o.ErrorLine, o.ErrorAction, size, id, id, id)
	if err != nil {
		return fmt.Errorf("run %s: %w", id, err)
	}
	_, err = s.Prune()
	return err
}

// RecordUnstarted records a run that ended before its flow ran (a
// scheduled run whose flow or account is missing, whose browser did not
// start, or that waited too long for its profile): r is begun (Begin) and
// finished at once with o (Status failed or cancelled, and why in
// ErrorKind and ErrorMessage, masked), so it is listed like any run. It
// returns the run's ID.
func (s *Store) RecordUnstarted(r *Run, o Outcome) (string, error) {
	if _, err := s.Begin(r); err != nil {
		return "", err
	}
	return r.ID, s.Finish(r.ID, o)
}

// UpdateSize re-measures run id's folder (after an artifact was added
// once the run finished, e.g. the report).
func (s *Store) UpdateSize(id string) error {
	_, err := s.db.Exec(`UPDATE runs SET bytes=? WHERE id=?`, dirSize(s.RunDir(id)), id)
	return err
}

const runCols = `id, flow, flow_path, hash, args, caller_kind, session, client, device, token, profile, evidence, start_ms,
	duration_ms, status, error_kind, error_message, error_line, error_action, resumed_from, actions, failed_actions, bytes,
	schedule, retry_of`

func scanRun(sc interface{ Scan(...any) error }) (*Run, error) {
	var r Run
	var args string
	var start int64
	err := sc.Scan(&r.ID, &r.Flow, &r.FlowPath, &r.Hash, &args, &r.Caller.Kind, &r.Caller.Session, &r.Caller.Client,
		&r.Caller.Device, &r.Caller.Token, &r.Profile, &r.Evidence, &start, &r.DurationMs, &r.Status, &r.ErrorKind, &r.ErrorMessage,
		&r.ErrorLine, &r.ErrorAction, &r.ResumedFrom, &r.Actions, &r.FailedActions, &r.Bytes, &r.Schedule, &r.RetryOf)
	if err != nil {
		return nil, err
	}
	r.Start = time.UnixMilli(start).UTC()
	// Rows written before session IDs were digested hold the raw ID.
	r.Caller.Session = SessionDigest(r.Caller.Session)
	if args != "" {
		_ = json.Unmarshal([]byte(args), &r.Args)
	}
	return &r, nil
}

// Get returns run id; an unknown id is ErrNotFound (wrapped, naming it).
func (s *Store) Get(id string) (*Run, error) {
	r, err := scanRun(s.db.QueryRow(`SELECT `+runCols+` FROM runs WHERE id=?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("run %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", id, err)
	}
	return r, nil
}

// Steps returns the step rows of run id in execution order.
func (s *Store) Steps(id string) ([]Step, error) {
	rows, err := s.db.Query(`SELECT idx, action, line, status, duration_ms, target, selector, selector_index, error, error_kind
		FROM steps WHERE run_id=? ORDER BY idx`, id)
	if err != nil {
		return nil, fmt.Errorf("run %s: steps: %w", id, err)
	}
	defer rows.Close()
	out := []Step{}
	for rows.Next() {
		var st Step
		if err := rows.Scan(&st.Index, &st.Action, &st.Line, &st.Status, &st.DurationMs, &st.Target, &st.Selector,
			&st.SelectorIndex, &st.Error, &st.ErrorKind); err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

// Filter selects runs for List. Zero fields do not filter.
type Filter struct {
	Flow     string    // this flow name only
	Schedule string    // runs this schedule started only
	Failed   bool      // failed, cancelled or interrupted runs only
	Since    time.Time // started at or after
	Before   string    // IDs before this one (paging: pass the last ID seen)
	Limit    int       // at most this many (0: 50)
	// Owner, when set, keeps the runs it owns (Owner.Owns, with Live
	// saying which sessions are still open).
	Owner *Owner
	Live  func(session string) bool
}

// List returns runs, newest first.
func (s *Store) List(f Filter) ([]*Run, error) {
	q := `SELECT ` + runCols + ` FROM runs`
	var where []string
	var args []any
	if f.Flow != "" {
		where = append(where, "flow=?")
		args = append(args, f.Flow)
	}
	if f.Schedule != "" {
		where = append(where, "schedule=?")
		args = append(args, f.Schedule)
	}
	if f.Failed {
		where = append(where, "status IN ('failed','cancelled','interrupted')")
	}
	if !f.Since.IsZero() {
		where = append(where, "start_ms>=?")
		args = append(args, f.Since.UnixMilli())
	}
	if o := f.Owner; o != nil && !o.Desktop {
		// What Owns can accept; it decides the rest row by row.
		where = append(where, "caller_kind=? AND device=? AND token=?")
		args = append(args, o.Kind, o.Device, o.Token)
		if o.Token == "" && o.Kind != CallerLink {
			where = append(where, "session=?")
			args = append(args, o.Session)
		}
	}
	if f.Limit <= 0 {
		f.Limit = 50
	}
	out := []*Run{}
	for before := f.Before; ; {
		w, a := where, args
		if before != "" {
			w = append(w[:len(w):len(w)], "id<?")
			a = append(a[:len(a):len(a)], before)
		}
		qq := q
		if len(w) > 0 {
			qq += " WHERE " + strings.Join(w, " AND ")
		}
		page, err := s.listPage(qq+" ORDER BY id DESC LIMIT ?", append(a, f.Limit))
		if err != nil {
			return nil, err
		}
		for _, r := range page {
			if f.Owner == nil || f.Owner.Owns(OwnerOf(r.Caller), f.Live) {
				out = append(out, r)
				if len(out) == f.Limit {
					return out, nil
				}
			}
		}
		if len(page) < f.Limit {
			return out, nil
		}
		before = page[len(page)-1].ID
	}
}

func (s *Store) listPage(q string, args []any) ([]*Run, error) {
	rows, err := s.db.Query(q, args...)
	if err != nil {
		return nil, fmt.Errorf("run store: %w", err)
	}
	defer rows.Close()
	var out []*Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Prune removes the oldest finished runs (rows and folders) until at most
// Options.Keep remain and their folders total at most Options.MaxBytes.
// Running runs are never removed. Returns how many were removed.
func (s *Store) Prune() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var count int
	var total int64
	if err := s.db.QueryRow(`SELECT count(*), coalesce(sum(bytes),0) FROM runs`).Scan(&count, &total); err != nil {
		return 0, fmt.Errorf("run store: %w", err)
	}
	if count <= s.opts.Keep && total <= s.opts.MaxBytes {
		return 0, nil
	}
	rows, err := s.db.Query(`SELECT id, bytes FROM runs WHERE status<>'running' ORDER BY id`)
	if err != nil {
		return 0, fmt.Errorf("run store: %w", err)
	}
	var drop []string
	for rows.Next() && (count > s.opts.Keep || total > s.opts.MaxBytes) {
		var id string
		var b int64
		if err := rows.Scan(&id, &b); err != nil {
			rows.Close()
			return 0, err
		}
		drop = append(drop, id)
		count--
		total -= b
	}
	rows.Close()
	for _, id := range drop {
		if err := s.Delete(id); err != nil {
			return 0, err
		}
	}
	return len(drop), nil
}

// Delete removes run id's record, steps, outputs and folder.
func (s *Store) Delete(id string) error {
	if err := ValidID(id); err != nil {
		return err
	}
	// The folder goes first: a crash in between leaves a record without
	// artifacts (shown as such), never artifacts nobody lists.
	if err := os.RemoveAll(s.RunDir(id)); err != nil {
		return fmt.Errorf("run %s: %w", id, err)
	}
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`DELETE FROM steps WHERE run_id=?`, id); err != nil {
		return err
	}
	if _, err := tx.Exec(`DELETE FROM outputs WHERE run_id=?`, id); err != nil {
		return err
	}
	if _, err := tx.Exec(`DELETE FROM runs WHERE id=?`, id); err != nil {
		return err
	}
	return tx.Commit()
}

// markInterrupted marks "running" runs whose owning process is gone.
func (s *Store) markInterrupted() error {
	rows, err := s.db.Query(`SELECT id, owner_pid, owner_start, start_ms FROM runs WHERE status='running'`)
	if err != nil {
		return fmt.Errorf("run store: %w", err)
	}
	type dead struct {
		id    string
		start int64
	}
	var gone []dead
	for rows.Next() {
		var id string
		var o owner
		var start int64
		if err := rows.Scan(&id, &o.pid, &o.start, &start); err != nil {
			rows.Close()
			return err
		}
		if o == s.me || alive(o) {
			continue
		}
		gone = append(gone, dead{id, start})
	}
	rows.Close()
	for _, d := range gone {
		dur := max(s.lastActivity(d.id, d.start)-d.start, 0)
		_, err := s.db.Exec(`UPDATE runs SET status='interrupted', duration_ms=?, error_kind='interrupted',
			error_message='the process running it ended before the run finished', bytes=?,
			actions=(SELECT count(*) FROM steps WHERE run_id=?),
			failed_actions=(SELECT count(*) FROM steps WHERE run_id=? AND status<>'ok')
			WHERE id=? AND status='running'`, dur, dirSize(s.RunDir(d.id)), d.id, d.id, d.id)
		if err != nil {
			return fmt.Errorf("run store: %w", err)
		}
	}
	return nil
}

// lastActivity is the last sign of life of run id that started at start
// (Unix ms): the latest of the last event's time in events.jsonl, the
// modification time of any file of its folder (a recorder touches
// events.jsonl every HeartbeatEvery while its run lives, so a long step
// counts too) and start itself. An interrupted run's duration runs to it.
func (s *Store) lastActivity(id string, start int64) int64 {
	last := start
	dir := s.RunDir(id)
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				last = max(last, fi.ModTime().UnixMilli())
			}
		}
		return nil
	})
	if t, ok := lastEventTime(filepath.Join(dir, "events.jsonl")); ok {
		last = max(last, start+t)
	}
	return last
}

// HeartbeatEvery is how often a live run's recorder touches its
// events.jsonl (runs/record), so an interrupted run's duration
// (lastActivity) falls short of when its process died by at most this.
const HeartbeatEvery = time.Second

// lastEventTime is the "t" (ms since the run's start) of the last whole
// line of an events.jsonl; ok false when there is none.
func lastEventTime(path string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, false
	}
	const tail = 16 << 10
	off := max(fi.Size()-tail, 0)
	buf := make([]byte, fi.Size()-off)
	n, _ := f.ReadAt(buf, off)
	lines := strings.Split(string(buf[:n]), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		var ev struct {
			T *int64 `json:"t"`
		}
		if json.Unmarshal([]byte(lines[i]), &ev) == nil && ev.T != nil {
			return *ev.T, true
		}
	}
	return 0, false
}

// dirSize is the total size of the files under dir (0 when absent).
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// Ping checks the database answers (for doctor-style checks).
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// Check runs SQLite's integrity check; nil when the database is sound,
// else an error quoting the first problem.
func (s *Store) Check(ctx context.Context) error {
	var res string
	if err := s.db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&res); err != nil {
		return fmt.Errorf("run store: %w", err)
	}
	if res != "ok" {
		return fmt.Errorf("run store %s: integrity check: %s", filepath.Join(s.dir, DBName), res)
	}
	return nil
}
