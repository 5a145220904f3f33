package schedule

import (
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/internal/columns"
	"github.com/rpa-dev/rpa/internal/runs"
)

// View is one schedule as `rpa schedule list --json`, the console and
// the MCP resource rpa://schedules show it. Times are RFC 3339 in UTC;
// NextLocal is the next due time in this machine's zone.
type View struct {
	Name     string `json:"name"`
	Flow     string `json:"flow"`     // the flow's name
	FlowPath string `json:"flowPath"` // its file
	// When says it for people: "0 8 * * 1-5 (Asia/Shanghai)", "every 15m0s".
	When      string            `json:"when"`
	Cron      string            `json:"cron,omitempty"`
	TZ        string            `json:"tz,omitempty"`
	Every     string            `json:"every,omitempty"`
	Paused    bool              `json:"paused"`
	Next      *time.Time        `json:"next,omitempty"` // absent while paused
	NextLocal string            `json:"nextLocal,omitempty"`
	Args      map[string]string `json:"args,omitempty"`
	// SecretEnv names the environment variable of each secret param.
	SecretEnv map[string]string `json:"secretEnv,omitempty"`
	Account   string            `json:"account,omitempty"`
	Profile   string            `json:"profile,omitempty"`
	Retries   int               `json:"retries"`
	Backoff   string            `json:"backoff"`
	Timeout   string            `json:"timeout,omitempty"`
	Limits    runs.Limits       `json:"limits"`
	Missed    string            `json:"missed"`
	Grace     string            `json:"grace"`
	// Notify is the webhook (WithoutSecrets: its scheme and host only).
	Notify string `json:"notify,omitempty"`
	// Last is the latest fire that ended (ok, failed, dropped, missed);
	// Active the fires queued or running now, oldest first.
	Last   *runs.Fire   `json:"last,omitempty"`
	Active []*runs.Fire `json:"active,omitempty"`
}

// Board is every schedule with who fires them: `rpa schedule list`.
type Board struct {
	Schedules []*View `json:"schedules"`
	// FiredBy is the process holding the lease ("rpa ui (pid 42)"), ""
	// when none does: no rpa process is up to fire them.
	FiredBy string `json:"firedBy,omitempty"`
}

// Load builds the board of st at now.
func Load(st *runs.Store, now time.Time) (*Board, error) {
	recs, err := st.Schedules()
	if err != nil {
		return nil, err
	}
	active, err := st.ActiveFires()
	if err != nil {
		return nil, err
	}
	b := &Board{Schedules: []*View{}}
	if h, ok, err := st.LeaseHolder(LeaseName, now); err == nil && ok {
		b.FiredBy = HolderText(h)
	}
	for _, r := range recs {
		v, err := viewOf(st, r)
		if err != nil {
			return nil, err
		}
		for _, f := range active {
			if f.Schedule == r.Name {
				v.Active = append(v.Active, f)
			}
		}
		b.Schedules = append(b.Schedules, v)
	}
	return b, nil
}

// viewOf is r as a View, with its last ended fire.
func viewOf(st *runs.Store, r *runs.ScheduleRecord) (*View, error) {
	d, err := DecodeDef(r.Def)
	if err != nil {
		return nil, fmt.Errorf("schedule %s: %v", r.Name, err)
	}
	v := &View{Name: r.Name, Flow: d.FlowName, FlowPath: d.Flow, Cron: d.Cron, TZ: d.TZ, Paused: r.Paused, Args: d.Args, SecretEnv: d.SecretEnv,
		Account: d.Account, Profile: d.Profile, Retries: d.Retries, Backoff: FormatDuration(d.Backoff.D()), Limits: d.Limits,
		Missed: d.Missed, Grace: FormatDuration(d.Grace.D()), Notify: d.Notify}
	if d.Every > 0 {
		v.Every = FormatDuration(d.Every.D())
		v.When = "every " + v.Every
	} else {
		tz := d.TZ
		if tz == "" {
			tz = "local time"
		}
		v.When = d.Cron + " (" + tz + ")"
	}
	if d.Timeout > 0 {
		v.Timeout = FormatDuration(d.Timeout.D())
	}
	if !r.Paused && !r.Next.IsZero() {
		n := r.Next
		v.Next, v.NextLocal = &n, n.Local().Format("2006-01-02 15:04 MST")
	}
	fs, err := st.Fires(r.Name, 20)
	if err != nil {
		return nil, err
	}
	for _, f := range fs {
		if f.State != runs.FireQueued && f.State != runs.FireRunning {
			v.Last = f
			break
		}
	}
	return v, nil
}

// FormatDuration is d as people write it: "15m", "1h", "1h30m", "90s"
// (time.Duration's form without its zero parts).
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// HostOnly is a webhook URL as agents see it: its scheme and host and "/…"
// (a path or query may hold a token); "" stays "".
func HostOnly(u string) string {
	if u == "" {
		return ""
	}
	if p, err := url.Parse(u); err == nil {
		return p.Scheme + "://" + p.Host + "/…"
	}
	return "(set)"
}

// WithoutSecrets is b for agents (rpa://schedules): webhook URLs cut to
// their scheme and host (a path or query may hold a token).
func (b *Board) WithoutSecrets() *Board {
	out := &Board{FiredBy: b.FiredBy, Schedules: make([]*View, len(b.Schedules))}
	for i, v := range b.Schedules {
		c := *v
		c.Notify = HostOnly(c.Notify)
		out.Schedules[i] = &c
	}
	return out
}

// Detail is one schedule with its recent fires: `rpa schedule show`.
type Detail struct {
	*View
	FiredBy string       `json:"firedBy,omitempty"`
	Fires   []*runs.Fire `json:"fires"` // newest first
}

// Show builds schedule name's detail (runs.ErrNoSchedule, wrapped, when
// there is none).
func Show(st *runs.Store, name string, now time.Time, fires int) (*Detail, error) {
	r, err := st.Schedule(name)
	if err != nil {
		return nil, err
	}
	v, err := viewOf(st, r)
	if err != nil {
		return nil, err
	}
	d := &Detail{View: v}
	if d.Fires, err = st.Fires(name, fires); err != nil {
		return nil, err
	}
	// The active fires as list has them (ActiveFires: an orphan marked,
	// a stale reason to wait refreshed), in the recent ones too.
	active, err := st.ActiveFires()
	if err != nil {
		return nil, err
	}
	byID := map[int64]*runs.Fire{}
	for _, f := range active {
		if f.Schedule == name {
			v.Active = append(v.Active, f)
			byID[f.ID] = f
		}
	}
	for i, f := range d.Fires {
		if a, ok := byID[f.ID]; ok {
			d.Fires[i] = a
		}
	}
	if h, ok, err := st.LeaseHolder(LeaseName, now); err == nil && ok {
		d.FiredBy = HolderText(h)
	}
	return d, nil
}

// NobodyFires is what list and show say when no process holds the lease.
const NobodyFires = "no rpa process is up to fire schedules: run `rpa schedule daemon` (or keep rpa ui, serve or connect running)"

// WriteList prints b as a table: name, when, next (local), state, last
// outcome; then who fires them.
func WriteList(w io.Writer, b *Board) error {
	tw := columns.NewWriter(w, 0, 2)
	fmt.Fprintln(tw, "NAME\tFLOW\tWHEN\tNEXT\tSTATE\tLAST")
	for _, v := range b.Schedules {
		next := v.NextLocal
		if v.Paused {
			next = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", v.Name, v.Flow, v.When, next, state(v), lastText(v.Last))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if b.FiredBy != "" {
		_, err := fmt.Fprintf(w, "fired by %s\n", b.FiredBy)
		return err
	}
	_, err := fmt.Fprintln(w, NobodyFires)
	return err
}

// OrphanText says what becomes of a running fire whose process ended
// (runs.Fire.Orphan).
const OrphanText = "the process running it ended; the next rpa process to fire schedules ends it and retries it if it has retries left"

// state is "paused", "running", "interrupted", "N waiting" (joined with ", ") or "active".
func state(v *View) string {
	if v.Paused {
		return "paused"
	}
	running, orphans, queued := 0, 0, 0
	for _, f := range v.Active {
		switch {
		case f.State == runs.FireRunning && f.Orphan:
			orphans++
		case f.State == runs.FireRunning:
			running++
		default:
			queued++
		}
	}
	var s []string
	if running > 0 {
		s = append(s, "running")
	}
	if orphans > 0 {
		s = append(s, "interrupted")
	}
	if queued > 0 {
		s = append(s, fmt.Sprintf("%d waiting", queued))
	}
	if len(s) == 0 {
		return "active"
	}
	return strings.Join(s, ", ")
}

// lastText is "ok 2026-03-02 08:00" or "failed ...: why".
func lastText(f *runs.Fire) string {
	if f == nil {
		return "-"
	}
	at := f.Ended
	if at.IsZero() {
		at = f.Due
	}
	s := f.State + " " + at.Local().Format("01-02 15:04")
	if f.State != runs.FireOK && f.Error != "" {
		s += ": " + cut(f.Error, 60)
	}
	return s
}

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// WriteDetail prints d for people.
func WriteDetail(w io.Writer, d *Detail) error {
	var b strings.Builder
	p := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%-10s %s\n", k+":", v)
		}
	}
	p("schedule", d.Name)
	p("flow", d.Flow+"  ("+d.FlowPath+")")
	p("when", d.When)
	if d.Paused {
		p("next", "paused (rpa schedule resume "+d.Name+")")
	} else {
		p("next", d.NextLocal)
	}
	if len(d.Args) > 0 {
		keys := make([]string, 0, len(d.Args))
		for k := range d.Args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var kv []string
		for _, k := range keys {
			kv = append(kv, k+"="+d.Args[k])
		}
		p("args", strings.Join(kv, " "))
	}
	if len(d.SecretEnv) > 0 {
		keys := make([]string, 0, len(d.SecretEnv))
		for k := range d.SecretEnv {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var kv []string
		for _, k := range keys {
			kv = append(kv, k+" from $"+d.SecretEnv[k])
		}
		p("secrets", strings.Join(kv, ", "))
	}
	p("account", d.Account)
	p("profile", d.Profile)
	p("retries", fmt.Sprintf("%d, backoff %s doubling", d.Retries, d.Backoff))
	p("timeout", d.Timeout)
	var lim []string
	if d.Limits.Flow > 0 {
		lim = append(lim, fmt.Sprintf("flow=%d", d.Limits.Flow))
	}
	if d.Limits.Site > 0 {
		lim = append(lim, fmt.Sprintf("site=%d", d.Limits.Site))
	}
	if d.Limits.Account > 0 {
		lim = append(lim, fmt.Sprintf("account=%d", d.Limits.Account))
	}
	p("limits", strings.Join(lim, " "))
	p("missed", d.Missed+", grace "+d.Grace)
	p("notify", d.Notify)
	if d.FiredBy != "" {
		p("fired by", d.FiredBy)
	} else {
		p("fired by", NobodyFires)
	}
	if len(d.Active) > 0 {
		b.WriteString("\nnow:\n")
		for _, f := range d.Active {
			fmt.Fprintf(&b, "  %s\n", fireLine(f))
		}
	}
	if len(d.Fires) > 0 {
		b.WriteString("\nrecent:\n")
		for _, f := range d.Fires {
			if f.State == runs.FireQueued || f.State == runs.FireRunning {
				continue
			}
			fmt.Fprintf(&b, "  %s\n", fireLine(f))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// fireLine is one fire for people: "08:00  on time  failed after 3
// attempts (runs A B C): why" or "queued, waiting: why".
func fireLine(f *runs.Fire) string {
	state := f.State
	if f.State == runs.FireRunning && f.Orphan {
		state = "interrupted" // not running: its process is gone (docs/schedules.md)
	}
	s := FormatDue(f.Due) + "  " + KindText(f.Kind) + "  " + state
	switch f.State {
	case runs.FireQueued:
		if f.Waiting != "" {
			s += ", waiting: " + f.Waiting
		}
	case runs.FireRunning:
		s += fmt.Sprintf(" (attempt %d of %d)", f.Attempt, f.MaxAttempts)
		if f.Orphan {
			s += ": " + OrphanText
		}
	}
	if f.Attempt > 1 && f.State != runs.FireRunning {
		s += fmt.Sprintf(" after %d attempts", f.Attempt)
	}
	if len(f.Runs) > 0 {
		s += "  runs " + strings.Join(f.Runs, " ")
	}
	if f.Error != "" && f.State != runs.FireOK {
		s += "\n      " + f.Error
	}
	if f.Notify != "" && f.Notify != "sent" {
		s += "\n      notice: " + f.Notify
	}
	return s
}
