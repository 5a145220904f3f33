package mcpserver

import (
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

// Resume (PROTOCOL.md, "Resume"): a failed recorded run is held in memory
// (its checkpoint: the names bound so far and the run's secrets) so that a
// later call of the same workflow tool with resumeRunId (and optionally
// resumeFrom, a line) from the run's owner (runs.Owner) resumes it on the
// same profile, with the resuming call's arguments. A resumed run is a
// new run (its own runId) linked to the first (resumedFrom in the record).

// The optional arguments of every workflow tool that resume a run.
const (
	ResumeRunArg  = "resumeRunId"
	ResumeFromArg = "resumeFrom"
)

// Bounds on held runs: at most MaxHeldRuns, each for HeldRunTTL after it
// failed (oldest dropped first).
const (
	MaxHeldRuns = 16
	HeldRunTTL  = 10 * time.Minute
)

// heldRun is one failed run that can be resumed.
type heldRun struct {
	id      string
	flow    *lang.Flow
	profile string
	cp      *interp.Checkpoint
	at      time.Time
	owner   runs.Owner // who started it: the only caller that may resume it
}

// heldRuns holds the resumable runs of a server.
type heldRuns struct {
	mu   sync.Mutex
	runs []*heldRun // oldest first
}

func (h *heldRuns) hold(r *heldRun) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.expire(r.at)
	if len(h.runs) >= MaxHeldRuns {
		h.runs = h.runs[1:]
	}
	h.runs = append(h.runs, r)
}

func (h *heldRuns) get(id string, now time.Time) *heldRun {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.expire(now)
	for _, r := range h.runs {
		if r.id == id {
			return r
		}
	}
	return nil
}

func (h *heldRuns) expire(now time.Time) {
	i := 0
	for i < len(h.runs) && now.Sub(h.runs[i].at) > HeldRunTTL {
		i++
	}
	h.runs = h.runs[i:]
}

var (
	heldMu sync.Mutex
	held   = map[*Server]*heldRuns{} // dropped by Close (dropHeld)
)

func (s *Server) heldRuns() *heldRuns {
	heldMu.Lock()
	defer heldMu.Unlock()
	h := held[s]
	if h == nil {
		h = &heldRuns{}
		held[s] = h
	}
	return h
}

// dropHeld forgets s's held runs (Server.Close).
func (s *Server) dropHeld() {
	heldMu.Lock()
	delete(held, s)
	heldMu.Unlock()
}

// resumeReq is a call's resume request (nil: a fresh run).
type resumeReq struct {
	run  *heldRun
	from int
}

// takeResume removes resumeRunId and resumeFrom from args and finds the
// held run; nil, nil when the call does not resume.
func (s *Server) takeResume(req *mcp.CallToolRequest, e *flowEntry, args map[string]any) (*resumeReq, error) {
	idv, has := args[ResumeRunArg]
	fromv, hasFrom := args[ResumeFromArg]
	delete(args, ResumeRunArg)
	delete(args, ResumeFromArg)
	if !has {
		if hasFrom {
			return nil, argError(&ArgError{Field: ResumeFromArg, Msg: "needs resumeRunId"})
		}
		return nil, nil
	}
	id, ok := idv.(string)
	if !ok {
		return nil, argError(&ArgError{Field: ResumeRunArg, Msg: "want a string, got " + lang.TypeName(idv)})
	}
	from := 0
	if hasFrom {
		n, ok := lang.ToInt(fromv)
		if !ok || n < 1 {
			return nil, argError(&ArgError{Field: ResumeFromArg, Msg: "a line number (1 or more)"})
		}
		from = n
	}
	if s.runsOf() == nil {
		return nil, argError(&ArgError{Field: ResumeRunArg, Msg: "runs are not recorded by this server, so none can be resumed"})
	}
	r := s.heldRuns().get(id, time.Now())
	if r != nil && !s.owns(req, r.owner) {
		r = nil // another caller's run: answered as one that is not held (no oracle)
	}
	if r == nil {
		return nil, argError(&ArgError{Field: ResumeRunArg, Msg: fmt.Sprintf("run %s is not held here: only a failed run of this server can be resumed, for %s after it failed (at most %d runs), and not after a restart; call the tool again without resumeRunId", lang.Echo(id), HeldRunTTL, MaxHeldRuns)})
	}
	if r.flow != e.flow {
		return nil, argError(&ArgError{Field: ResumeRunArg, Msg: fmt.Sprintf("run %s is a run of another tool, or of this flow before it was changed: call the tool again without resumeRunId", lang.Echo(id))})
	}
	return &resumeReq{run: r, from: from}, nil
}

// checkpoint and from fill interp.Options (nil-safe).
func (q *resumeReq) checkpoint() *interp.Checkpoint {
	if q == nil {
		return nil
	}
	return q.run.cp
}

func (q *resumeReq) fromLine() int {
	if q == nil {
		return 0
	}
	return q.from
}

// resumedFrom is the ID of the run resumed ("" for a fresh run).
func (q *resumeReq) resumedFrom() string {
	if q == nil {
		return ""
	}
	return q.run.id
}
