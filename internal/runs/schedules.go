package runs

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Schedules (`rpa schedule`, package serve/schedule) live in the run store
// beside the runs they start, so every rpa process on one $RPA_HOME sees
// the same ones and a scheduled run is an ordinary run (Run.Schedule).
//
// Three tables: schedules (one row per schedule: its definition as JSON,
// which package serve/schedule owns, paused, the next due time),
// schedule_fires (one row per time a schedule fired, or was missed: a
// queue entry while it waits, then its attempts' runs and outcome) and
// leases (which process is the scheduler now). Every change of state is
// one conditional statement or one IMMEDIATE transaction, so two
// processes never both fire one due time, both start one queued fire, or
// together pass a concurrency limit.

const schedulesSchema = `
CREATE TABLE IF NOT EXISTS schedules (
  name TEXT PRIMARY KEY,
  flow TEXT NOT NULL DEFAULT '',
  def TEXT NOT NULL,
  paused INTEGER NOT NULL DEFAULT 0,
  next_ms INTEGER NOT NULL DEFAULT 0,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS schedule_fires (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  schedule TEXT NOT NULL,
  due_ms INTEGER NOT NULL,
  kind TEXT NOT NULL,
  state TEXT NOT NULL,
  attempt INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL DEFAULT 1,
  not_before_ms INTEGER NOT NULL DEFAULT 0,
  queued_ms INTEGER NOT NULL DEFAULT 0,
  started_ms INTEGER NOT NULL DEFAULT 0,
  ended_ms INTEGER NOT NULL DEFAULT 0,
  run_id TEXT NOT NULL DEFAULT '',
  runs TEXT NOT NULL DEFAULT '',
  flow TEXT NOT NULL DEFAULT '',
  site TEXT NOT NULL DEFAULT '',
  account TEXT NOT NULL DEFAULT '',
  max_flow INTEGER NOT NULL DEFAULT 0,
  max_site INTEGER NOT NULL DEFAULT 0,
  max_account INTEGER NOT NULL DEFAULT 0,
  waiting TEXT NOT NULL DEFAULT '',
  error TEXT NOT NULL DEFAULT '',
  notify TEXT NOT NULL DEFAULT '',
  holder TEXT NOT NULL DEFAULT '',
  owner_pid INTEGER NOT NULL DEFAULT 0,
  owner_start INTEGER NOT NULL DEFAULT 0,
  UNIQUE (schedule, due_ms, kind)
);
CREATE INDEX IF NOT EXISTS schedule_fires_state ON schedule_fires(state, due_ms);
CREATE INDEX IF NOT EXISTS schedule_fires_schedule ON schedule_fires(schedule, id);
CREATE TABLE IF NOT EXISTS leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  program TEXT NOT NULL DEFAULT '',
  pid INTEGER NOT NULL DEFAULT 0,
  pstart INTEGER NOT NULL DEFAULT 0,
  until_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS schedule_meta (
  k TEXT PRIMARY KEY,
  v INTEGER NOT NULL
);
`

func init() {
	schemaHooks = append(schemaHooks, schedulesSchema)
	addColumn("runs", "schedule", "TEXT NOT NULL DEFAULT ''")
	addColumn("runs", "retry_of", "TEXT NOT NULL DEFAULT ''")
	addColumn("schedule_fires", "waiting_pid", "INTEGER NOT NULL DEFAULT 0")
}

// Errors of the schedule calls (wrapped, naming the schedule).
var (
	ErrNoSchedule     = errors.New("no such schedule")
	ErrScheduleExists = errors.New("a schedule of that name exists")
)

// ScheduleRecord is one schedule as the store keeps it. Times are UTC.
type ScheduleRecord struct {
	Name string `json:"name"`
	Flow string `json:"flow"` // the flow's name, for listings
	// Def is the definition, as package serve/schedule writes it (JSON).
	Def     json.RawMessage `json:"def"`
	Paused  bool            `json:"paused"`
	Next    time.Time       `json:"next"` // the next due time; zero while paused
	Created time.Time       `json:"created"`
	Updated time.Time       `json:"updated"`
}

// Fire kinds (Fire.Kind).
const (
	FireCron    = "cron"    // a due time of the schedule, on time
	FireCatchUp = "catchup" // the one run policy "once" makes up for missed times
	FireManual  = "manual"  // `rpa schedule run-now`, the console's "run now"
	FireMissed  = "missed"  // due times nobody fired in time (policy "skip"): a note, never run
)

// Fire states (Fire.State).
const (
	FireQueued    = "queued"    // waits for its time (a retry), a limit or a free slot
	FireRunning   = "running"   // an attempt runs
	FireOK        = "ok"        // an attempt succeeded
	FireFailed    = "failed"    // the last attempt failed (Error says why)
	FireDropped   = "dropped"   // it waited past the queue's bounds (Error says which)
	FireCancelled = "cancelled" // its schedule was removed, or its process stopped it
	FireSkipped   = "skipped"   // missed due times (Kind FireMissed), not run
)

// Limits are the most runs of scheduled fires that may run at once, per
// flow, per site (the host of the flow's first `open`) and per account
// (the account, else the profile). 0 is no limit.
type Limits struct {
	Flow    int `json:"flow,omitempty"`
	Site    int `json:"site,omitempty"`
	Account int `json:"account,omitempty"`
}

// Fire is one time a schedule fired (or was missed): a queue entry while
// it waits, then its attempts and outcome. Times are UTC; zero when unset.
type Fire struct {
	ID       int64     `json:"id"`
	Schedule string    `json:"schedule"`
	Due      time.Time `json:"due"` // the due time it fires for (FireManual: when it was asked)
	Kind     string    `json:"kind"`
	State    string    `json:"state"`
	// Attempt counts the attempts started; MaxAttempts is 1 + retries.
	Attempt     int `json:"attempt"`
	MaxAttempts int `json:"maxAttempts"`
	// NotBefore holds a queued retry back until its backoff has passed.
	NotBefore time.Time `json:"notBefore,omitzero"`
	Queued    time.Time `json:"queued"`
	Started   time.Time `json:"started,omitzero"` // the latest attempt's start
	Ended     time.Time `json:"ended,omitzero"`
	// RunID is the latest attempt's run; Runs all attempts' runs, oldest
	// first (an attempt that could not start has none).
	RunID string   `json:"runId,omitempty"`
	Runs  []string `json:"runs,omitempty"`
	// Flow, Site and Account are the keys Limits apply to ("" for none).
	Flow    string `json:"flow"`
	Site    string `json:"site,omitempty"`
	Account string `json:"account,omitempty"`
	Limits  Limits `json:"limits"`
	// Waiting says why a queued fire does not start yet ("" when it is
	// not held back): a limit reached, a profile in use, its backoff.
	Waiting string `json:"waiting,omitempty"`
	// WaitingPID is the process on this machine that Waiting depends on
	// (the one holding the fire's account or profile), 0 for none: once
	// it has ended, ActiveFires says StaleWaiting instead of naming it.
	WaitingPID int `json:"-"`
	// Error says why it failed, was dropped, cancelled or missed (masked).
	Error string `json:"error,omitempty"`
	// Notify is where its failure notice stands: "" (none due), "pending",
	// "sending", "sent", or "failed: why".
	Notify string `json:"notify,omitempty"`
	// Holder is the scheduler that runs (ran) it (Holder.Token).
	Holder string `json:"-"`
	// Orphan is true (ActiveFires) for a running fire whose process ended
	// (kill -9, a crash) before it ended the attempt: the next process to
	// fire schedules takes it over (OrphanFires) and ends it interrupted.
	Orphan bool `json:"orphan,omitempty"`
}

// Holder names a process holding a lease or running a fire: a token
// unique to one scheduler, the program ("rpa ui") and the pid. Liveness
// is the pid with its start time, as for runs.
type Holder struct {
	Token   string    `json:"-"`
	Program string    `json:"program"`
	PID     int       `json:"pid"`
	Until   time.Time `json:"until"` // the lease's end unless renewed
	start   int64
}

// Me is a holder for this process under token and program.
func Me(token, program string) Holder {
	o := self()
	return Holder{Token: token, Program: program, PID: o.pid, start: o.start}
}

// SchedulesVersion is a number that changes whenever a schedule is added,
// paused, resumed or removed or a fire is queued by hand, so a scheduler
// can poll for changes another process made with one cheap read.
func (s *Store) SchedulesVersion() (int64, error) {
	var v int64
	err := s.db.QueryRow(`SELECT coalesce((SELECT v FROM schedule_meta WHERE k='version'),0)`).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("run store: %w", err)
	}
	return v, nil
}

// bump increments the schedules version inside tx.
func bump(tx *sql.Tx) error {
	_, err := tx.Exec(`INSERT INTO schedule_meta(k, v) VALUES('version', 1) ON CONFLICT(k) DO UPDATE SET v=v+1`)
	return err
}

// inTx runs fn in one IMMEDIATE transaction (the store's connections
// begin that way) and commits it when fn returns nil.
func (s *Store) inTx(fn func(tx *sql.Tx) error) error {
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("run store: %w", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("run store: %w", err)
	}
	return nil
}

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

// AddSchedule stores a new schedule; a name in use is ErrScheduleExists
// (wrapped, naming it).
func (s *Store) AddSchedule(r *ScheduleRecord) error {
	return s.inTx(func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM schedules WHERE name=?`, r.Name).Scan(&n); err != nil {
			return fmt.Errorf("run store: %w", err)
		}
		if n > 0 {
			return fmt.Errorf("schedule %s: %w", r.Name, ErrScheduleExists)
		}
		_, err := tx.Exec(`INSERT INTO schedules(name, flow, def, paused, next_ms, created_ms, updated_ms) VALUES (?,?,?,?,?,?,?)`,
			r.Name, r.Flow, string(r.Def), r.Paused, ms(r.Next), ms(r.Created), ms(r.Updated))
		if err != nil {
			return fmt.Errorf("schedule %s: %w", r.Name, err)
		}
		return bump(tx)
	})
}

const scheduleCols = `name, flow, def, paused, next_ms, created_ms, updated_ms`

func scanSchedule(sc interface{ Scan(...any) error }) (*ScheduleRecord, error) {
	var r ScheduleRecord
	var def string
	var next, created, updated int64
	if err := sc.Scan(&r.Name, &r.Flow, &def, &r.Paused, &next, &created, &updated); err != nil {
		return nil, err
	}
	r.Def = json.RawMessage(def)
	r.Next, r.Created, r.Updated = fromMS(next), fromMS(created), fromMS(updated)
	return &r, nil
}

// Schedule returns the schedule called name, or ErrNoSchedule (wrapped).
func (s *Store) Schedule(name string) (*ScheduleRecord, error) {
	r, err := scanSchedule(s.db.QueryRow(`SELECT `+scheduleCols+` FROM schedules WHERE name=?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("schedule %s: %w", name, ErrNoSchedule)
	}
	if err != nil {
		return nil, fmt.Errorf("schedule %s: %w", name, err)
	}
	return r, nil
}

// Schedules returns every schedule, by name.
func (s *Store) Schedules() ([]*ScheduleRecord, error) {
	rows, err := s.db.Query(`SELECT ` + scheduleCols + ` FROM schedules ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("run store: %w", err)
	}
	defer rows.Close()
	out := []*ScheduleRecord{}
	for rows.Next() {
		r, err := scanSchedule(rows)
		if err != nil {
			return nil, fmt.Errorf("run store: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// PauseSchedule pauses (paused true) or resumes schedule name at now; a
// resumed schedule is next due at next (missed times while it was paused
// are not made up). Returns ErrNoSchedule (wrapped) for an unknown name.
func (s *Store) PauseSchedule(name string, paused bool, next, now time.Time) error {
	return s.inTx(func(tx *sql.Tx) error {
		if paused {
			next = time.Time{}
		}
		res, err := tx.Exec(`UPDATE schedules SET paused=?, next_ms=?, updated_ms=? WHERE name=?`, paused, ms(next), ms(now), name)
		if err != nil {
			return fmt.Errorf("schedule %s: %w", name, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("schedule %s: %w", name, ErrNoSchedule)
		}
		return bump(tx)
	})
}

// RemoveSchedule deletes schedule name and its fires; a fire running now
// finishes (its run stays in the history). ErrNoSchedule (wrapped) for an
// unknown name.
func (s *Store) RemoveSchedule(name string) error {
	return s.inTx(func(tx *sql.Tx) error {
		res, err := tx.Exec(`DELETE FROM schedules WHERE name=?`, name)
		if err != nil {
			return fmt.Errorf("schedule %s: %w", name, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("schedule %s: %w", name, ErrNoSchedule)
		}
		if _, err := tx.Exec(`DELETE FROM schedule_fires WHERE schedule=? AND state<>'running'`, name); err != nil {
			return fmt.Errorf("schedule %s: %w", name, err)
		}
		return bump(tx)
	})
}

// AdvanceSchedule moves schedule name's next due time from from to to and
// queues fires (FireMissed ones are stored as FireSkipped notes), in one
// transaction, only when its next due time still is from and it is not
// paused: of several schedulers that saw the same due time one advances
// it, the others get false. A fire whose schedule, due time and kind are
// stored already is not stored again.
func (s *Store) AdvanceSchedule(name string, from, to time.Time, fires []Fire, now time.Time) (bool, error) {
	advanced := false
	err := s.inTx(func(tx *sql.Tx) error {
		res, err := tx.Exec(`UPDATE schedules SET next_ms=? WHERE name=? AND next_ms=? AND paused=0`, ms(to), name, ms(from))
		if err != nil {
			return fmt.Errorf("schedule %s: %w", name, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		advanced = true
		for _, f := range fires {
			f.Schedule = name
			if _, err := insertFire(tx, f, now); err != nil {
				return err
			}
		}
		return nil
	})
	return advanced && err == nil, err
}

// insertFire stores f (queued, or skipped for FireMissed) unless its
// schedule, due time and kind are stored already; returns its ID (0 then).
func insertFire(tx *sql.Tx, f Fire, now time.Time) (int64, error) {
	state := FireQueued
	if f.Kind == FireMissed {
		state = FireSkipped
	}
	if f.MaxAttempts < 1 {
		f.MaxAttempts = 1
	}
	ended := int64(0)
	if state == FireSkipped {
		ended = ms(now)
	}
	res, err := tx.Exec(`INSERT OR IGNORE INTO schedule_fires(schedule, due_ms, kind, state, max_attempts, queued_ms, ended_ms,
		flow, site, account, max_flow, max_site, max_account, error)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		f.Schedule, ms(f.Due), f.Kind, state, f.MaxAttempts, ms(now), ended, f.Flow, f.Site, f.Account,
		f.Limits.Flow, f.Limits.Site, f.Limits.Account, f.Error)
	if err != nil {
		return 0, fmt.Errorf("schedule %s: fire: %w", f.Schedule, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return 0, nil
	}
	return res.LastInsertId()
}

// QueueFire queues one fire of f.Schedule by hand (FireManual, due now)
// and returns its ID. The schedule must exist (ErrNoSchedule, wrapped).
func (s *Store) QueueFire(f Fire, now time.Time) (int64, error) {
	var id int64
	err := s.inTx(func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM schedules WHERE name=?`, f.Schedule).Scan(&n); err != nil {
			return fmt.Errorf("run store: %w", err)
		}
		if n == 0 {
			return fmt.Errorf("schedule %s: %w", f.Schedule, ErrNoSchedule)
		}
		f.Kind = FireManual
		// Two hand-queued fires in one millisecond get distinct due times.
		for due := now; id == 0; due = due.Add(time.Millisecond) {
			f.Due = due
			var err error
			if id, err = insertFire(tx, f, now); err != nil {
				return err
			}
		}
		return bump(tx)
	})
	return id, err
}

const fireCols = `id, schedule, due_ms, kind, state, attempt, max_attempts, not_before_ms, queued_ms, started_ms, ended_ms,
	run_id, runs, flow, site, account, max_flow, max_site, max_account, waiting, error, notify, holder, waiting_pid`

func scanFire(sc interface{ Scan(...any) error }) (*Fire, error) {
	var f Fire
	var due, nb, q, st, end int64
	var runs string
	err := sc.Scan(&f.ID, &f.Schedule, &due, &f.Kind, &f.State, &f.Attempt, &f.MaxAttempts, &nb, &q, &st, &end,
		&f.RunID, &runs, &f.Flow, &f.Site, &f.Account, &f.Limits.Flow, &f.Limits.Site, &f.Limits.Account,
		&f.Waiting, &f.Error, &f.Notify, &f.Holder, &f.WaitingPID)
	if err != nil {
		return nil, err
	}
	f.Due, f.NotBefore, f.Queued, f.Started, f.Ended = fromMS(due), fromMS(nb), fromMS(q), fromMS(st), fromMS(end)
	if runs != "" {
		f.Runs = strings.Fields(runs)
	}
	return &f, nil
}

func (s *Store) fires(q string, args ...any) ([]*Fire, error) {
	rows, err := s.db.Query(`SELECT `+fireCols+` FROM schedule_fires `+q, args...)
	if err != nil {
		return nil, fmt.Errorf("run store: %w", err)
	}
	defer rows.Close()
	out := []*Fire{}
	for rows.Next() {
		f, err := scanFire(rows)
		if err != nil {
			return nil, fmt.Errorf("run store: %w", err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// Fire returns fire id, or an error naming it.
func (s *Store) Fire(id int64) (*Fire, error) {
	f, err := scanFire(s.db.QueryRow(`SELECT `+fireCols+` FROM schedule_fires WHERE id=?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("schedule fire %d: gone (its schedule was removed)", id)
	}
	if err != nil {
		return nil, fmt.Errorf("schedule fire %d: %w", id, err)
	}
	return f, nil
}

// Fires returns schedule name's latest fires (at most limit; 0: 20),
// newest first.
func (s *Store) Fires(name string, limit int) ([]*Fire, error) {
	if limit <= 0 {
		limit = 20
	}
	return s.fires(`WHERE schedule=? ORDER BY id DESC LIMIT ?`, name, limit)
}

// StaleWaiting is a queued fire's Waiting once the process it named (the
// holder of its account or profile) has ended.
const StaleWaiting = "what held its account or profile has ended (its process is gone); it starts when a scheduler next tries it"

// ActiveFires returns every queued and running fire, oldest due first,
// with Orphan set on the running ones whose process has ended, and
// StaleWaiting as the reason of the queued ones whose WaitingPID has.
func (s *Store) ActiveFires() ([]*Fire, error) {
	fs, err := s.fires(`WHERE state IN ('queued','running') ORDER BY due_ms, id`)
	if err != nil {
		return nil, err
	}
	for _, f := range fs {
		switch {
		case f.State == FireRunning:
			if o, err := s.fireOwner(f.ID); err == nil && !alive(o) {
				f.Orphan = true
			}
		case f.WaitingPID > 0 && f.Waiting != "" && !alive(owner{pid: f.WaitingPID}):
			f.Waiting = StaleWaiting
		}
	}
	return fs, nil
}

// fireOwner is the process that runs fire id.
func (s *Store) fireOwner(id int64) (owner, error) {
	var o owner
	err := s.db.QueryRow(`SELECT owner_pid, owner_start FROM schedule_fires WHERE id=?`, id).Scan(&o.pid, &o.start)
	return o, err
}

// Claim is the outcome of ClaimFire.
type Claim struct {
	Fire *Fire // the fire, as it now stands (nil when it is gone)
	// Started is true when this call started an attempt (state running,
	// Attempt counted, h its holder).
	Started bool
	// Waiting says why it did not start ("" when Started, or when the
	// fire is no longer queued: another process took it).
	Waiting string
}

// ClaimFire starts the next attempt of queued fire id for h at now, in
// one transaction, unless its backoff has not passed or one of its limits
// is reached by the fires running now (then Waiting says which, and is
// kept on the fire for `rpa schedule show`).
func (s *Store) ClaimFire(id int64, h Holder, now time.Time) (*Claim, error) {
	var c Claim
	err := s.inTx(func(tx *sql.Tx) error {
		f, err := scanFire(tx.QueryRow(`SELECT `+fireCols+` FROM schedule_fires WHERE id=?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("schedule fire %d: %w", id, err)
		}
		c.Fire = f
		if f.State != FireQueued {
			return nil
		}
		if !f.NotBefore.IsZero() && now.Before(f.NotBefore) {
			c.Waiting = "retry " + fmt.Sprint(f.Attempt+1) + " of " + fmt.Sprint(f.MaxAttempts) + " after its backoff, at " + f.NotBefore.Format(time.RFC3339)
			return nil
		}
		for _, l := range []struct {
			what, col, key string
			max            int
		}{{"flow", "flow", f.Flow, f.Limits.Flow}, {"site", "site", f.Site, f.Limits.Site}, {"account", "account", f.Account, f.Limits.Account}} {
			if l.max <= 0 || l.key == "" {
				continue
			}
			var n int
			if err := tx.QueryRow(`SELECT count(*) FROM schedule_fires WHERE state='running' AND `+l.col+`=?`, l.key).Scan(&n); err != nil {
				return fmt.Errorf("run store: %w", err)
			}
			if n >= l.max {
				c.Waiting = fmt.Sprintf("%s %s has %d scheduled run(s) running, its limit (--max-concurrent %s=%d)", l.what, l.key, n, l.what, l.max)
				_, err := tx.Exec(`UPDATE schedule_fires SET waiting=?, waiting_pid=0 WHERE id=?`, c.Waiting, id)
				return err
			}
		}
		o := self()
		_, err = tx.Exec(`UPDATE schedule_fires SET state='running', attempt=attempt+1, started_ms=?, waiting='', waiting_pid=0, holder=?,
			owner_pid=?, owner_start=? WHERE id=? AND state='queued'`, ms(now), h.Token, o.pid, o.start, id)
		if err != nil {
			return fmt.Errorf("schedule fire %d: %w", id, err)
		}
		f.State, f.Attempt, f.Started, f.Waiting, f.Holder = FireRunning, f.Attempt+1, now, "", h.Token
		c.Started = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// StartRun records that the running attempt of fire id that h holds is
// run runID (its record has begun): the fire's RunID, and one more of its
// Runs. EndFire with the same RunID does not add it again.
func (s *Store) StartRun(id int64, h Holder, runID string) error {
	_, err := s.db.Exec(`UPDATE schedule_fires SET run_id=?1, runs=CASE WHEN runs='' THEN ?1 ELSE runs||' '||?1 END
		WHERE id=?2 AND state='running' AND holder=?3 AND run_id<>?1`, runID, id, h.Token)
	if err != nil {
		return fmt.Errorf("schedule fire %d: %w", id, err)
	}
	return nil
}

// FireEnd is how one attempt of a running fire ended (EndFire).
type FireEnd struct {
	RunID string // the attempt's run ("" when it could not start)
	// State is FireOK, FireFailed, FireCancelled, or FireQueued: again
	// (a retry after NotBefore, or an attempt that could not start for a
	// busy profile and does not count: Uncount).
	State     string
	NotBefore time.Time
	Uncount   bool
	Waiting   string // for FireQueued: why it waits
	// WaitingPID is the process on this machine Waiting depends on (Fire.WaitingPID).
	WaitingPID int
	Error      string // masked
	// Notify marks a failure notice as due ("pending").
	Notify bool
}

// EndFire records how the running attempt of fire id that h holds ended.
// It returns false when h does not hold it (another process recovered it
// after h was taken for dead): then nothing is changed.
func (s *Store) EndFire(id int64, h Holder, e FireEnd, now time.Time) (bool, error) {
	notify := ""
	if e.Notify {
		notify = "pending"
	}
	ended := ms(now)
	if e.State == FireQueued {
		ended = 0
	}
	uncount := 0
	if e.Uncount {
		uncount = 1
	}
	// The run is added to Runs unless StartRun did already.
	res, err := s.db.Exec(`UPDATE schedule_fires SET state=?1, not_before_ms=?2, ended_ms=?3, error=?4, waiting=?5, waiting_pid=?11,
		attempt=attempt-?6,
		runs=CASE WHEN ?7='' OR run_id=?7 THEN runs WHEN runs='' THEN ?7 ELSE runs||' '||?7 END,
		run_id=CASE WHEN ?7<>'' THEN ?7 ELSE run_id END,
		notify=CASE WHEN ?8<>'' THEN ?8 ELSE notify END,
		holder=CASE WHEN ?1='queued' THEN '' ELSE holder END
		WHERE id=?9 AND state='running' AND holder=?10`,
		e.State, ms(e.NotBefore), ended, e.Error, e.Waiting, uncount, e.RunID, notify, id, h.Token, e.WaitingPID)
	if err != nil {
		return false, fmt.Errorf("schedule fire %d: %w", id, err)
	}
	n, _ := res.RowsAffected()
	if n > 0 && e.State != FireQueued {
		s.pruneFires(id)
	}
	return n > 0, nil
}

// DropFire ends queued fire id without running it (state, e.g.
// FireDropped or FireCancelled; why in reason), marking a failure notice
// due when notify. runID, when not "", is the run recorded for it
// (RecordUnstarted), added to its runs. False when it was no longer
// queued.
func (s *Store) DropFire(id int64, state, reason string, notify bool, runID string, now time.Time) (bool, error) {
	n := ""
	if notify {
		n = "pending"
	}
	res, err := s.db.Exec(`UPDATE schedule_fires SET state=?1, error=?2, waiting='', waiting_pid=0, ended_ms=?3, notify=?4,
		runs=CASE WHEN ?5='' THEN runs WHEN runs='' THEN ?5 ELSE runs||' '||?5 END,
		run_id=CASE WHEN ?5<>'' THEN ?5 ELSE run_id END
		WHERE id=?6 AND state='queued'`,
		state, reason, ms(now), n, runID, id)
	if err != nil {
		return false, fmt.Errorf("schedule fire %d: %w", id, err)
	}
	c, _ := res.RowsAffected()
	return c > 0, nil
}

// WaitFire says why queued fire id waits (Fire.Waiting, "" for no
// reason), for rpa schedule show; a fire no longer queued is left as it is.
func (s *Store) WaitFire(id int64, why string) error {
	if _, err := s.db.Exec(`UPDATE schedule_fires SET waiting=?1, waiting_pid=0 WHERE id=?2 AND state='queued' AND waiting<>?1`, why, id); err != nil {
		return fmt.Errorf("schedule fire %d: %w", id, err)
	}
	return nil
}

// KeepFires is how many finished fires are kept per schedule (the newest).
const KeepFires = 200

// pruneFires keeps the newest KeepFires finished fires of fire id's
// schedule.
func (s *Store) pruneFires(id int64) {
	_, _ = s.db.Exec(`DELETE FROM schedule_fires WHERE schedule=(SELECT schedule FROM schedule_fires WHERE id=?)
		AND state NOT IN ('queued','running') AND id NOT IN (SELECT id FROM schedule_fires WHERE schedule=
		(SELECT schedule FROM schedule_fires WHERE id=?) AND state NOT IN ('queued','running') ORDER BY id DESC LIMIT ?)`, id, id, KeepFires)
}

// OrphanFires takes over, for h, the running fires whose process has died
// (kill -9, a crash) and returns them, so h ends their attempt (EndFire)
// as it ends any failed one. Runs left "running" by such processes are
// marked interrupted first.
func (s *Store) OrphanFires(h Holder) ([]*Fire, error) {
	running, err := s.fires(`WHERE state='running'`)
	if err != nil {
		return nil, err
	}
	var out []*Fire
	for _, f := range running {
		o, err := s.fireOwner(f.ID)
		if err != nil || alive(o) {
			continue
		}
		res, err := s.db.Exec(`UPDATE schedule_fires SET holder=?, owner_pid=?, owner_start=? WHERE id=? AND state='running' AND owner_pid=? AND owner_start=?`,
			h.Token, s.me.pid, s.me.start, f.ID, o.pid, o.start)
		if err != nil {
			return nil, fmt.Errorf("schedule fire %d: %w", f.ID, err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			f.Holder = h.Token
			out = append(out, f)
		}
	}
	if len(out) > 0 {
		if err := s.markInterrupted(); err != nil {
			return out, err
		}
	}
	return out, nil
}

// PendingNotices returns the fires whose failure notice is due, and marks
// them "sending" for h (one process sends each notice).
func (s *Store) PendingNotices(h Holder) ([]*Fire, error) {
	// A notice a dead process was sending is due again.
	pend, err := s.fires(`WHERE notify IN ('pending','sending')`)
	if err != nil {
		return nil, err
	}
	var out []*Fire
	for _, f := range pend {
		var o owner
		_ = s.db.QueryRow(`SELECT owner_pid, owner_start FROM schedule_fires WHERE id=?`, f.ID).Scan(&o.pid, &o.start)
		if f.Notify == "sending" && alive(o) {
			continue
		}
		res, err := s.db.Exec(`UPDATE schedule_fires SET notify='sending', holder=?, owner_pid=?, owner_start=? WHERE id=? AND notify=?`,
			h.Token, s.me.pid, s.me.start, f.ID, f.Notify)
		if err != nil {
			return nil, fmt.Errorf("schedule fire %d: %w", f.ID, err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			f.Notify = "sending"
			out = append(out, f)
		}
	}
	return out, nil
}

// NoticeDone records how fire id's failure notice went: "sent" or
// "failed: why".
func (s *Store) NoticeDone(id int64, outcome string) error {
	_, err := s.db.Exec(`UPDATE schedule_fires SET notify=? WHERE id=? AND notify='sending'`, outcome, id)
	if err != nil {
		return fmt.Errorf("schedule fire %d: %w", id, err)
	}
	return nil
}

// TakeLease makes h the holder of lease name until now+ttl when nobody
// holds it, h holds it already (a renewal), the holder's time has run out
// or its process has died. It returns whether h holds it now, and the
// holder (h, or the other one).
func (s *Store) TakeLease(name string, h Holder, now time.Time, ttl time.Duration) (bool, Holder, error) {
	var cur Holder
	held := false
	err := s.inTx(func(tx *sql.Tx) error {
		var until int64
		err := tx.QueryRow(`SELECT holder, program, pid, pstart, until_ms FROM leases WHERE name=?`, name).
			Scan(&cur.Token, &cur.Program, &cur.PID, &cur.start, &until)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("run store: lease %s: %w", name, err)
		default:
			cur.Until = fromMS(until)
			if cur.Token != h.Token && now.Before(cur.Until) && alive(owner{cur.PID, cur.start}) {
				return nil
			}
		}
		h.Until = now.Add(ttl).UTC().Truncate(time.Millisecond)
		_, err = tx.Exec(`INSERT INTO leases(name, holder, program, pid, pstart, until_ms) VALUES (?,?,?,?,?,?)
			ON CONFLICT(name) DO UPDATE SET holder=excluded.holder, program=excluded.program, pid=excluded.pid,
			pstart=excluded.pstart, until_ms=excluded.until_ms`, name, h.Token, h.Program, h.PID, h.start, ms(h.Until))
		if err != nil {
			return fmt.Errorf("run store: lease %s: %w", name, err)
		}
		cur, held = h, true
		return nil
	})
	return held, cur, err
}

// LeaseHolder returns who holds lease name at now; ok false when nobody
// does (none taken, run out, or its process died).
func (s *Store) LeaseHolder(name string, now time.Time) (Holder, bool, error) {
	var h Holder
	var until int64
	err := s.db.QueryRow(`SELECT holder, program, pid, pstart, until_ms FROM leases WHERE name=?`, name).
		Scan(&h.Token, &h.Program, &h.PID, &h.start, &until)
	if errors.Is(err, sql.ErrNoRows) {
		return h, false, nil
	}
	if err != nil {
		return h, false, fmt.Errorf("run store: lease %s: %w", name, err)
	}
	h.Until = fromMS(until)
	return h, now.Before(h.Until) && alive(owner{h.PID, h.start}), nil
}

// ReleaseLease gives up lease name if h holds it.
func (s *Store) ReleaseLease(name string, h Holder) error {
	_, err := s.db.Exec(`DELETE FROM leases WHERE name=? AND holder=?`, name, h.Token)
	if err != nil {
		return fmt.Errorf("run store: lease %s: %w", name, err)
	}
	return nil
}
