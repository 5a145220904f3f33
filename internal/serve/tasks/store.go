package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/internal/runs"
)

// RunStore keeps tasks in the run store's database (runs.Store's tasks
// table): durable across restarts, shared by the processes of one
// $RPA_HOME.
func RunStore(st *runs.Store) Store { return runStore{st} }

type runStore struct{ st *runs.Store }

func toRow(r *Record) (runs.TaskRow, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return runs.TaskRow{}, err
	}
	return runs.TaskRow{ID: r.ID, Owner: OwnerKey(r.Owner), Status: r.Status, Expires: r.Expires(), Data: b}, nil
}

func fromRow(row runs.TaskRow) (*Record, error) {
	var r Record
	if err := json.Unmarshal(row.Data, &r); err != nil {
		return nil, fmt.Errorf("task %s: damaged record: %w", row.ID, err)
	}
	return &r, nil
}

func (s runStore) Create(_ context.Context, r *Record) error {
	row, err := toRow(r)
	if err != nil {
		return err
	}
	err = s.st.TaskCreate(row)
	if errors.Is(err, runs.ErrTaskExists) {
		return fmt.Errorf("%w: %s", ErrExists, r.ID)
	}
	return err
}

func (s runStore) Get(_ context.Context, id string) (*Record, error) {
	row, err := s.st.TaskGet(id)
	if errors.Is(err, runs.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return fromRow(row)
}

func (s runStore) Update(_ context.Context, id string, fn func(*Record) error) (*Record, error) {
	var out *Record
	_, err := s.st.TaskUpdate(id, func(row *runs.TaskRow) error {
		r, err := fromRow(*row)
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
		nr, err := toRow(r)
		if err != nil {
			return err
		}
		*row, out = nr, r
		return nil
	})
	if errors.Is(err, runs.ErrNotFound) {
		return nil, ErrNotFound
	}
	return out, err
}

func (s runStore) List(_ context.Context, key, after string, limit int) ([]*Record, error) {
	rows, err := s.st.TaskList(key, after, limit)
	if err != nil {
		return nil, err
	}
	return fromRows(rows)
}

func (s runStore) Live(context.Context) ([]*Record, error) {
	rows, err := s.st.TasksWithStatus(Working, InputRequired)
	if err != nil {
		return nil, err
	}
	return fromRows(rows)
}

func (s runStore) Sweep(_ context.Context, now time.Time) (int, error) { return s.st.TaskSweep(now) }

func fromRows(rows []runs.TaskRow) ([]*Record, error) {
	out := make([]*Record, 0, len(rows))
	for _, row := range rows {
		r, err := fromRow(row)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// MemStore keeps tasks in memory (a server without a run store; tests):
// they go with the process.
type MemStore struct {
	mu sync.Mutex
	m  map[string][]byte // id → the record as JSON (so callers never share one)
}

func (s *MemStore) load(id string) (*Record, error) {
	b, ok := s.m[id]
	if !ok {
		return nil, ErrNotFound
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func (s *MemStore) save(r *Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[r.ID] = b
	return nil
}

// Create implements Store.
func (s *MemStore) Create(_ context.Context, r *Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[r.ID]; ok {
		return fmt.Errorf("%w: %s", ErrExists, r.ID)
	}
	return s.save(r)
}

// Get implements Store.
func (s *MemStore) Get(_ context.Context, id string) (*Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.load(id)
}

// Update implements Store.
func (s *MemStore) Update(_ context.Context, id string, fn func(*Record) error) (*Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.load(id)
	if err != nil {
		return nil, err
	}
	if err := fn(r); err != nil {
		return nil, err
	}
	return r, s.save(r)
}

func (s *MemStore) all(keep func(*Record) bool) []*Record {
	var out []*Record
	for id := range s.m {
		if r, err := s.load(id); err == nil && keep(r) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// List implements Store.
func (s *MemStore) List(_ context.Context, key, after string, limit int) ([]*Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.all(func(r *Record) bool { return OwnerKey(r.Owner) == key && r.ID > after })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Live implements Store.
func (s *MemStore) Live(context.Context) ([]*Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.all(func(r *Record) bool { return !Terminal(r.Status) }), nil
}

// Sweep implements Store.
func (s *MemStore) Sweep(_ context.Context, now time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.all(func(r *Record) bool { e := r.Expires(); return !e.IsZero() && e.Before(now) }) {
		delete(s.m, r.ID)
		n++
	}
	return n, nil
}
