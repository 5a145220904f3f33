// Package localrun runs one flow in this process, in a browser of its own
// (`rpa run`, `rpa demo`; a console's "run" button): it claims the
// browser profile (persistent, or a temporary one removed after), launches
// Chromium (or attaches to a running one), records the run in the run store
// ($RPA_HOME/runs), attaches healing, runs the flow with interp.Run and,
// once the browser has closed, scrubs a persistent profile of the run's
// secrets. The serving side (a warm browser per profile shared by many
// calls) is mcpserver over profiles.Pool instead.
package localrun

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/cliflag"
	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/internal/host/home"
	"github.com/rpa-dev/rpa/internal/host/lease"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/host/vault"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/heal"
	"github.com/rpa-dev/rpa/internal/runs/record"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

// LaunchTimeout bounds the browser's start (60 s; within Options.Timeout).
const LaunchTimeout = 60 * time.Second

// Options are one run's settings.
type Options struct {
	Args  lang.Args                       // the checked arguments (lang.Flow.ParseArgs and its siblings)
	Flows func(string) (*lang.Flow, bool) // the targets of `call`
	Host  core.Host                       // ask, llm, exec
	// Profile is the browser profile ID; "" is the flow's `defaults
	// profile:`, else a temporary profile removed after the run. Unused
	// with Remote.
	Profile string
	Show    bool   // a browser window instead of headless
	Remote  string // DevTools endpoints to attach to instead of launching (drivers.LaunchOptions.Remote)
	Bin     string // the Chromium binary ("" = $ROD_BROWSER, else chromium on PATH)
	// Timeout bounds the whole run, browser start included (0: none).
	Timeout time.Duration
	// Progress receives the run's events (nil: none) and is flushed when
	// the run ends.
	Progress *interp.Progress
	// Runs is what the run's record keeps (evidence, retention, failure
	// packet budget); the store is $RPA_HOME/runs.
	Runs runs.Settings
	// Heal is the heal mode ("" = the flow's `defaults heal:`, else
	// suggest; heal.CheckFlag checks it first).
	Heal string
	// Caller is who started the run, for its record (zero: the command
	// line, runs.CallerCLI); Schedule and RetryOf link a scheduled run to
	// its schedule and to the failed attempt it retries (runs.Run).
	Caller            runs.Caller
	Schedule, RetryOf string
	// Started, when set, is called with the run's ID once its record has
	// begun (not when the run is not recorded).
	Started func(runID string)
	noteRun func(runID string) // records the run ID on the account leases
	// Vault resolves credential params (nil: the vault of $RPA_HOME,
	// vault.Default, its passphrase asked on the controlling terminal when
	// neither the keyring nor RPA_VAULT_PASSPHRASE gives it); Leases gives one run per account at a
	// time (nil: lease.NewLocal of $RPA_HOME); AccountWait bounds the wait
	// for an account another run holds (0: do not wait, the
	// *lease.BusyError at once; `rpa run --account-wait`, default 2 m).
	Vault       *vault.Store
	Leases      lease.Leaser
	AccountWait time.Duration
	// ProfileWait bounds the wait for a profile folder another rpa process
	// holds (profiles.ClaimWait: a server keeping it for an idle browser
	// hands it over; a run on it must end first); 0: refused at once with
	// the *profiles.InUseError. A run with an account waits up to
	// AccountWait for its profile instead. `rpa run --profile-wait`,
	// default profiles.DefaultClaimWait.
	ProfileWait time.Duration
	// Warn receives what went wrong beside the run (it is not recorded,
	// its healing marks were not kept, the profile could not be scrubbed);
	// nil drops it.
	Warn func(msg string)
	// Phase, when set, is called as each phase of the run ends, in this
	// order: "setup" (arguments, accounts, the profile folder), "launch"
	// (the browser is up), "record" (the run store opened, the record
	// begun), "flow", "finish" (the record and its report written),
	// "close" (the browser exited), "scrub" (the profile scrubbed, a
	// temporary one removed). The speed benchmarks time them (bench/).
	Phase func(name string)
	// StepHook, when set, is interp's step hook for the run
	// (interp.Options.StepHook): the console's step debugger.
	StepHook interp.StepHook
	// Pool, when set, is the warm browsers of the process running the
	// flow (a server firing a schedule): a run on a named profile takes
	// that profile's browser from it (Pool.TryAcquire: its warm browser,
	// or one started there; a *profiles.HeldError at once while a call
	// holds it), starts on the tab the last call left and leaves the
	// browser warm, its secrets scrubbed when the pool closes it. Show,
	// Remote and Bin are then the pool's. Without it, and for a temporary
	// profile, the run launches a browser of its own.
	Pool *profiles.Pool
}

// Outcome is a run that happened.
type Outcome struct {
	Result *interp.Result
	// Record is "run ID  report PATH" of the run's record ("" when the
	// run was not recorded; without the report when it could not be
	// written); RunID and Report are its parts (runs.NewID's form; the
	// path of report.html).
	Record, RunID, Report string
	// Cancelled is true when ctx ended the run; TimedOut when
	// Options.Timeout did.
	Cancelled, TimedOut bool
}

// SetupError is a run that could not start for a reason of its input: a
// window asked for where there is no display (hitl.NoDisplay), a profile
// that cannot be made, or one another process holds (profiles.InUseError).
type SetupError struct{ Err error }

// Error is the reason, naming the flag or profile at fault.
func (e *SetupError) Error() string { return e.Err.Error() }

// Unwrap is the reason (a *profiles.InUseError, say).
func (e *SetupError) Unwrap() error { return e.Err }

// ErrCancelled is returned when ctx ended while the browser was starting;
// errors.Is matches it too when ctx ended while the run waited for its
// accounts or for a profile another rpa process holds (the error then
// says so).
var ErrCancelled = errors.New("cancelled while starting the browser")

// cancelledWhile is ErrCancelled saying what the run was waiting for.
type cancelledWhile string

func (c cancelledWhile) Error() string        { return "cancelled while " + string(c) }
func (c cancelledWhile) Is(target error) bool { return target == ErrCancelled }

// ErrTimeout is wrapped by the error returned when Options.Timeout ended
// while the browser was starting ("the run was stopped by --timeout D
// while the browser was starting").
var ErrTimeout = errors.New("the run was stopped by --timeout")

// LaunchError is a browser that could not be started.
type LaunchError struct{ Err error }

// Error says the browser could not be started, and why.
func (e *LaunchError) Error() string { return "the browser could not be started: " + e.Err.Error() }

// Unwrap is the driver's error.
func (e *LaunchError) Unwrap() error { return e.Err }

// Run runs f once as o says. It returns the Outcome when the flow ran
// (successful or not), or nil and why nothing ran: *SetupError (bad
// input, or the profile held: *profiles.InUseError, *profiles.HeldError),
// ErrCancelled, ErrTimeout (wrapped) or *LaunchError.
func Run(ctx context.Context, f *lang.Flow, o Options) (*Outcome, error) {
	warn := o.Warn
	if warn == nil {
		warn = func(string) {}
	}
	phase := o.Phase
	if phase == nil {
		phase = func(string) {}
	}
	defer phase("scrub") // the last of the defers below to end
	if o.Show && o.Remote == "" {
		if msg := hitl.NoDisplay("drop --show to run headless (the default)"); msg != "" {
			return nil, &SetupError{fmt.Errorf("--show: %s", msg)}
		}
	}
	named := o.Args // an account by its name: what the record keeps
	if len(f.File.Params) > 0 {
		st := o.Vault
		if st == nil {
			st = vault.Default(home.Dir(), vault.TerminalAsker) // a passphrase is asked on the terminal, if there is one
		}
		resolved, accounts, err := vault.ResolveArgs(st, f, o.Args, o.Flows)
		if err != nil {
			return nil, &SetupError{err}
		}
		o.Args = resolved
		if len(accounts) > 0 {
			leases := o.Leases
			if leases == nil {
				leases = lease.NewLocal(home.Dir())
			}
			release, note, err := lease.AcquireAll(ctx, leases, accounts, o.AccountWait)
			if err != nil {
				if ctx.Err() != nil {
					return nil, cancelledWhile(waitingFor(accounts))
				}
				return nil, err // a *lease.BusyError
			}
			defer release()
			o.noteRun = note
			if o.Profile == "" && f.Profile() == "" {
				o.Profile = vault.ProfileFor(accounts[0])
			}
		}
	}
	var profileDir string
	temporary := false // the profile folder is removed after the run
	id := o.Profile
	if id == "" {
		id = f.Profile()
	}
	pooled := o.Pool != nil && id != ""
	// A profile another rpa process holds is asked for and waited for.
	claimWait := o.ProfileWait
	if o.noteRun != nil {
		claimWait = o.AccountWait
	}
	if o.Remote == "" && !pooled {
		dir, cleanup, err := profiles.ForRun(id)
		if err != nil {
			return nil, &SetupError{err}
		}
		defer cleanup()
		profileDir, temporary = dir, id == ""
	}
	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if o.Timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, o.Timeout)
	}
	defer cancel()

	phase("setup")
	// The run store opens while the browser starts (neither needs the
	// other); the record begins once the browser is up.
	opened := make(chan storeOpen, 1)
	go func() {
		st, err := o.Runs.Open(home.Dir())
		opened <- storeOpen{st, err}
	}()
	launchCtx, lcancel := context.WithTimeout(profiles.WithClaimWait(runCtx, claimWait), LaunchTimeout+max(claimWait, 0))
	var (
		br     drivers.Browser
		held   *profiles.Lease // the pool's profile (pooled)
		onPage drivers.Page    // the tab the pool's last call left
		err    error
	)
	if pooled {
		// The lease lives as long as the run (a run ended by its context
		// leaves the tab cleaned on Release); the pool's launch is bounded
		// by the run, as a served call's is.
		if held, err = o.Pool.TryAcquire(profiles.WithClaimWait(runCtx, claimWait), id); err == nil {
			br, onPage = held.Browser(), held.Page()
		}
	} else {
		br, err = profiles.Launch(launchCtx, rodd.New(), drivers.LaunchOptions{Bin: o.Bin, UserDataDir: profileDir, Show: o.Show, Remote: o.Remote})
	}
	lcancel()
	if err != nil {
		if so := <-opened; so.err == nil {
			so.st.Close()
		}
		var (
			ie *profiles.InUseError
			he *profiles.HeldError
		)
		var wc *profiles.WaitCancelled
		switch {
		case ctx.Err() != nil && errors.As(err, &wc):
			return nil, cancelledWhile("waiting for profile " + wc.Profile + ", which another rpa process holds")
		case ctx.Err() != nil:
			return nil, ErrCancelled
		case runCtx.Err() != nil:
			return nil, fmt.Errorf("%w %s while the browser was starting", ErrTimeout, o.Timeout)
		case errors.As(err, &ie):
			return nil, &SetupError{ie} // another rpa process holds the profile
		case errors.As(err, &he):
			return nil, &SetupError{he} // a call of this process holds it
		}
		return nil, &LaunchError{err}
	}
	if held != nil {
		// The pool scrubs the run's secrets from the folder when it
		// closes the browser.
		held.AddSecrets(o.Args.Secrets()...)
		defer func() {
			held.Release()
			phase("close")
		}()
	} else {
		// The browser closes before the persistent profile is scrubbed
		// of the run's secrets and the temporary profile removed.
		defer closeOwn(br, profileDir, temporary, o.Args.Secrets(), warn, phase)()
	}
	phase("launch")

	rec := startRecord(f, o, named, <-opened, warn) // nil when not recorded
	phase("record")
	var store heal.Store
	run := ""
	if rec != nil {
		store, run = rec.Store, rec.Rec.ID()
		if o.Started != nil {
			o.Started(run)
		}
	}
	healCtx, healFlush := heal.Attach(runCtx, o.Heal, f, store, run)
	caller := o.Caller
	if caller.Kind == "" {
		caller.Kind = runs.CallerCLI
	}
	healCtx = hitl.WithAsker(healCtx, hitl.Asker{Flow: f.File.Name, Run: run, Caller: runs.RunCallerText(&runs.Run{Caller: caller, Schedule: o.Schedule})})
	events, flush := func(interp.Event) {}, func() {}
	if o.Progress != nil {
		events, flush = o.Progress.Event, o.Progress.Flush
	}
	res, page := interp.Run(healCtx, f, interp.Options{
		Args:     o.Args,
		Browser:  br,
		Page:     onPage,
		Flows:    o.Flows,
		Events:   rec.Hook(events),
		Host:     o.Host,
		Mask:     rec.Mask(), // the record's masker (nil when not recorded)
		StepHook: o.StepHook,
	})
	flush()
	if err := healFlush(); err != nil {
		warn(fmt.Sprintf("healing marks not kept: %v", err))
	}
	phase("flow")
	out := &Outcome{Result: res}
	fin, err := rec.Finish(ctx, res, page)
	if err != nil {
		warn(fmt.Sprintf("the run record is incomplete: %v", err))
	}
	if fin != nil {
		out.Record, out.RunID, out.Report = fin.Line(), fin.ID, fin.Report
	}
	phase("finish")
	switch {
	case held != nil:
		// The next call on the profile (and browser_read) starts where
		// this run ended, as after a served call.
		held.SetPage(page)
		if res.Error != nil && res.Error.Kind == core.KindBrowser {
			held.MarkBroken()
		}
		if res.Error != nil && (res.Error.Kind == core.KindCancelled || res.Error.Kind == core.KindTimeout) {
			held.Interrupted()
		}
	case page != nil && o.Remote != "":
		// Leave a remote browser as we found it: close the tab we used.
		_ = page.Close()
	}
	flush()
	if !res.Success {
		out.Cancelled = ctx.Err() != nil
		out.TimedOut = !out.Cancelled && runCtx.Err() != nil
	}
	return out, nil
}

// closeOwn marks the run's own browser's profile folder for a scrub of
// secrets and returns what ends it: the browser closes (a temporary
// profile's discarded: its folder is removed next), then the persistent
// folder is scrubbed.
func closeOwn(br drivers.Browser, dir string, temporary bool, secrets []string, warn, phase func(string)) func() {
	scrub, err := profiles.ScrubAfter(dir, secrets)
	if err != nil {
		warn(fmt.Sprintf("cannot mark the profile for a scrub: %v", err))
	}
	return func() {
		if temporary {
			// Nothing of the folder is worth the browser's graceful
			// shutdown, which writes it to disk.
			_ = drivers.Discard(br)
		} else {
			_ = br.Close()
		}
		phase("close")
		if err := scrub(); err != nil {
			warn(fmt.Sprintf("the profile could not be fully cleaned of the run's secrets: %v", err))
		}
	}
}

// storeOpen is the run store Options.Runs opened, or why not.
type storeOpen struct {
	st  *runs.Store
	err error
}

// startRecord begins the record of the run in the store so opened; a store
// that could not be opened is a warning and the run goes on unrecorded
// (nil).
func startRecord(f *lang.Flow, o Options, named lang.Args, so storeOpen, warn func(string)) *record.Local {
	st, err := so.st, so.err
	if err == nil {
		var rec *record.Local
		caller := o.Caller
		if caller.Kind == "" {
			caller.Kind = runs.CallerCLI
		}
		rec, err = record.StartLocal(st, record.Options{Flow: f, Args: named, Secrets: o.Args.Secrets(), Caller: caller,
			Profile: o.Profile, Evidence: o.Runs.Evidence, PacketBudget: o.Runs.PacketBudget,
			Schedule: o.Schedule, RetryOf: o.RetryOf})
		if err == nil {
			if o.noteRun != nil {
				o.noteRun(rec.Rec.ID())
			}
			return rec
		}
	}
	warn(fmt.Sprintf("this run is not recorded: %v", err))
	return nil
}

// Check reports a setting o must not run with, naming its flag: a bad
// --heal (heal.CheckFlag), a bad run store setting (runs.Settings.Check)
// or a negative --timeout, --account-wait or --profile-wait.
func (o Options) Check() error {
	if err := heal.CheckFlag(o.Heal); err != nil {
		return fmt.Errorf("--heal: %v", err)
	}
	if err := o.Runs.Check(); err != nil {
		return err
	}
	for _, d := range []struct {
		flag, zero string
		d          time.Duration
	}{{"--timeout", "no bound", o.Timeout}, {"--account-wait", "fail at once", o.AccountWait}, {"--profile-wait", "fail at once", o.ProfileWait}} {
		if d.d < 0 {
			return fmt.Errorf("%s must not be negative (0: %s)", d.flag, d.zero)
		}
	}
	return nil
}

// Register declares o's flags on fs (`rpa run`): --profile, --show,
// --timeout, --browser, --browser-bin, --heal, --account-wait,
// --profile-wait and the run store's
// --evidence, --runs-keep and --runs-max-mb.
func (o *Options) Register(fs *flag.FlagSet) {
	fs.StringVar(&o.Profile, "profile", "", "browser profile ID (folder $RPA_HOME/profiles/ID); default: the flow's \"defaults profile:\", else a temporary profile")
	fs.BoolVar(&o.Show, "show", false, "show the browser window instead of running headless")
	fs.DurationVar(&o.Timeout, "timeout", 0, "bound for the whole run, e.g. 2m (0: none)")
	fs.Var(cliflag.Joined{S: &o.Remote}, "browser", "attach to a running browser's DevTools endpoint (ws://, http:// or wss://...) instead of launching one; repeatable")
	fs.StringVar(&o.Bin, "browser-bin", "", "Chromium binary (default: $ROD_BROWSER, else chromium on PATH)")
	fs.StringVar(&o.Heal, "heal", "", heal.ModeUsage)
	o.AccountWait = lease.DefaultWait
	fs.DurationVar(&o.AccountWait, "account-wait", lease.DefaultWait, "how long to wait for an account another run holds, and then for its profile (0: fail at once)")
	o.ProfileWait = profiles.DefaultClaimWait
	fs.DurationVar(&o.ProfileWait, "profile-wait", profiles.DefaultClaimWait, "how long to wait for a profile another rpa process holds (a server's idle browser is handed over; 0: fail at once)")
	o.Runs.Register(fs, false)
}

// waitingFor is "waiting for account A" (or "accounts A, B"), for a run
// cancelled while it waited for their leases.
func waitingFor(accounts []string) string {
	if len(accounts) == 1 {
		return "waiting for account " + accounts[0]
	}
	return "waiting for accounts " + strings.Join(accounts, ", ")
}
