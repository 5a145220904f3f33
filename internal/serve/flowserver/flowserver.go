// Package flowserver builds what `rpa serve` and `rpa connect` (and the
// console's serving, `rpa ui --serve-http/--connect`) share: a folder of
// flows served as MCP tools (mcpserver) over a pool of warm browsers, one
// per profile (profiles), with the run store, healing and the person
// channels of the process; and the ways of serving it: stdio, Streamable
// HTTP, or a WebSocket link dialled out to a backend (connect). Ending the
// context given to a Serve method (the first SIGINT/SIGTERM) cancels the
// calls in flight as a client's cancel would and sends their cancelled
// results before the method returns.
package flowserver

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/cliflag"
	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/internal/host/home"
	"github.com/rpa-dev/rpa/internal/host/lease"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/heal"
	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
)

// Config is what a flow server serves and may do: the flags `rpa serve`
// and `rpa connect` share (Register declares them).
type Config struct {
	FlowsDir   string   // the folder served; "" is DefaultFlowsDir (made when missing)
	AllowExec  bool     // desktop_exec and the exec action (execpolicy)
	AllowFiles bool     // file: URLs, and files outside the temp dir
	ExecAllow  []string // with AllowExec, only commands matching one of these globs
	// Idle closes a profile's browser after this idle time (0:
	// profiles.DefaultIdle).
	Idle time.Duration
	Show bool // browser windows instead of headless
	// Remote attaches every profile to these DevTools endpoints
	// (comma-separated) instead of launching Chromium.
	Remote string
	// MaxBrowsers, MaxContexts and MaxQueue bound the pool
	// (profiles.Options; 0 the defaults, -1 no bound).
	MaxBrowsers, MaxContexts, MaxQueue int

	HITL      string        // who answers `ask`, in order (hitl.ParseOrder; "" the default)
	Heal      string        // the heal mode of every call ("" the flow's; heal.CheckFlag)
	Runs      runs.Settings // what the run store keeps
	Authoring bool          // the authoring tools (mcpserver.Server.EnableAuthoring)
	Steps     string        // also serve every step of this flow file as a tool (mcpserver.Server.ServeSteps)
	// Schedules fires the schedules of $RPA_HOME while serving
	// (StartSchedules); --schedules, on by default.
	Schedules bool
	// MaxTasks, TaskTTL and TaskMaxTTL bound MCP tasks (mcpserver.Options;
	// --max-tasks, --task-ttl, --task-max-ttl).
	MaxTasks            int
	TaskTTL, TaskMaxTTL time.Duration
	// AccountWait bounds how long a call waits for an account another run
	// holds before it is refused (-32004 account_busy): mcpserver.Options'
	// (0: lease.DefaultWait; negative: refused at once). --account-wait D,
	// where 0 means at once, as for `rpa run`.
	AccountWait time.Duration
}

// DefaultFlowsDir is $RPA_HOME/flows, the folder served (and published to)
// unless told otherwise.
func DefaultFlowsDir() string { return filepath.Join(home.Dir(), "flows") }

// Register declares c's flags on fs, with their help: --flows,
// --allow-exec, --allow-files, --exec-allow, --idle, --show, --browser,
// --hitl, --evidence, --runs-keep, --runs-max-mb, --packet-budget,
// --max-browsers, --max-contexts, --max-queue, --heal, --authoring, --steps, --schedules,
// --account-wait,
// --max-tasks, --task-ttl and --task-max-ttl.
func (c *Config) Register(fs *flag.FlagSet) {
	fs.StringVar(&c.FlowsDir, "flows", "", "folder of flows to serve (default $RPA_HOME/flows)")
	fs.BoolVar(&c.AllowExec, "allow-exec", false, "enable desktop_exec and the exec action")
	fs.BoolVar(&c.AllowFiles, "allow-files", false, "let served flows open file: URLs and upload, download or screenshot outside the temp dir")
	fs.Var((*cliflag.List)(&c.ExecAllow), "exec-allow", "allow only commands matching this glob (repeatable; needs --allow-exec)")
	fs.DurationVar(&c.Idle, "idle", profiles.DefaultIdle, "close a profile's browser after this idle time")
	fs.BoolVar(&c.Show, "show", false, "show browser windows instead of running headless")
	fs.Var(cliflag.Joined{S: &c.Remote}, "browser", "attach to a running DevTools endpoint (ws://, http:// or wss://...) instead of launching; repeat (or comma-separate) to spread profiles over several")
	fs.StringVar(&c.HITL, "hitl", "", hitl.OrderUsage)
	c.Runs.Register(fs, true)
	fs.IntVar(&c.MaxBrowsers, "max-browsers", profiles.DefaultMaxBrowsers,
		"most browsers open at once; one more closes the longest-idle one, or waits for one when all are in use (-1: no bound)")
	fs.IntVar(&c.MaxContexts, "max-contexts", profiles.DefaultMaxContexts(),
		"with --browser: most profiles open at once on the attached browsers (each a browser context there), as --max-browsers (-1: no bound)")
	fs.IntVar(&c.MaxQueue, "max-queue", profiles.DefaultMaxQueue,
		"most calls waiting for one profile, and for a browser; past it a call is refused (busy) at once (-1: no bound)")
	fs.StringVar(&c.Heal, "heal", "", heal.ModeUsage)
	fs.BoolVar(&c.Authoring, "authoring", false, "add the authoring tools: an agent explores with browser_* tools and flow_save writes the flow (docs/authoring.md)")
	fs.StringVar(&c.Steps, "steps", "", "also serve every step of this flow file as its own tool (step_03_click), for authoring and debugging")
	fs.BoolVar(&c.Schedules, "schedules", true, "fire the schedules of $RPA_HOME (rpa schedule) while serving; --schedules=false leaves them to another rpa process")
	c.AccountWait = lease.DefaultWait
	fs.Func("account-wait", fmt.Sprintf("how long a call waits for an account another run holds before it is refused (0: at once; default %s)", lease.DefaultWait), func(v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("want a duration such as 30s (0: at once)")
		}
		c.AccountWait = cmp.Or(d, -1)
		return nil
	})
	fs.IntVar(&c.MaxTasks, "max-tasks", tasks.DefaultMax, "most MCP tasks running at once; one more is refused (busy)")
	fs.DurationVar(&c.TaskTTL, "task-ttl", tasks.DefaultTTL, "how long a finished MCP task and its result are kept when its caller asks for no ttl")
	fs.DurationVar(&c.TaskMaxTTL, "task-max-ttl", tasks.DefaultMaxTTL, "the longest ttl a caller may ask for an MCP task (a longer one is cut to it)")
}

// checkTasks reports a bad --max-tasks, --task-ttl or --task-max-ttl.
func (c *Config) checkTasks() error {
	switch {
	case c.MaxTasks < 0:
		return fmt.Errorf("--max-tasks %d: want a positive number of tasks", c.MaxTasks)
	case c.TaskTTL < 0:
		return fmt.Errorf("--task-ttl %s: want a positive duration", c.TaskTTL)
	case c.TaskMaxTTL < 0:
		return fmt.Errorf("--task-max-ttl %s: want a positive duration", c.TaskMaxTTL)
	case c.TaskTTL > 0 && c.TaskMaxTTL > 0 && c.TaskTTL > c.TaskMaxTTL:
		return fmt.Errorf("--task-ttl %s is longer than --task-max-ttl %s", c.TaskTTL, c.TaskMaxTTL)
	}
	return nil
}

// Server is a built flow server. Close it.
type Server struct {
	Dir  string // the flows folder served
	Log  *slog.Logger
	Pool *profiles.Pool
	MCP  *mcpserver.Server
	cfg  Config
	st   *runs.Store
	// leases, for a desktop's server (LinkOptions): the accounts' leases on this machine and,
	// once Dial made the link, across the desktops of a gateway cluster.
	leases *LinkLeaser
}

// New checks c and builds the server: opts carries the caller's own
// server options (the fields c decides are filled in here: FlowsDir, Pool,
// Logger, HITL, AllowExec, AllowFiles, ExecAllow, Heal, Runs, Evidence,
// PacketBudget). log receives the server's lines (stderr: stdout carries
// the protocol in stdio mode). A bad setting is an error naming its flag;
// nothing is left open then. Temporary profiles a killed process left
// under $RPA_HOME/tmp are removed first (profiles.SweepTemp), so rpa serve,
// rpa connect and rpa ui each start clean.
func New(c Config, opts mcpserver.Options, log *slog.Logger) (*Server, error) {
	if len(c.ExecAllow) > 0 && !c.AllowExec {
		return nil, errors.New("--exec-allow needs --allow-exec")
	}
	if err := heal.CheckFlag(c.Heal); err != nil {
		return nil, fmt.Errorf("--heal: %v", err)
	}
	if err := c.Runs.Check(); err != nil {
		return nil, err
	}
	if err := c.checkTasks(); err != nil {
		return nil, err
	}
	if c.Show && c.Remote == "" {
		if msg := hitl.NoDisplay("drop --show to run headless"); msg != "" {
			return nil, fmt.Errorf("--show: %s", msg)
		}
	}
	hcfg, err := hitl.ServerConfig(c.HITL)
	if err != nil {
		return nil, err
	}
	// A killed process's temporary profiles ($RPA_HOME/tmp/profile-*) go at
	// the start of every long-running command too, not only at the next
	// rpa run that makes one.
	if n := profiles.SweepTemp(); n > 0 {
		log.Info("removed temporary profiles left by a killed process", "count", n)
	}
	s := &Server{Dir: c.FlowsDir, Log: log, cfg: c}
	if s.Dir == "" {
		s.Dir = DefaultFlowsDir()
		if err := os.MkdirAll(s.Dir, 0o755); err != nil {
			return nil, err
		}
	}
	if s.Pool, err = NewPool(c, log); err != nil {
		return nil, err
	}
	if s.st, err = c.Runs.Open(home.Dir()); err != nil {
		s.Pool.Close()
		return nil, fmt.Errorf("run store: %w", err)
	}
	hcfg.Log = log
	opts.FlowsDir, opts.Pool, opts.Logger, opts.HITL, opts.Heal = s.Dir, s.Pool, log, hcfg, c.Heal
	opts.AllowExec, opts.AllowFiles, opts.ExecAllow = c.AllowExec, c.AllowFiles, c.ExecAllow
	opts.Runs, opts.Evidence, opts.PacketBudget = s.st, c.Runs.Evidence, c.Runs.PacketBudget
	opts.MaxTasks, opts.TaskTTL, opts.TaskMaxTTL = c.MaxTasks, c.TaskTTL, c.TaskMaxTTL
	opts.AccountWait = c.AccountWait
	if opts.RunCaller == runs.CallerLink && opts.Leases == nil {
		s.leases = &LinkLeaser{Local: lease.NewLocal(home.Dir())}
		opts.Leases = s.leases
	}
	if s.MCP, err = mcpserver.New(opts); err != nil {
		s.Pool.Close()
		s.st.Close()
		return nil, err
	}
	s.addSchedulesResource() // schedules.go
	if c.Authoring {
		s.MCP.EnableAuthoring()
	}
	if c.Steps != "" {
		if err := s.MCP.ServeSteps(c.Steps); err != nil {
			s.Close()
			return nil, fmt.Errorf("--steps: %w", err)
		}
	}
	return s, nil
}

// Close stops the server (its scheduler, then the calls in flight are
// cancelled), then the pool and the run store.
func (s *Server) Close() {
	s.stopSchedules() // schedules.go
	s.MCP.Close()
	s.Pool.Close()
	s.st.Close()
}

// NewPool is the browser pool of c: one Chromium per profile under
// profiles.Dir (made on first use), or every profile attached to
// c.Remote when set; idle browsers close after c.Idle; c.MaxBrowsers,
// c.MaxContexts and c.MaxQueue bound it.
func NewPool(c Config, log *slog.Logger) (*profiles.Pool, error) {
	return profiles.New(profiles.Options{
		Driver: rod.New(), Idle: c.Idle, Logger: log, MaxBrowsers: c.MaxBrowsers, MaxContexts: c.MaxContexts, MaxQueue: c.MaxQueue,
		Launch: func(id string) (drivers.LaunchOptions, error) {
			o := drivers.LaunchOptions{Show: c.Show, Remote: c.Remote}
			if c.Remote == "" {
				d, err := profiles.Dir(id)
				if err != nil {
					return o, err
				}
				if err := os.MkdirAll(d, 0o700); err != nil {
					return o, err
				}
				o.UserDataDir = d
			}
			return o, nil
		},
	})
}

// onCancel arranges that when ctx ends, the calls in flight on s are
// cancelled (mcpserver.Server.Close), then done runs (after the calls
// returned, or after 10 s). It returns the func that undoes it.
func (s *Server) onCancel(ctx context.Context, done func()) func() bool {
	return context.AfterFunc(ctx, func() {
		s.Log.Info("signal: cancelling the calls in flight, then exiting")
		closed := make(chan struct{})
		go func() { _ = s.MCP.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			s.Log.Warn("signal: calls still running after 10s; exiting anyway")
		}
		done()
	})
}

// LinkOptions are the MCP server's options when its tools are served over a
// link to a backend (rpa connect, rpa ui --connect): the backend is not on
// this machine, so passwords go to the desktop channels and never to a URL
// the backend would see; the backend is the one caller (each link a new
// session), so profiles are shared; its runs are recorded with the device.
func LinkOptions(deviceID string) mcpserver.Options {
	return mcpserver.Options{NoURLElicitation: true, ShareProfiles: true, RunCaller: runs.CallerLink, RunDevice: deviceID}
}
