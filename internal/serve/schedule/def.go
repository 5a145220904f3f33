package schedule

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"time"
	_ "time/tzdata" // zones from the Go time zone database on every system (Windows has none)

	"github.com/robfig/cron/v3"

	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/lang"
)

// Missed-run policies (Def.Missed).
const (
	MissedSkip = "skip" // due times nobody fired in time are noted, not run (the default)
	MissedOnce = "once" // after a gap, one run makes up for the missed times
)

// Defaults of a definition.
const (
	DefaultBackoff = time.Minute // the first retry's wait; each next one doubles
	DefaultGrace   = time.Minute // how late a due time may still fire as on time
	MaxBackoff     = time.Hour   // a retry waits at most this long
	MinEvery       = time.Second // the shortest --every
)

// Def is one schedule's definition: what runs, when, with what, under
// which limits and whom it tells of a failure. It is kept in the run
// store as JSON (runs.ScheduleRecord.Def). Durations are Go duration
// strings in JSON ("15m").
type Def struct {
	Name string `json:"name"` // [a-z0-9][a-z0-9_.-]*, at most 64
	// Flow is the flow file's absolute path; FlowName its flow's name.
	Flow     string `json:"flow"`
	FlowName string `json:"flowName"`
	// Cron is a five-field cron expression (robfig/cron/v3's standard
	// parser: minute hour day-of-month month day-of-week, or a descriptor
	// such as @daily) in zone TZ (an IANA name; "" is the machine's local
	// zone). Every is a fixed interval instead, counted from Anchor.
	Cron   string    `json:"cron,omitempty"`
	TZ     string    `json:"tz,omitempty"`
	Every  Duration  `json:"every,omitempty"`
	Anchor time.Time `json:"anchor,omitzero"`
	// Args are the flow's arguments as `--arg` strings (never a secret:
	// a schedule keeps none); converted by param type at each run.
	Args map[string]string `json:"args,omitempty"`
	// SecretEnv names, per secret param, the environment variable its
	// value is read from when the run starts, in the process that fires
	// it (the variable's name is stored, never its value).
	SecretEnv map[string]string `json:"secretEnv,omitempty"`
	// Account names the account the runs use (the per-account limit's
	// key, and the value of the flow's credential params the schedule's
	// arguments leave out); Profile the browser profile ("" is the flow's `defaults
	// profile:`, else a temporary one).
	Account string `json:"account,omitempty"`
	Profile string `json:"profile,omitempty"`
	// Retries is how many times a failed run is tried again, the first
	// after Backoff, each next one after twice the wait before (at most
	// MaxBackoff).
	Retries int      `json:"retries"`
	Backoff Duration `json:"backoff"`
	// Timeout bounds each run (0: none).
	Timeout Duration `json:"timeout,omitempty"`
	// Limits bound the scheduled runs running at once (runs.Limits).
	Limits runs.Limits `json:"limits"`
	// Missed is MissedSkip or MissedOnce; Grace how late a due time may
	// fire and still count as on time.
	Missed string   `json:"missed"`
	Grace  Duration `json:"grace"`
	// Notify is a URL that gets a JSON POST when a run fails after its
	// retries ("" for none); a desktop notification is shown as well.
	Notify string `json:"notify,omitempty"`
}

// Duration is a time.Duration that is a Go duration string in JSON.
type Duration time.Duration

// MarshalJSON writes "15m0s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string (or a number of nanoseconds).
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n int64
		if err2 := json.Unmarshal(b, &n); err2 != nil {
			return err
		}
		*d = Duration(n)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		// time's error quotes the text whole
		return fmt.Errorf("want a duration such as \"90s\" or \"1h30m\", got %s", lang.Echo(s))
	}
	*d = Duration(v)
	return nil
}

// D is d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,63}$`)

// ShowName is a schedule's name for an error: as it is when it could name
// a schedule (CheckName), else quoted, or named by its length when longer
// than lang.MaxEcho (lang.Echo): a caller's text is not sent back whole.
func ShowName(name string) string {
	if CheckName(name) == nil {
		return name
	}
	return lang.Echo(name)
}

// CheckName reports why name cannot name a schedule, or nil.
func CheckName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("schedule name %s: use lower-case letters, digits, '_', '.' and '-' (at most 64, starting with a letter or digit)", lang.Echo(name))
	}
	return nil
}

var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// When is a parsed timing: the cron spec in its zone, or a fixed
// interval from an anchor.
type When struct {
	spec   cron.Schedule
	loc    *time.Location
	every  time.Duration
	anchor time.Time
}

// ParseCron parses a five-field cron expression (or @daily, @hourly, ...)
// in the zone called tz ("" or "Local": the machine's zone). A bad
// expression is an error naming --cron and why; an unknown zone one
// naming --tz.
func ParseCron(expr, tz string) (*When, error) {
	loc, err := LoadZone(tz)
	if err != nil {
		return nil, err
	}
	e := strings.TrimSpace(expr)
	if strings.HasPrefix(e, "TZ=") || strings.HasPrefix(e, "CRON_TZ=") {
		return nil, fmt.Errorf("--cron %s: give the zone with --tz, not inside the expression", lang.Echo(expr))
	}
	if strings.HasPrefix(e, "@every") {
		return nil, fmt.Errorf("--cron %s: use --every D for a fixed interval", lang.Echo(expr))
	}
	spec, err := cronParser.Parse(e)
	if err != nil {
		why := err.Error() // quotes the fields it could not read
		if len(expr) > lang.MaxEcho {
			why = "not a cron expression"
		}
		return nil, fmt.Errorf("--cron %s: %s (want five fields: minute hour day-of-month month day-of-week, e.g. \"0 8 * * 1-5\", or @daily, @hourly, @weekly, @monthly)", lang.Echo(expr), why)
	}
	if ss, ok := spec.(*cron.SpecSchedule); ok {
		ss.Location = loc
	}
	w := &When{spec: spec, loc: loc}
	// An expression that never matches (30 February) has no next time.
	if w.Next(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)).IsZero() {
		return nil, fmt.Errorf("--cron %s: never due (no such day)", lang.Echo(expr))
	}
	return w, nil
}

// LoadZone loads the IANA zone tz from the Go time zone database (built
// into rpa: time/tzdata); "" and "Local" are the machine's zone. An
// unknown name is an error naming --tz.
func LoadZone(tz string) (*time.Location, error) {
	if tz == "" || tz == "Local" {
		return time.Local, nil
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, fmt.Errorf("--tz %s: unknown time zone (want an IANA name such as Asia/Shanghai, America/New_York or UTC)", lang.Echo(tz))
	}
	return loc, nil
}

// EveryFrom is a fixed interval d counted from anchor.
func EveryFrom(d time.Duration, anchor time.Time) *When {
	return &When{every: d, anchor: anchor}
}

// Next is the first due time strictly after t (UTC), zero when there is
// none (a cron that matches no day in five years).
//
// A cron time that does not exist on a day (02:30 when the clocks spring
// forward) does not fire that day (robfig/cron's rule); one that occurs
// twice (01:30 when they fall back) fires once, at its first occurrence,
// unless the spec fires every hour (both 01:00s are then real hours).
func (w *When) Next(t time.Time) time.Time {
	if w.every > 0 {
		if t.Before(w.anchor) {
			return w.anchor.UTC()
		}
		n := t.Sub(w.anchor)/w.every + 1
		return w.anchor.Add(n * w.every).UTC()
	}
	n := w.spec.Next(t.In(w.loc))
	if !n.IsZero() && w.repeated(n) {
		n = w.spec.Next(n)
	}
	if n.IsZero() {
		return n
	}
	return n.UTC()
}

// allHours is SpecSchedule.Hour when every hour matches (bit 63 marks a
// star).
const allHours = 1<<24 - 1

// repeated reports whether n is the second occurrence of its wall-clock
// time (the hour the clocks fall back repeats) for a spec that names its
// hours: such a time fires at its first occurrence only, as cron does.
// Every-hour specs fire in both hours (each is a real hour).
func (w *When) repeated(n time.Time) bool {
	ss, ok := w.spec.(*cron.SpecSchedule)
	if !ok || ss.Hour&allHours == allHours {
		return false
	}
	p := n.Add(-time.Hour).In(w.loc)
	q := n.In(w.loc)
	return p.Hour() == q.Hour() && p.YearDay() == q.YearDay()
}

// Location is the zone a cron is read in (nil for an interval).
func (w *When) Location() *time.Location { return w.loc }

// When parses d's timing.
func (d *Def) When() (*When, error) {
	if d.Every > 0 {
		return EveryFrom(d.Every.D(), d.Anchor), nil
	}
	return ParseCron(d.Cron, d.TZ)
}

// Check reports the first problem of d's fields (not its flow: see
// Prepare), naming the flag.
func (d *Def) Check() error {
	if err := CheckName(d.Name); err != nil {
		return err
	}
	if err := d.checkWhen(); err != nil {
		return err
	}
	return d.checkOptions()
}

// checkWhen reports a problem of the timing: --cron, --tz, --every.
func (d *Def) checkWhen() error {
	switch {
	case d.Cron == "" && d.Every == 0:
		return errors.New("when? give --cron \"MIN HOUR DOM MON DOW\" [--tz ZONE] or --every D")
	case d.Cron != "" && d.Every != 0:
		return errors.New("give --cron or --every, not both")
	case d.Every != 0 && d.TZ != "":
		return errors.New("--tz applies to --cron; --every counts from when the schedule was added")
	case d.Every != 0 && d.Every.D() < MinEvery:
		return fmt.Errorf("--every %s: want at least %s", d.Every.D(), MinEvery)
	}
	_, err := d.When()
	return err
}

// checkOptions reports a problem of the other options.
func (d *Def) checkOptions() error {
	switch {
	case d.Retries < 0 || d.Retries > 100:
		return fmt.Errorf("--retries %d: want 0 to 100", d.Retries)
	case d.Backoff < 0:
		return errors.New("--backoff must not be negative")
	case d.Timeout < 0:
		return errors.New("--timeout must not be negative")
	case d.Grace < 0:
		return errors.New("--grace must not be negative")
	case d.Limits.Flow < 0 || d.Limits.Site < 0 || d.Limits.Account < 0:
		return errors.New("--max-concurrent must not be negative")
	}
	switch d.Missed {
	case MissedSkip, MissedOnce:
	default:
		return fmt.Errorf("--missed %s: want skip (the default: missed times are not run) or once (one run makes up for them)", lang.Echo(d.Missed))
	}
	if d.Notify != "" {
		if err := CheckNotifyURL(d.Notify); err != nil {
			return err
		}
	}
	return nil
}

// CheckNotifyURL reports why u cannot take failure notices: it must be an
// absolute http or https URL with a host, without user info (a password in
// a URL would be kept in the store and shown by `rpa schedule show`).
func CheckNotifyURL(u string) error {
	p, err := url.Parse(u)
	switch {
	case err != nil:
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL
		}
		return fmt.Errorf("--notify: not a URL: %v", err)
	case p.Scheme != "http" && p.Scheme != "https":
		return fmt.Errorf("--notify %s: want an http:// or https:// URL", showURL(p))
	case p.Host == "" || p.Hostname() == "":
		return fmt.Errorf("--notify %s: the URL has no host", showURL(p))
	case p.User != nil:
		return fmt.Errorf("--notify: put no user or password in the URL (it is stored and shown); use a URL with a token path instead")
	}
	if port := p.Port(); port != "" {
		if _, err := net.LookupPort("tcp", port); err != nil {
			return fmt.Errorf("--notify %s: bad port %s", showURL(p), lang.Echo(port))
		}
	}
	return nil
}

// showURL is a webhook URL for an error: its scheme and host (a path or
// query may hold a token), the host by its length when long.
func showURL(p *url.URL) string {
	if len(p.Host) > lang.MaxEcho || len(p.Scheme) > lang.MaxEcho {
		return "(a URL with a host too long to show)"
	}
	return p.Scheme + "://" + p.Host + "/…"
}

// ParseLimit reads one --max-concurrent value: N (the flow's limit) or
// flow=N, site=N, account=N, into l.
func ParseLimit(s string, l *runs.Limits) error {
	what, n, ok := strings.Cut(s, "=")
	if !ok {
		what, n = "flow", s
	}
	var v int
	if _, err := fmt.Sscanf(strings.TrimSpace(n), "%d", &v); err != nil || v < 0 || fmt.Sprint(v) != strings.TrimSpace(n) {
		return fmt.Errorf("--max-concurrent %s: want N, flow=N, site=N or account=N (N a whole number, 0 for no limit)", lang.Echo(s))
	}
	switch strings.TrimSpace(what) {
	case "flow":
		l.Flow = v
	case "site":
		l.Site = v
	case "account", "profile":
		l.Account = v
	default:
		return fmt.Errorf("--max-concurrent %s: %s is not flow, site or account", lang.Echo(s), lang.Echo(what))
	}
	return nil
}
