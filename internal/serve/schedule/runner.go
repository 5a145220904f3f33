package schedule

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rpa-dev/rpa/internal/host/home"
	"github.com/rpa-dev/rpa/internal/host/vault"

	"github.com/rpa-dev/rpa/core"

	"github.com/rpa-dev/rpa/internal/cliflag"
	"github.com/rpa-dev/rpa/internal/host/execpolicy"
	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/internal/host/lease"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/heal"
	"github.com/rpa-dev/rpa/internal/serve/localrun"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

// LocalRunner runs an attempt in this process the way `rpa run` does
// (localrun.Run: a browser of its own on the schedule's profile, the run
// recorded with its schedule), headless unless Show. `ask` goes to the
// desktop channels (an open console, else a dialog; no terminal); `exec`
// is refused unless Exec allows it.
type LocalRunner struct {
	Runs   runs.Settings
	Bin    string // Chromium ("" = $ROD_BROWSER, else chromium on PATH)
	Remote string // DevTools endpoints to attach to instead of launching
	Show   bool
	HITL   string             // the ask order ("" = the default)
	Heal   string             // the heal mode ("" = the flow's)
	Exec   *execpolicy.Policy // nil: exec is refused
	// Pool is the warm browsers of the process firing the schedules (a
	// server's; nil: `rpa schedule daemon`): a run on a named profile or
	// account uses that profile's browser there, idle or started for it
	// (localrun.Options.Pool), so the process never waits for its own
	// idle browser; while a call holds it the fire is Busy.
	Pool *profiles.Pool
	// Warn receives what went wrong beside a run (not recorded, ...).
	Warn func(string)
}

// Run loads the flow and its arguments afresh (a changed file runs as it
// is now) and runs it once. A flow that no longer loads, arguments that
// no longer fit it, an account the vault lacks, or a browser that does
// not start are failed attempts with the reason and its kind (the
// scheduler records them as runs); a profile another process holds and
// does not hand over within profiles.DefaultClaimWait, or a call of this
// one holds, a full browser queue of Pool, or an account another
// run holds (lease.BusyError), is Busy.
func (r *LocalRunner) Run(ctx context.Context, j Job) Outcome {
	d := j.Def
	f, ds := lang.LoadFile(d.Flow)
	if f == nil || ds.HasErrors() {
		return Outcome{Status: runs.StatusFailed, Kind: string(core.KindExpression), Error: "the flow does not load: " + firstError(d.Flow, ds.Error())}
	}
	kv, err := withSecrets(d)
	if err != nil {
		return Outcome{Status: runs.StatusFailed, Kind: string(core.KindExpression), Error: err.Error()}
	}
	// The schedule's account is the value of the flow's credential params
	// its --arg left out (LANGUAGE.md, "Accounts and sign-in").
	args, err := typedArgs(f, withAccount(f.File, d, kv))
	if err != nil {
		return Outcome{Status: runs.StatusFailed, Kind: string(core.KindExpression), Error: "the schedule's arguments no longer fit the flow: " + err.Error()}
	}
	exec := r.Exec
	if exec == nil {
		exec = &execpolicy.Policy{Disabled: "command execution is disabled for scheduled runs"}
	}
	host, err := localrun.Host(r.HITL, nil, io.Discard, exec)
	if err != nil {
		return Outcome{Status: runs.StatusFailed, Error: err.Error()}
	}
	warn := r.Warn
	if warn == nil {
		warn = func(string) {}
	}
	out, err := localrun.Run(ctx, f, localrun.Options{
		Args: args, Flows: lang.FolderFlows(filepath.Dir(d.Flow)), Host: host,
		Profile: d.Profile, Show: r.Show, Remote: r.Remote, Bin: r.Bin, Timeout: d.Timeout.D(),
		Runs: r.Runs, Heal: r.Heal, Pool: r.Pool, Vault: vault.Default(home.Dir(), nil), // nobody to ask: NoVaultKey says what to set
		Caller: runs.Caller{Kind: runs.CallerSchedule}, Schedule: d.Name, RetryOf: j.RetryOf, Started: j.Started,
		// a profile another process keeps for an idle browser is asked for
		// and handed over (without a wait nobody asks, and the fire stays
		// Busy until that browser's --idle runs out)
		ProfileWait: profiles.DefaultClaimWait,
		Warn:        func(msg string) { warn("schedule " + d.Name + ": " + msg) },
	})
	if err != nil {
		var inUse *profiles.InUseError
		var held *profiles.HeldError
		var full *profiles.BusyError
		var acct *lease.BusyError
		switch {
		case errors.As(err, &inUse):
			return Outcome{Busy: inUse.Error(), BusyPID: inUse.PID}
		case errors.As(err, &held):
			return Outcome{Busy: held.Error(), BusyPID: os.Getpid()}
		case errors.As(err, &full):
			return Outcome{Busy: full.Error(), BusyPID: os.Getpid()}
		case errors.As(err, &acct):
			return Outcome{Busy: acct.Error(), BusyPID: localPID(acct.Holder)}
		case errors.Is(err, localrun.ErrCancelled):
			return Outcome{Status: runs.StatusCancelled, Kind: string(core.KindCancelled), Error: "cancelled while the browser was starting"}
		case errors.Is(err, localrun.ErrTimeout):
			return Outcome{Status: runs.StatusFailed, Kind: string(core.KindTimeout), Error: err.Error()}
		case errors.Is(err, vault.ErrNoPassphrase):
			return Outcome{Status: runs.StatusFailed, Kind: string(core.KindExpression), Error: "the vault's key cannot be had here: " + NoVaultKey}
		case errors.As(err, new(*localrun.SetupError)):
			return Outcome{Status: runs.StatusFailed, Kind: string(core.KindExpression), Error: err.Error()}
		}
		return Outcome{Status: runs.StatusFailed, Kind: string(core.KindBrowser), Error: err.Error()}
	}
	o := Outcome{RunID: out.RunID, Status: runs.StatusOK}
	switch {
	case out.Result.Success:
	case out.Cancelled:
		o.Status, o.Error = runs.StatusCancelled, "cancelled"
	default:
		o.Status, o.Error = runs.StatusFailed, ErrorSummary(out.Result.Error)
		if out.TimedOut {
			o.Error = fmt.Sprintf("stopped by its --timeout %s: %s", FormatDuration(d.Timeout.D()), o.Error)
		}
	}
	return o
}

// NoVaultKey says how a process that fires schedules gets the vault's
// key when there is no OS keyring.
const NoVaultKey = "set " + vault.EnvPassphrase + " in the environment of the process that fires schedules (for the rpa-schedule unit: ~/.config/rpa/schedule.env), or keep the vault's key in the OS keyring"

// ErrorSummary is one line for a run's error: "line 12: covered: click:
// #go is covered by div#consent" (masked as the result is).
func ErrorSummary(e *interp.RunError) string {
	if e == nil {
		return "failed"
	}
	s := string(e.Kind) + ": " + e.Message
	if e.Line > 0 {
		s = fmt.Sprintf("line %d: %s", e.Line, s)
	}
	return s
}

// withSecrets is d's arguments with the secret params' values read from
// the environment (Def.SecretEnv); a variable that is not set is an error
// naming it and this process.
func withSecrets(d *Def) (map[string]string, error) {
	kv := make(map[string]string, len(d.Args)+len(d.SecretEnv))
	for k, v := range d.Args {
		kv[k] = v
	}
	for k, env := range d.SecretEnv {
		v, ok := os.LookupEnv(env)
		if !ok {
			return nil, fmt.Errorf("the secret param %s reads the environment variable %s, which is not set in this process (%s, pid %d)", k, env, filepath.Base(os.Args[0]), os.Getpid())
		}
		kv[k] = v
	}
	return kv, nil
}

// typedArgs converts a schedule's `--arg` strings by f's param types
// (lang's one check of a call's arguments).
func typedArgs(f *lang.Flow, kv map[string]string) (lang.Args, error) {
	return f.ParseArgs(kv)
}

// firstError is the first line of a load error, with the file named.
func firstError(path, msg string) string {
	msg, _, _ = strings.Cut(strings.TrimSpace(msg), "\n")
	if msg == "" {
		msg = "it has errors (rpa check " + path + ")"
	}
	return msg
}

// Register declares r's flags on fs (`rpa schedule daemon`): --browser,
// --browser-bin, --show, --hitl, --heal and the run store's --evidence,
// --runs-keep and --runs-max-mb.
func (r *LocalRunner) Register(fs *flag.FlagSet) {
	fs.Var(cliflag.Joined{S: &r.Remote}, "browser", "attach to a running browser's DevTools endpoint (ws://, http:// or wss://...) instead of launching one")
	fs.StringVar(&r.Bin, "browser-bin", "", "Chromium binary (default: $ROD_BROWSER, else chromium on PATH)")
	fs.BoolVar(&r.Show, "show", false, "show the browser windows instead of running headless")
	fs.StringVar(&r.HITL, "hitl", "", hitl.OrderUsage)
	fs.StringVar(&r.Heal, "heal", "", heal.ModeUsage)
	r.Runs.Register(fs, true)
}

// Check reports a bad setting of r, naming its flag.
func (r *LocalRunner) Check() error {
	if err := heal.CheckFlag(r.Heal); err != nil {
		return fmt.Errorf("--heal: %v", err)
	}
	if r.HITL != "" {
		if _, err := hitl.ParseOrder(r.HITL); err != nil {
			return err // names --hitl
		}
	}
	if r.Show && r.Remote == "" {
		if msg := hitl.NoDisplay("drop --show to run headless"); msg != "" {
			return fmt.Errorf("--show: %s", msg)
		}
	}
	return r.Runs.Check()
}

// localPID is h's process when h runs on this machine (lease.Local's
// holders do), else 0 (a cluster's holder on another desktop).
func localPID(h lease.Holder) int {
	if h.Host != "" {
		if me, err := os.Hostname(); err != nil || me != h.Host {
			return 0
		}
	}
	return h.PID
}
