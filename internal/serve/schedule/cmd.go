package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rpa-dev/rpa/internal/cliflag"
	"github.com/rpa-dev/rpa/internal/host/execpolicy"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/host/vault"
	"github.com/rpa-dev/rpa/internal/runs"
)

// The subcommands' usage lines (-h and a bad flag print their own).
const (
	scheduleAddUsage = `rpa schedule add NAME FLOW (--cron "0 8 * * 1-5" [--tz Asia/Shanghai] | --every 15m) [--arg k=v ...] [--secret-env NAME=ENV_VAR ...] ` +
		`[--account NAME] [--profile ID] [--retries 3 --backoff 1m] [--timeout 10m] [--max-concurrent [flow=|site=|account=]N ...] ` +
		`[--missed skip|once] [--grace 1m] [--notify URL] [--json]`
	scheduleListUsage   = "rpa schedule list [--json]"
	scheduleShowUsage   = "rpa schedule show NAME [--json] [--fires N]"
	schedulePauseUsage  = "rpa schedule pause NAME [--json]"
	scheduleResumeUsage = "rpa schedule resume NAME [--json]"
	scheduleRmUsage     = "rpa schedule rm NAME [--json]"
	scheduleRunUsage    = "rpa schedule run-now NAME [--json]"
	scheduleDaemonUsage = "rpa schedule daemon [--max-running N] [--browser ws://...] [--browser-bin PATH] [--show] [--allow-exec [--exec-allow GLOB]...]"
)

// Usage is the usage of `rpa schedule`, every subcommand.
const Usage = scheduleAddUsage + "\n       " + scheduleListUsage + "\n       " + scheduleShowUsage + "\n       " +
	schedulePauseUsage + " | " + scheduleResumeUsage + " | " + scheduleRmUsage + "\n       " + scheduleRunUsage + "\n       " +
	scheduleDaemonUsage

// Summary is the one-line summary of `rpa schedule`.
const Summary = "run flows on a schedule (cron or interval, retries, limits, failure notices); kept in $RPA_HOME/runs, fired by rpa ui, serve, connect or schedule daemon"

// Cmd is `rpa schedule SUB`: each subcommand's flags, its work and what it
// prints (cmd/rpa only wires it). It writes only to Stdout and Stderr.
type Cmd struct {
	Home     string // rpa's folder ($RPA_HOME): the run store, where schedules live
	FlowsDir string // where a FLOW named by its name is found (the served folder)
	// Ask asks for the vault passphrase when `add` checks --account and
	// neither the keyring nor RPA_VAULT_PASSPHRASE gives the key (nil:
	// nobody to ask; the account is then checked when the schedule fires).
	Ask    vault.Asker
	Stdout io.Writer
	Stderr io.Writer
}

// The exit codes of the command line (internal/cli).
const (
	exitOK        = 0
	exitFailed    = 1
	exitUsage     = 2
	exitCancelled = 130
)

// Run runs `rpa schedule ARGS...` and returns the exit code: 0 done, 1
// failed, 2 usage or bad input, 130 cancelled.
func (c *Cmd) Run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprintf(c.Stderr, "rpa schedule: which subcommand? add, list, show, pause, resume, rm, run-now or daemon\nusage: %s\n", Usage)
		return exitUsage
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "add":
		return c.add(ctx, rest)
	case "list", "ls":
		return c.list(rest)
	case "show":
		return c.show(rest)
	case "pause", "resume", "rm":
		return c.change(sub, rest)
	case "run-now":
		return c.runNow(ctx, rest)
	case "daemon":
		return c.daemon(ctx, rest)
	}
	fmt.Fprintf(c.Stderr, "rpa schedule: unknown subcommand %q (add, list, show, pause, resume, rm, run-now, daemon)\n", sub)
	return exitUsage
}

func (c *Cmd) flags(sub, usage, summary string) *flag.FlagSet {
	return cliflag.SubFlags("schedule "+sub, usage, summary, c.Stderr)
}

// fail prints "rpa schedule SUB: err" and returns code.
func (c *Cmd) fail(code int, sub string, err error) int {
	fmt.Fprintf(c.Stderr, "rpa schedule %s: %v\n", sub, err)
	return code
}

// json writes v to Stdout as indented JSON, HTML characters as they are.
func (c *Cmd) json(v any) error {
	enc := json.NewEncoder(c.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// open opens the run store, where schedules live.
func (c *Cmd) open(sub string) (*runs.Store, int) {
	st, err := runs.OpenHome(c.Home, 0, 0)
	if err != nil {
		return nil, c.fail(exitFailed, sub, err)
	}
	return st, exitOK
}

// add is `rpa schedule add NAME FLOW ...`: every problem of the
// timing, the flow, its arguments, its account and the webhook's URL is
// found here (exit 2); a webhook host that does not answer is a note.
func (c *Cmd) add(ctx context.Context, args []string) int {
	fs := c.flags("add", scheduleAddUsage, "add a schedule: run FLOW (a file, or a published flow's name) at the times given")
	var d Def
	kv := cliflag.KV{}
	var every, backoff, timeout, grace time.Duration
	fs.StringVar(&d.Cron, "cron", "", `a cron expression: minute hour day-of-month month day-of-week ("0 8 * * 1-5"), or @daily, @hourly, ...`)
	fs.StringVar(&d.TZ, "tz", "", "the time zone of --cron, an IANA name such as Asia/Shanghai (default: this machine's)")
	fs.DurationVar(&every, "every", 0, "run at this fixed interval instead of --cron, counted from now (15m, 1h)")
	fs.Var(kv, "arg", "a flow argument NAME=VALUE, converted to the param's type at each run (repeatable; no secrets)")
	senv := cliflag.KV{}
	fs.Var(senv, "secret-env", "a secret param NAME=ENV_VAR: its value is read from that environment variable of the process that fires the run (repeatable)")
	fs.StringVar(&d.Account, "account", "", "the account the runs use (the per-account limit's key)")
	fs.StringVar(&d.Profile, "profile", "", "browser profile ID (default: the flow's \"defaults profile:\", else a temporary one)")
	fs.IntVar(&d.Retries, "retries", 0, "try a failed run this many more times")
	fs.DurationVar(&backoff, "backoff", DefaultBackoff, "wait before the first retry; each next one waits twice as long (at most 1h)")
	fs.DurationVar(&timeout, "timeout", 0, "bound each run, e.g. 10m (0: none)")
	fs.Func("max-concurrent", "most scheduled runs at once: N or flow=N (this flow), site=N (the host of its first open), account=N (its account, else profile); repeatable", func(s string) error {
		return ParseLimit(s, &d.Limits)
	})
	fs.StringVar(&d.Missed, "missed", MissedSkip, "a due time nobody fired (machine asleep, no rpa up): skip, or once (one run makes up for the missed ones)")
	fs.DurationVar(&grace, "grace", DefaultGrace, "how late a due time may still fire as on time")
	fs.StringVar(&d.Notify, "notify", "", "POST a JSON failure notice to this http(s) URL when a run fails after its retries")
	flows := fs.String("flows", "", "find FLOW by name in this folder (default $RPA_HOME/flows)")
	asJSON := fs.Bool("json", false, "print the schedule as JSON")
	pos, done, code := cliflag.ParseArgs(fs, args)
	if done {
		return code
	}
	if len(pos) != 2 {
		fmt.Fprintf(c.Stderr, "rpa schedule add: want NAME and FLOW, got %d argument(s)\nusage: %s\n", len(pos), scheduleAddUsage)
		return exitUsage
	}
	d.Name, d.Every, d.Backoff, d.Timeout, d.Grace = pos[0], Duration(every), Duration(backoff), Duration(timeout), Duration(grace)
	if len(kv) > 0 {
		d.Args = kv
	}
	if len(senv) > 0 {
		d.SecretEnv = senv
	}
	dir := *flows
	if dir == "" {
		dir = c.FlowsDir
	}
	now := time.Now()
	if err := Prepare(&d, pos[1], dir, now); err != nil {
		return c.fail(exitUsage, "add", err)
	}
	switch checked, why, err := CheckAccount(&d, vault.Default(c.Home, c.Ask)); {
	case errors.Is(err, vault.ErrWrongKey) || errors.Is(err, vault.ErrDamaged):
		return c.fail(exitFailed, "add", err) // the vault cannot be opened (wrong key, damaged)
	case err != nil:
		return c.fail(exitUsage, "add", err)
	case !checked:
		fmt.Fprintf(c.Stderr, "note: --account %s is not checked against the vault here (%v); it is when %s fires\n", d.Account, why, d.Name)
	}
	for p, env := range d.SecretEnv {
		if _, ok := os.LookupEnv(env); !ok {
			fmt.Fprintf(c.Stderr, "note: %s is not set here; the process that fires %s must have it, or its runs fail (param %s)\n", env, d.Name, p)
		}
	}
	if d.Notify != "" {
		// CheckNotifyURL refused a bad URL in Prepare; a host that does not
		// answer now may later, or from the process that fires it.
		if err := ProbeNotifyURL(ctx, d.Notify, 5*time.Second); err != nil {
			fmt.Fprintf(c.Stderr, "note: %v; the failure notices of %s go there when they are due\n", err, d.Name)
		}
	}
	st, code := c.open("add")
	if st == nil {
		return code
	}
	defer st.Close()
	if _, err := Add(st, &d, now); err != nil {
		code := exitFailed
		if errors.Is(err, runs.ErrScheduleExists) {
			code = exitUsage
		}
		return c.fail(code, "add", err)
	}
	det, err := Show(st, d.Name, now, 0)
	if err != nil {
		return c.fail(exitFailed, "add", err)
	}
	if det.FiredBy == "" {
		fmt.Fprintln(c.Stderr, "note: "+NobodyFires)
	}
	if *asJSON {
		return c.printed("add", c.json(det.View))
	}
	fmt.Fprintf(c.Stdout, "added schedule %s: %s %s, next %s\n", d.Name, d.FlowName, det.When, det.NextLocal)
	return exitOK
}

// printed turns a print error into exit 1.
func (c *Cmd) printed(sub string, err error) int {
	if err != nil {
		return c.fail(exitFailed, sub, err)
	}
	return exitOK
}

// list is `rpa schedule list [--json]`.
func (c *Cmd) list(args []string) int {
	fs := c.flags("list", scheduleListUsage, "list the schedules: when, next time (local), state, last outcome, and which process fires them")
	asJSON := fs.Bool("json", false, `print {"schedules": [...], "firedBy": "..."} as JSON`)
	if done, code := cliflag.ParseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(c.Stderr, "rpa schedule list: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	st, code := c.open("list")
	if st == nil {
		return code
	}
	defer st.Close()
	b, err := Load(st, time.Now())
	switch {
	case err != nil:
	case *asJSON:
		err = c.json(b)
	case len(b.Schedules) == 0:
		fmt.Fprintln(c.Stderr, "no schedules yet (rpa schedule add NAME FLOW --cron ...)")
	default:
		err = WriteList(c.Stdout, b)
	}
	return c.printed("list", err)
}

// one parses `NAME [flags]` of sub.
func (c *Cmd) one(sub string, fs *flag.FlagSet, args []string) (string, bool, int) {
	pos, done, code := cliflag.ParseArgs(fs, args)
	if done {
		return "", true, code
	}
	if len(pos) != 1 {
		fmt.Fprintf(c.Stderr, "rpa schedule %s: which schedule? give one NAME (see rpa schedule list)\n", sub)
		return "", true, exitUsage
	}
	return pos[0], false, exitOK
}

// notFound is the exit code of err: 2 for an unknown schedule, else 1.
func notFound(err error) int {
	if errors.Is(err, runs.ErrNoSchedule) {
		return exitUsage
	}
	return exitFailed
}

// show is `rpa schedule show NAME`.
func (c *Cmd) show(args []string) int {
	fs := c.flags("show", scheduleShowUsage, "show a schedule: its settings, the fires waiting or running now (and why they wait), and its recent fires with their runs")
	asJSON := fs.Bool("json", false, "print the schedule and its fires as JSON")
	n := fs.Int("fires", 20, "show this many recent fires")
	name, done, code := c.one("show", fs, args)
	if done {
		return code
	}
	st, code := c.open("show")
	if st == nil {
		return code
	}
	defer st.Close()
	d, err := Show(st, name, time.Now(), *n)
	if err != nil {
		return c.fail(notFound(err), "show", err)
	}
	if *asJSON {
		return c.printed("show", c.json(d))
	}
	return c.printed("show", WriteDetail(c.Stdout, d))
}

// change is `rpa schedule pause|resume|rm NAME`.
func (c *Cmd) change(sub string, args []string) int {
	doc := map[string][2]string{
		"pause":  {schedulePauseUsage, "pause a schedule: it does not fire until resumed"},
		"resume": {scheduleResumeUsage, "resume a paused schedule from its next due time (missed times are not made up)"},
		"rm":     {scheduleRmUsage, "remove a schedule and its queue (a run in progress finishes; its runs stay in the history)"},
	}[sub]
	usage, summary := doc[0], doc[1]
	fs := c.flags(sub, usage, summary)
	asJSON := fs.Bool("json", false, "print the outcome as JSON")
	name, done, code := c.one(sub, fs, args)
	if done {
		return code
	}
	st, code := c.open(sub)
	if st == nil {
		return code
	}
	defer st.Close()
	now := time.Now()
	var err error
	switch sub {
	case "pause":
		err = Pause(st, name, now)
	case "resume":
		err = Resume(st, name, now)
	case "rm":
		err = st.RemoveSchedule(name)
	}
	if err != nil {
		return c.fail(notFound(err), sub, err)
	}
	if sub == "rm" {
		if *asJSON {
			return c.printed(sub, c.json(map[string]any{"name": name, "removed": true}))
		}
		fmt.Fprintf(c.Stdout, "removed schedule %s\n", name)
		return exitOK
	}
	d, err := Show(st, name, now, 0)
	if err != nil {
		return c.fail(exitFailed, sub, err)
	}
	if *asJSON {
		return c.printed(sub, c.json(d.View))
	}
	if d.Paused {
		fmt.Fprintf(c.Stdout, "paused schedule %s\n", name)
	} else {
		fmt.Fprintf(c.Stdout, "resumed schedule %s, next %s\n", name, d.NextLocal)
	}
	return exitOK
}

// runNow is `rpa schedule run-now NAME`: one run now, with the
// schedule's arguments, limits and retries. When a scheduler is up it
// runs the fire (this prints that and exits 0); else it runs here and
// this waits for its outcome (exit 0 ok, 1 failed).
func (c *Cmd) runNow(ctx context.Context, args []string) int {
	fs := c.flags("run-now", scheduleRunUsage, "run a schedule once now (its arguments, limits and retries): by the process that fires the schedules, else here")
	asJSON := fs.Bool("json", false, "print the fire (its state, attempts and runs) as JSON")
	var lr LocalRunner
	lr.Register(fs)
	name, done, code := c.one("run-now", fs, args)
	if done {
		return code
	}
	if err := lr.Check(); err != nil {
		return c.fail(exitUsage, "run-now", err)
	}
	st, err := lr.Runs.Open(c.Home)
	if err != nil {
		return c.fail(exitFailed, "run-now", err)
	}
	defer st.Close()
	now := time.Now()
	id, err := RunNow(st, name, now)
	if err != nil {
		return c.fail(notFound(err), "run-now", err)
	}
	if h, ok, _ := st.LeaseHolder(LeaseName, now); ok {
		f, err := st.Fire(id)
		if err != nil {
			return c.fail(exitFailed, "run-now", err)
		}
		if *asJSON {
			return c.printed("run-now", c.json(f))
		}
		fmt.Fprintf(c.Stdout, "queued a run of %s; %s runs it (rpa schedule show %s)\n", name, HolderText(h), name)
		return exitOK
	}
	fmt.Fprintf(c.Stderr, "rpa schedule run-now: no scheduler is up; running %s here\n", name)
	s := New(Config{Store: st, Runner: &lr, Program: "rpa schedule run-now",
		Log: func(m string) { fmt.Fprintf(c.Stderr, "rpa schedule: %s\n", m) }})
	f, err := s.RunOne(ctx, id)
	if err != nil {
		if ctx.Err() != nil {
			return c.fail(exitCancelled, "run-now", errors.New("cancelled; the run is queued again for the next scheduler"))
		}
		return c.fail(exitFailed, "run-now", err)
	}
	if *asJSON {
		if err := c.json(f); err != nil {
			return c.fail(exitFailed, "run-now", err)
		}
	} else {
		fmt.Fprintf(c.Stdout, "%s: %s after %d attempt(s), run %s\n", name, f.State, f.Attempt, f.RunID)
		if f.Error != "" && f.State != runs.FireOK {
			fmt.Fprintln(c.Stderr, f.Error)
		}
	}
	if f.State != runs.FireOK {
		return exitFailed
	}
	return exitOK
}

// daemon is `rpa schedule daemon`: fire the schedules until a
// signal, for a machine where no rpa ui, serve or connect runs (the
// systemd user unit rpa-service). Exit 0 when stopped.
func (c *Cmd) daemon(ctx context.Context, args []string) int {
	fs := c.flags("daemon", scheduleDaemonUsage, "fire the schedules of $RPA_HOME until stopped (one process fires them: the others stand by)")
	var lr LocalRunner
	lr.Register(fs)
	var ex execpolicy.Policy
	ex.Register(fs)
	maxRunning := fs.Int("max-running", DefaultMaxRunning, "most scheduled runs (browsers) at once in this process")
	if done, code := cliflag.ParseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(c.Stderr, "rpa schedule daemon: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	ex.Disabled = "rpa schedule daemon: command execution is disabled (run it with --allow-exec)"
	err := lr.Check()
	if err == nil {
		err = ex.CheckFlags()
	}
	if err == nil && *maxRunning < 1 {
		err = errors.New("--max-running must be at least 1")
	}
	if err != nil {
		return c.fail(exitUsage, "daemon", err)
	}
	lr.Exec = &ex
	lr.Warn = func(m string) { fmt.Fprintf(c.Stderr, "rpa schedule: %s\n", m) }
	st, err := lr.Runs.Open(c.Home)
	if err != nil {
		return c.fail(exitFailed, "daemon", err)
	}
	defer st.Close()
	// A killed process's temporary profiles (what its run typed may remain
	// in them) go at the start, as at rpa serve's, not only at the next run
	// that makes one (tester 3: a restarted daemon left them).
	if n := profiles.SweepTempIn(c.Home); n > 0 {
		fmt.Fprintf(c.Stderr, "rpa schedule daemon: removed %d temporary profile(s) left by a killed process\n", n)
	}
	s := New(Config{Store: st, Runner: &lr, Program: "rpa schedule daemon", MaxRunning: *maxRunning,
		Log: func(m string) { fmt.Fprintf(c.Stderr, "%s rpa schedule: %s\n", time.Now().Format(time.DateTime), m) }})
	fmt.Fprintf(c.Stderr, "rpa schedule daemon: firing the schedules of %s (pid %d)\n", st.Dir(), s.Holder().PID)
	if err := s.Run(ctx); err != nil {
		return c.fail(exitFailed, "daemon", err)
	}
	return exitOK
}
