package runs

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// MCP tasks (package serve/tasks) are kept in the run store's database, in
// a table of their own: a task is a run whose caller may come back for it
// on another connection, after the process restarted. The store keeps each
// task as an opaque JSON document (TaskRow.Data) with the few columns it
// selects by; serve/tasks gives the document its meaning.

const tasksSchema = `
CREATE TABLE IF NOT EXISTS tasks (
  id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  status TEXT NOT NULL,
  expires_ms INTEGER NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tasks_owner ON tasks(owner, id);
CREATE INDEX IF NOT EXISTS tasks_expires ON tasks(expires_ms);
`

func init() { schemaHooks = append(schemaHooks, tasksSchema) }

// TaskRow is one stored task: its id, owner (a caller identity, never a
// credential), status, when it may be deleted (Expires; zero: not before
// it ends) and its document.
type TaskRow struct {
	ID      string
	Owner   string
	Status  string
	Expires time.Time
	Data    []byte
}

// ErrTaskExists is returned by TaskCreate for an id already stored.
var ErrTaskExists = errors.New("task exists")

// maxExpires stands for "not before it ends" in expires_ms.
const maxExpires = int64(1<<62 - 1)

func expiresMs(t time.Time) int64 {
	if t.IsZero() {
		return maxExpires
	}
	return t.UnixMilli()
}

func expiresTime(ms int64) time.Time {
	if ms == maxExpires {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// TaskCreate stores a new task; it is durable (committed) when TaskCreate
// returns. An id already stored is ErrTaskExists.
func (s *Store) TaskCreate(r TaskRow) error {
	_, err := s.db.Exec(`INSERT INTO tasks (id, owner, status, expires_ms, data) VALUES (?,?,?,?,?)`,
		r.ID, r.Owner, r.Status, expiresMs(r.Expires), string(r.Data))
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE") || strings.Contains(err.Error(), "PRIMARY KEY") {
			return fmt.Errorf("task %s: %w", r.ID, ErrTaskExists)
		}
		return fmt.Errorf("task %s: %w", r.ID, err)
	}
	return nil
}

func scanTask(sc interface{ Scan(...any) error }) (TaskRow, error) {
	var r TaskRow
	var exp int64
	var data string
	if err := sc.Scan(&r.ID, &r.Owner, &r.Status, &exp, &data); err != nil {
		return TaskRow{}, err
	}
	r.Expires, r.Data = expiresTime(exp), []byte(data)
	return r, nil
}

// TaskGet returns task id; an unknown id is ErrNotFound (wrapped).
func (s *Store) TaskGet(id string) (TaskRow, error) {
	r, err := scanTask(s.db.QueryRow(`SELECT id, owner, status, expires_ms, data FROM tasks WHERE id=?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return TaskRow{}, fmt.Errorf("task %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return TaskRow{}, fmt.Errorf("task %s: %w", id, err)
	}
	return r, nil
}

// TaskUpdate reads task id, lets fn change it and writes it back, in one
// transaction (so concurrent updates, from this process or another one on
// the same store, do not lose each other's changes). fn's error aborts
// the update and is returned; fn must not change the id.
func (s *Store) TaskUpdate(id string, fn func(*TaskRow) error) (TaskRow, error) {
	tx, err := s.db.Begin() // BEGIN IMMEDIATE (the DSN's _txlock): writers queue here
	if err != nil {
		return TaskRow{}, fmt.Errorf("task %s: %w", id, err)
	}
	defer tx.Rollback()
	r, err := scanTask(tx.QueryRow(`SELECT id, owner, status, expires_ms, data FROM tasks WHERE id=?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return TaskRow{}, fmt.Errorf("task %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return TaskRow{}, fmt.Errorf("task %s: %w", id, err)
	}
	if err := fn(&r); err != nil {
		return TaskRow{}, err
	}
	if _, err := tx.Exec(`UPDATE tasks SET owner=?, status=?, expires_ms=?, data=? WHERE id=?`,
		r.Owner, r.Status, expiresMs(r.Expires), string(r.Data), id); err != nil {
		return TaskRow{}, fmt.Errorf("task %s: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return TaskRow{}, fmt.Errorf("task %s: %w", id, err)
	}
	return r, nil
}

// TaskList returns owner's tasks whose id sorts after after ("" from the
// start), in id order, at most limit (0: 50).
func (s *Store) TaskList(owner, after string, limit int) ([]TaskRow, error) {
	if limit <= 0 {
		limit = 50
	}
	return s.queryTasks(`SELECT id, owner, status, expires_ms, data FROM tasks WHERE owner=? AND id>? ORDER BY id LIMIT ?`,
		owner, after, limit)
}

// TasksWithStatus returns every task whose status is one of statuses.
func (s *Store) TasksWithStatus(statuses ...string) ([]TaskRow, error) {
	if len(statuses) == 0 {
		return nil, nil
	}
	args := make([]any, len(statuses))
	for i, st := range statuses {
		args[i] = st
	}
	return s.queryTasks(`SELECT id, owner, status, expires_ms, data FROM tasks WHERE status IN (?`+
		strings.Repeat(",?", len(statuses)-1)+`) ORDER BY id`, args...)
}

func (s *Store) queryTasks(q string, args ...any) ([]TaskRow, error) {
	rows, err := s.db.Query(q, args...)
	if err != nil {
		return nil, fmt.Errorf("tasks: %w", err)
	}
	defer rows.Close()
	var out []TaskRow
	for rows.Next() {
		r, err := scanTask(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// TaskDelete removes task id (no error when it is not there).
func (s *Store) TaskDelete(id string) error {
	_, err := s.db.Exec(`DELETE FROM tasks WHERE id=?`, id)
	return err
}

// TaskSweep deletes the tasks whose Expires is before now. Returns how
// many.
func (s *Store) TaskSweep(now time.Time) (int, error) {
	res, err := s.db.Exec(`DELETE FROM tasks WHERE expires_ms<?`, now.UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("tasks: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// ThisProcess names this process for a record another process may find:
// "pid:start" (its pid and start time, see ProcessRunning).
func ThisProcess() string {
	return ProcessNode(os.Getpid())
}

// ProcessRunning reports whether the process ThisProcess named as node
// still runs (its pid exists and, where start times are known, it started
// when node says). A malformed node is not running.
func ProcessRunning(node string) bool {
	p, st, ok := strings.Cut(node, ":")
	if !ok {
		return false
	}
	pid, err1 := strconv.Atoi(p)
	start, err2 := strconv.ParseInt(st, 10, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	if pid == os.Getpid() {
		return start == self().start
	}
	return alive(owner{pid: pid, start: start})
}
