package flowserver

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/host/execpolicy"
	"github.com/rpa-dev/rpa/internal/serve/mrtr"
	"github.com/rpa-dev/rpa/internal/serve/schedule"
)

// A flow server fires the schedules of $RPA_HOME (`rpa schedule`) while
// it serves, unless --schedules=false: its scheduler stands by while
// another process holds the run store's lease (package schedule), and
// runs the fires it takes as `rpa run` would, with the server's browser,
// evidence, heal, ask and exec settings; a fire on a named profile or an
// account runs on that profile's browser in the server's pool (warm after
// an agent's call, or started there), never waiting for its own idle
// browser. The MCP resource rpa://schedules
// lists the schedules for agents.

// SchedulesURI is the MCP resource listing the schedules.
const SchedulesURI = "rpa://schedules"

// schedState is a server's running scheduler.
type schedState struct {
	mu     sync.Mutex
	sched  *schedule.Scheduler
	cancel context.CancelFunc
	done   chan struct{}
}

var schedStates sync.Map // *Server -> *schedState

// StartSchedules starts firing the schedules until ctx ends or the server
// closes (Close waits for the runs it started); nothing when the server
// was configured without them (Config.Schedules false). Calling it again
// does nothing.
func (s *Server) StartSchedules(ctx context.Context) {
	if !s.cfg.Schedules {
		return
	}
	v, _ := schedStates.LoadOrStore(s, &schedState{})
	st := v.(*schedState)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.sched != nil {
		return
	}
	runner := &schedule.LocalRunner{Runs: s.cfg.Runs, Remote: s.cfg.Remote, Show: s.cfg.Show, HITL: s.cfg.HITL, Heal: s.cfg.Heal, Pool: s.Pool,
		Exec: &execpolicy.Policy{Enabled: s.cfg.AllowExec, Allow: s.cfg.ExecAllow,
			Disabled: program() + ": command execution is disabled for scheduled runs (start it with --allow-exec)"},
		Warn: func(m string) { s.Log.Warn(m) }}
	st.sched = schedule.New(schedule.Config{Store: s.st, Runner: runner, Program: program(),
		Log: func(m string) { s.Log.Info(m) }})
	ctx, st.cancel = context.WithCancel(ctx)
	st.done = make(chan struct{})
	go func() {
		defer close(st.done)
		_ = st.sched.Run(ctx)
	}()
}

// Scheduler is the server's scheduler (nil before StartSchedules).
func (s *Server) Scheduler() *schedule.Scheduler {
	v, ok := schedStates.Load(s)
	if !ok {
		return nil
	}
	st := v.(*schedState)
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sched
}

// stopSchedules stops the scheduler and waits for it (its runs are
// cancelled and queued again for the next scheduler).
func (s *Server) stopSchedules() {
	v, ok := schedStates.LoadAndDelete(s)
	if !ok {
		return
	}
	st := v.(*schedState)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.cancel != nil {
		st.cancel()
		<-st.done
	}
}

// addSchedulesResource serves rpa://schedules: every schedule with its
// timing, next due time, limits and last outcome, and the process that
// fires them (schedule.Board, webhook URLs cut to their host).
func (s *Server) addSchedulesResource() {
	s.MCP.MCP().AddResource(&mcp.Resource{URI: SchedulesURI, Name: "schedules", Title: "Schedules",
		MIMEType: "application/json",
		Description: "The flows that run on a schedule here (rpa schedule): when (cron and zone, or interval), the next time, " +
			"arguments (never secrets), retries, limits, the last outcome and what waits now; read-only."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			b, err := schedule.Load(s.st, time.Now())
			if err != nil {
				return nil, err
			}
			js, err := json.Marshal(b.WithoutSecrets())
			if err != nil {
				return nil, err
			}
			// private: the same for every caller of this desktop, but it names the
			// secret-env variables and webhook hosts, for no cache shared with others
			return &mcp.ReadResourceResult{Cacheable: mcp.Cacheable{CacheScope: mrtr.CachePrivate},
				Contents: []*mcp.ResourceContents{{URI: SchedulesURI, MIMEType: "application/json", Text: string(js)}}}, nil
		})
}
