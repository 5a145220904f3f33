package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rpa-dev/rpa/internal/cli"
	"github.com/rpa-dev/rpa/internal/cliflag"
	"github.com/rpa-dev/rpa/internal/host/execpolicy"
	"github.com/rpa-dev/rpa/internal/host/home"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/flowserver"
	"github.com/rpa-dev/rpa/internal/serve/schedule"
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

func init() {
	register(command{
		name: "schedule",
		usage: scheduleAddUsage + "\n       " + scheduleListUsage + "\n       " + scheduleShowUsage + "\n       " +
			schedulePauseUsage + " | " + scheduleResumeUsage + " | " + scheduleRmUsage + "\n       " + scheduleRunUsage + "\n       " +
			scheduleDaemonUsage,
		summary: "run flows on a schedule (cron or interval, retries, limits, failure notices); kept in $RPA_HOME/runs, fired by rpa ui, serve, connect or schedule daemon",
		run:     withSignals(runSchedule),
	})
}

// runSchedule dispatches `rpa schedule SUB`.
func runSchedule(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "rpa schedule: which subcommand? add, list, show, pause, resume, rm, run-now or daemon\nusage: %s\n", commands.Commands["schedule"].Usage)
		return exitUsage
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "add":
		return scheduleAdd(ctx, rest, stdout, stderr)
	case "list", "ls":
		return scheduleList(rest, stdout, stderr)
	case "show":
		return scheduleShow(rest, stdout, stderr)
	case "pause", "resume", "rm":
		return scheduleChange(sub, rest, stdout, stderr)
	case "run-now":
		return scheduleRunNow(ctx, rest, stdout, stderr)
	case "daemon":
		return scheduleDaemon(ctx, rest, stderr)
	}
	fmt.Fprintf(stderr, "rpa schedule: unknown subcommand %q (add, list, show, pause, resume, rm, run-now, daemon)\n", sub)
	return exitUsage
}

func scheduleFlags(sub, usage, summary string, stderr io.Writer) *flag.FlagSet {
	return cli.SubFlags("schedule "+sub, usage, summary, stderr)
}

// openSchedules opens the run store, where schedules live.
func openSchedules(sub string, stderr io.Writer) (*runs.Store, int) {
	st, err := runs.OpenHome(home.Dir(), 0, 0)
	if err != nil {
		return nil, fail(stderr, exitFailed, "schedule "+sub, err)
	}
	return st, exitOK
}

// scheduleAdd is `rpa schedule add NAME FLOW ...`: every problem of the
// timing, the flow, its arguments and the webhook is found here (exit 2).
func scheduleAdd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := scheduleFlags("add", scheduleAddUsage, "add a schedule: run FLOW (a file, or a published flow's name) at the times given", stderr)
	var d schedule.Def
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
	fs.DurationVar(&backoff, "backoff", schedule.DefaultBackoff, "wait before the first retry; each next one waits twice as long (at most 1h)")
	fs.DurationVar(&timeout, "timeout", 0, "bound each run, e.g. 10m (0: none)")
	fs.Func("max-concurrent", "most scheduled runs at once: N or flow=N (this flow), site=N (the host of its first open), account=N (its account, else profile); repeatable", func(s string) error {
		return schedule.ParseLimit(s, &d.Limits)
	})
	fs.StringVar(&d.Missed, "missed", schedule.MissedSkip, "a due time nobody fired (machine asleep, no rpa up): skip, or once (one run makes up for the missed ones)")
	fs.DurationVar(&grace, "grace", schedule.DefaultGrace, "how late a due time may still fire as on time")
	fs.StringVar(&d.Notify, "notify", "", "POST a JSON failure notice to this http(s) URL when a run fails after its retries")
	flows := fs.String("flows", "", "find FLOW by name in this folder (default $RPA_HOME/flows)")
	asJSON := fs.Bool("json", false, "print the schedule as JSON")
	pos, done, code := parseArgs(fs, args)
	if done {
		return code
	}
	if len(pos) != 2 {
		fmt.Fprintf(stderr, "rpa schedule add: want NAME and FLOW, got %d argument(s)\nusage: %s\n", len(pos), scheduleAddUsage)
		return exitUsage
	}
	d.Name, d.Every, d.Backoff, d.Timeout, d.Grace = pos[0], schedule.Duration(every), schedule.Duration(backoff), schedule.Duration(timeout), schedule.Duration(grace)
	if len(kv) > 0 {
		d.Args = kv
	}
	if len(senv) > 0 {
		d.SecretEnv = senv
	}
	dir := *flows
	if dir == "" {
		dir = flowserver.DefaultFlowsDir()
	}
	now := time.Now()
	if err := schedule.Prepare(&d, pos[1], dir, now); err != nil {
		return fail(stderr, exitUsage, "schedule add", err)
	}
	for p, env := range d.SecretEnv {
		if _, ok := os.LookupEnv(env); !ok {
			fmt.Fprintf(stderr, "note: %s is not set here; the process that fires %s must have it, or its runs fail (param %s)\n", env, d.Name, p)
		}
	}
	if d.Notify != "" {
		if err := schedule.ProbeNotifyURL(ctx, d.Notify, 5*time.Second); err != nil {
			return fail(stderr, exitUsage, "schedule add", err)
		}
	}
	st, code := openSchedules("add", stderr)
	if st == nil {
		return code
	}
	defer st.Close()
	if _, err := schedule.Add(st, &d, now); err != nil {
		code := exitFailed
		if errors.Is(err, runs.ErrScheduleExists) {
			code = exitUsage
		}
		return fail(stderr, code, "schedule add", err)
	}
	det, err := schedule.Show(st, d.Name, now, 0)
	if err != nil {
		return fail(stderr, exitFailed, "schedule add", err)
	}
	if det.FiredBy == "" {
		fmt.Fprintln(stderr, "note: "+schedule.NobodyFires)
	}
	if *asJSON {
		return printed(stderr, "add", printJSON(stdout, det.View))
	}
	fmt.Fprintf(stdout, "added schedule %s: %s %s, next %s\n", d.Name, d.FlowName, det.When, det.NextLocal)
	return exitOK
}

// printed turns a print error into exit 1.
func printed(stderr io.Writer, sub string, err error) int {
	if err != nil {
		return fail(stderr, exitFailed, "schedule "+sub, err)
	}
	return exitOK
}

// scheduleList is `rpa schedule list [--json]`.
func scheduleList(args []string, stdout, stderr io.Writer) int {
	fs := scheduleFlags("list", scheduleListUsage, "list the schedules: when, next time (local), state, last outcome, and which process fires them", stderr)
	asJSON := fs.Bool("json", false, `print {"schedules": [...], "firedBy": "..."} as JSON`)
	if done, code := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rpa schedule list: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	st, code := openSchedules("list", stderr)
	if st == nil {
		return code
	}
	defer st.Close()
	b, err := schedule.Load(st, time.Now())
	switch {
	case err != nil:
	case *asJSON:
		err = printJSON(stdout, b)
	case len(b.Schedules) == 0:
		fmt.Fprintln(stderr, "no schedules yet (rpa schedule add NAME FLOW --cron ...)")
	default:
		err = schedule.WriteList(stdout, b)
	}
	return printed(stderr, "list", err)
}

// oneSchedule parses `NAME [flags]` of sub.
func oneSchedule(sub string, fs *flag.FlagSet, args []string, stderr io.Writer) (string, bool, int) {
	pos, done, code := parseArgs(fs, args)
	if done {
		return "", true, code
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "rpa schedule %s: which schedule? give one NAME (see rpa schedule list)\n", sub)
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

// scheduleShow is `rpa schedule show NAME`.
func scheduleShow(args []string, stdout, stderr io.Writer) int {
	fs := scheduleFlags("show", scheduleShowUsage, "show a schedule: its settings, the fires waiting or running now (and why they wait), and its recent fires with their runs", stderr)
	asJSON := fs.Bool("json", false, "print the schedule and its fires as JSON")
	n := fs.Int("fires", 20, "show this many recent fires")
	name, done, code := oneSchedule("show", fs, args, stderr)
	if done {
		return code
	}
	st, code := openSchedules("show", stderr)
	if st == nil {
		return code
	}
	defer st.Close()
	d, err := schedule.Show(st, name, time.Now(), *n)
	if err != nil {
		return fail(stderr, notFound(err), "schedule show", err)
	}
	if *asJSON {
		return printed(stderr, "show", printJSON(stdout, d))
	}
	return printed(stderr, "show", schedule.WriteDetail(stdout, d))
}

// scheduleChange is `rpa schedule pause|resume|rm NAME`.
func scheduleChange(sub string, args []string, stdout, stderr io.Writer) int {
	doc := map[string][2]string{
		"pause":  {schedulePauseUsage, "pause a schedule: it does not fire until resumed"},
		"resume": {scheduleResumeUsage, "resume a paused schedule from its next due time (missed times are not made up)"},
		"rm":     {scheduleRmUsage, "remove a schedule and its queue (a run in progress finishes; its runs stay in the history)"},
	}[sub]
	usage, summary := doc[0], doc[1]
	fs := scheduleFlags(sub, usage, summary, stderr)
	asJSON := fs.Bool("json", false, "print the outcome as JSON")
	name, done, code := oneSchedule(sub, fs, args, stderr)
	if done {
		return code
	}
	st, code := openSchedules(sub, stderr)
	if st == nil {
		return code
	}
	defer st.Close()
	now := time.Now()
	var err error
	switch sub {
	case "pause":
		err = schedule.Pause(st, name, now)
	case "resume":
		err = schedule.Resume(st, name, now)
	case "rm":
		err = st.RemoveSchedule(name)
	}
	if err != nil {
		return fail(stderr, notFound(err), "schedule "+sub, err)
	}
	if sub == "rm" {
		if *asJSON {
			return printed(stderr, sub, printJSON(stdout, map[string]any{"name": name, "removed": true}))
		}
		fmt.Fprintf(stdout, "removed schedule %s\n", name)
		return exitOK
	}
	d, err := schedule.Show(st, name, now, 0)
	if err != nil {
		return fail(stderr, exitFailed, "schedule "+sub, err)
	}
	if *asJSON {
		return printed(stderr, sub, printJSON(stdout, d.View))
	}
	if d.Paused {
		fmt.Fprintf(stdout, "paused schedule %s\n", name)
	} else {
		fmt.Fprintf(stdout, "resumed schedule %s, next %s\n", name, d.NextLocal)
	}
	return exitOK
}

// scheduleRunNow is `rpa schedule run-now NAME`: one run now, with the
// schedule's arguments, limits and retries. When a scheduler is up it
// runs the fire (this prints that and exits 0); else it runs here and
// this waits for its outcome (exit 0 ok, 1 failed).
func scheduleRunNow(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := scheduleFlags("run-now", scheduleRunUsage, "run a schedule once now (its arguments, limits and retries): by the process that fires the schedules, else here", stderr)
	asJSON := fs.Bool("json", false, "print the fire (its state, attempts and runs) as JSON")
	var lr schedule.LocalRunner
	lr.Register(fs)
	name, done, code := oneSchedule("run-now", fs, args, stderr)
	if done {
		return code
	}
	if err := lr.Check(); err != nil {
		return fail(stderr, exitUsage, "schedule run-now", err)
	}
	st, err := lr.Runs.Open(home.Dir())
	if err != nil {
		return fail(stderr, exitFailed, "schedule run-now", err)
	}
	defer st.Close()
	now := time.Now()
	id, err := schedule.RunNow(st, name, now)
	if err != nil {
		return fail(stderr, notFound(err), "schedule run-now", err)
	}
	if h, ok, _ := st.LeaseHolder(schedule.LeaseName, now); ok {
		f, err := st.Fire(id)
		if err != nil {
			return fail(stderr, exitFailed, "schedule run-now", err)
		}
		if *asJSON {
			return printed(stderr, "run-now", printJSON(stdout, f))
		}
		fmt.Fprintf(stdout, "queued a run of %s; %s runs it (rpa schedule show %s)\n", name, schedule.HolderText(h), name)
		return exitOK
	}
	fmt.Fprintf(stderr, "rpa schedule run-now: no scheduler is up; running %s here\n", name)
	s := schedule.New(schedule.Config{Store: st, Runner: &lr, Program: "rpa schedule run-now",
		Log: func(m string) { fmt.Fprintf(stderr, "rpa schedule: %s\n", m) }})
	f, err := s.RunOne(ctx, id)
	if err != nil {
		if ctx.Err() != nil {
			return fail(stderr, exitCancelled, "schedule run-now", errors.New("cancelled; the run is queued again for the next scheduler"))
		}
		return fail(stderr, exitFailed, "schedule run-now", err)
	}
	if *asJSON {
		if err := printJSON(stdout, f); err != nil {
			return fail(stderr, exitFailed, "schedule run-now", err)
		}
	} else {
		fmt.Fprintf(stdout, "%s: %s after %d attempt(s), run %s\n", name, f.State, f.Attempt, f.RunID)
		if f.Error != "" && f.State != runs.FireOK {
			fmt.Fprintln(stderr, f.Error)
		}
	}
	if f.State != runs.FireOK {
		return exitFailed
	}
	return exitOK
}

// scheduleDaemon is `rpa schedule daemon`: fire the schedules until a
// signal, for a machine where no rpa ui, serve or connect runs (the
// systemd user unit rpa-schedule.service). Exit 0 when stopped.
func scheduleDaemon(ctx context.Context, args []string, stderr io.Writer) int {
	fs := scheduleFlags("daemon", scheduleDaemonUsage, "fire the schedules of $RPA_HOME until stopped (one process fires them: the others stand by)", stderr)
	var lr schedule.LocalRunner
	lr.Register(fs)
	var ex execpolicy.Policy
	ex.Register(fs)
	maxRunning := fs.Int("max-running", schedule.DefaultMaxRunning, "most scheduled runs (browsers) at once in this process")
	if done, code := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rpa schedule daemon: unexpected argument %q\n", fs.Arg(0))
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
		return fail(stderr, exitUsage, "schedule daemon", err)
	}
	lr.Exec = &ex
	lr.Warn = func(m string) { fmt.Fprintf(stderr, "rpa schedule: %s\n", m) }
	st, err := lr.Runs.Open(home.Dir())
	if err != nil {
		return fail(stderr, exitFailed, "schedule daemon", err)
	}
	defer st.Close()
	s := schedule.New(schedule.Config{Store: st, Runner: &lr, Program: "rpa schedule daemon", MaxRunning: *maxRunning,
		Log: func(m string) { fmt.Fprintf(stderr, "%s rpa schedule: %s\n", time.Now().Format(time.DateTime), m) }})
	fmt.Fprintf(stderr, "rpa schedule daemon: firing the schedules of %s (pid %d)\n", st.Dir(), s.Holder().PID)
	if err := s.Run(ctx); err != nil {
		return fail(stderr, exitFailed, "schedule daemon", err)
	}
	return exitOK
}
