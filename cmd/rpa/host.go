package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/mcpserver"
	"github.com/rpa-dev/rpa/profiles"
)

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// defaultFlowsDir is $RPA_HOME/flows, the folder `rpa serve`, `rpa
// connect` and `rpa publish` use unless told otherwise.
func defaultFlowsDir() string { return filepath.Join(drivers.Home(), "flows") }

// serverFlags are the flags `rpa serve` and `rpa connect` share: which
// flows, which browsers, what the flows may do, who answers `ask`.
type serverFlags struct {
	flows      string
	allowExec  bool
	allowFiles bool
	execAllow  multiFlag
	idle       time.Duration
	show       bool
	remote     string
	verbose    bool
	hitl       string
	authoring  bool          // --authoring: the authoring tools (mcpserver.EnableAuthoring)
	steps      string        // --steps FLOW: one tool per step of FLOW (mcpserver.ServeSteps)
	evid       evidenceFlags // --evidence, --runs-keep, --runs-max-mb, --packet-budget (runs.go)
	limits     poolLimits    // --max-browsers, --max-queue (limits.go)
	heal       string        // --heal (heal.go)
}

// register declares the shared flags on fs.
func (sf *serverFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&sf.flows, "flows", "", "folder of flows to serve (default $RPA_HOME/flows)")
	fs.BoolVar(&sf.allowExec, "allow-exec", false, "enable desktop_exec and the exec action")
	fs.BoolVar(&sf.allowFiles, "allow-files", false, "let served flows open file: URLs and upload, download or screenshot outside the temp dir")
	fs.Var(&sf.execAllow, "exec-allow", "allow only commands matching this glob (repeatable; needs --allow-exec)")
	fs.DurationVar(&sf.idle, "idle", profiles.DefaultIdle, "close a profile's browser after this idle time")
	fs.BoolVar(&sf.show, "show", false, "show browser windows instead of running headless")
	fs.Var(joinedFlag{&sf.remote}, "browser", "attach to a running DevTools endpoint (ws://, http:// or wss://...) instead of launching; repeat (or comma-separate) to spread profiles over several")
	fs.BoolVar(&sf.verbose, "v", false, "log debug lines")
	fs.StringVar(&sf.hitl, "hitl", "", hitlUsage)
	sf.evid.register(fs, false)
	sf.limits.register(fs)
	fs.StringVar(&sf.heal, "heal", "", healUsage)
	fs.BoolVar(&sf.authoring, "authoring", false, "add the authoring tools: an agent explores with browser_* tools and flow_save writes the flow (docs/authoring.md)")
	fs.StringVar(&sf.steps, "steps", "", "also serve every step of this flow file as its own tool (step_03_click), for authoring and debugging")
}

// flowServer is what `rpa serve` and `rpa connect` both build: a logger on
// stderr, the browser pool and the MCP server of the flows folder.
type flowServer struct {
	dir  string
	log  *slog.Logger
	pool *profiles.Pool
	srv  *mcpserver.Server
	// closeRuns closes the run store (runs.go).
	closeRuns func()
}

// build checks the shared flags and builds the flowServer; opts carries
// the command's own server options (the flags' fields are filled in here).
// On a problem it says why on stderr as "rpa CMD: ..." and returns nil and
// exitUsage. Logs go to stderr: stdout carries the protocol in stdio mode.
func (sf *serverFlags) build(cmd string, stderr io.Writer, opts mcpserver.Options) (*flowServer, int) {
	fail := func(err error) (*flowServer, int) {
		fmt.Fprintf(stderr, "rpa %s: %v\n", cmd, err)
		return nil, exitUsage
	}
	if len(sf.execAllow) > 0 && !sf.allowExec {
		return fail(fmt.Errorf("--exec-allow needs --allow-exec"))
	}
	s := &flowServer{dir: sf.flows}
	if s.dir == "" {
		s.dir = defaultFlowsDir()
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			return fail(err)
		}
	}
	level := slog.LevelInfo
	if sf.verbose {
		level = slog.LevelDebug
	}
	s.log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if sf.show && sf.remote == "" {
		if msg := noDisplay("drop --show to run headless"); msg != "" { // display.go
			return fail(fmt.Errorf("--show: %s", msg))
		}
	}
	var err error
	if s.pool, err = newProfilePool(sf.show, sf.remote, sf.idle, s.log, sf.limits); err != nil {
		return fail(err)
	}
	if err := checkHeal(sf.heal); err != nil {
		s.pool.Close()
		return fail(fmt.Errorf("--heal: %v", err))
	}
	opts.Heal = sf.heal
	hcfg, err := serverHITL(sf.hitl)
	if err != nil {
		s.pool.Close()
		return fail(err)
	}
	hcfg.Log = s.log
	opts.FlowsDir, opts.Pool, opts.Logger, opts.HITL = s.dir, s.pool, s.log, hcfg
	opts.AllowExec, opts.AllowFiles, opts.ExecAllow = sf.allowExec, sf.allowFiles, sf.execAllow
	if s.closeRuns, err = sf.evid.serverOptions(cmd, &opts); err != nil {
		s.pool.Close()
		return fail(err)
	}
	if s.srv, err = mcpserver.New(opts); err != nil {
		s.pool.Close()
		s.closeRuns()
		return fail(err)
	}
	if sf.authoring {
		s.srv.EnableAuthoring()
	}
	if sf.steps != "" {
		if err := s.srv.ServeSteps(sf.steps); err != nil {
			s.Close()
			return fail(fmt.Errorf("--steps: %w", err))
		}
	}
	return s, exitOK
}

// Close stops the server (calls in flight are cancelled), then the pool.
func (s *flowServer) Close() {
	s.srv.Close()
	s.pool.Close()
	if s.closeRuns != nil {
		s.closeRuns()
	}
}

// newProfilePool is the browser pool of `rpa serve` and `rpa connect`: one
// Chromium per profile under drivers.ProfileDir (made on first use), or
// every profile attached to remote (ws://...) when set; idle browsers close
// after idle; lim bounds browsers open at once and calls queued per profile.
func newProfilePool(show bool, remote string, idle time.Duration, log *slog.Logger, lim poolLimits) (*profiles.Pool, error) {
	o := profiles.Options{
		Driver: rod.New(),
		Idle:   idle,
		Logger: log,
		Launch: func(id string) (drivers.LaunchOptions, error) {
			o := drivers.LaunchOptions{Show: show, Remote: remote}
			if remote == "" {
				d, err := drivers.ProfileDir(id)
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
	}
	lim.apply(&o)
	return profiles.New(o)
}
