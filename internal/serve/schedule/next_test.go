package schedule

import (
	"strings"
	"testing"
	"time"
)

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// TestNextFire: the next due times of cron specs across month ends, a
// leap day, the two DST changes of America/New_York, and in Asia/Shanghai
// (no DST, UTC+8), each given as local wall-clock times in its zone.
func TestNextFire(t *testing.T) {
	for _, c := range []struct {
		name, cron, tz, from string
		want                 []string // local RFC 3339 times in the zone
	}{
		{"31st skips short months", "0 0 31 * *", "UTC", "2026-01-31T12:00:00Z",
			[]string{"2026-03-31T00:00:00Z", "2026-05-31T00:00:00Z", "2026-07-31T00:00:00Z", "2026-08-31T00:00:00Z"}},
		{"month end to month start", "0 9 1 * *", "Asia/Shanghai", "2026-01-31T23:00:00Z",
			[]string{"2026-02-01T09:00:00+08:00", "2026-03-01T09:00:00+08:00", "2026-04-01T09:00:00+08:00"}},
		{"30th in February", "15 6 30 * *", "UTC", "2028-01-30T07:00:00Z",
			[]string{"2028-03-30T06:15:00Z", "2028-04-30T06:15:00Z"}},
		{"leap day", "0 8 29 2 *", "Asia/Shanghai", "2026-01-01T00:00:00Z",
			[]string{"2028-02-29T08:00:00+08:00", "2032-02-29T08:00:00+08:00"}},
		{"leap day from the day before", "0 8 29 2 *", "UTC", "2028-02-28T08:00:00Z",
			[]string{"2028-02-29T08:00:00Z", "2032-02-29T08:00:00Z"}},
		{"weekdays at 08:00 in Shanghai from a Friday evening", "0 8 * * 1-5", "Asia/Shanghai", "2026-03-06T12:00:00Z",
			[]string{"2026-03-09T08:00:00+08:00", "2026-03-10T08:00:00+08:00", "2026-03-11T08:00:00+08:00"}},
		{"Shanghai midnight is UTC 16:00 the day before", "0 0 * * *", "Asia/Shanghai", "2026-12-31T15:00:00Z",
			[]string{"2027-01-01T00:00:00+08:00", "2027-01-02T00:00:00+08:00"}},
		{"New York 08:00 keeps its wall clock across spring forward", "0 8 * * *", "America/New_York", "2026-03-07T00:00:00Z",
			[]string{"2026-03-07T08:00:00-05:00", "2026-03-08T08:00:00-04:00", "2026-03-09T08:00:00-04:00"}},
		{"02:30 does not exist on spring-forward day: skipped", "30 2 * * *", "America/New_York", "2026-03-07T12:00:00Z",
			[]string{"2026-03-09T02:30:00-04:00", "2026-03-10T02:30:00-04:00"}},
		{"01:30 happens twice on fall-back day: fires once", "30 1 * * *", "America/New_York", "2026-10-31T12:00:00Z",
			[]string{"2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00", "2026-11-03T01:30:00-05:00"}},
		{"hourly fires in both 01:00 hours of fall-back day", "0 * * * *", "America/New_York", "2026-11-01T04:30:00Z",
			[]string{"2026-11-01T01:00:00-04:00", "2026-11-01T01:00:00-05:00", "2026-11-01T02:00:00-05:00"}},
		{"descriptor", "@monthly", "UTC", "2026-02-15T00:00:00Z",
			[]string{"2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := ParseCron(c.cron, c.tz)
			if err != nil {
				t.Fatal(err)
			}
			tm := mustTime(t, c.from)
			var got []string
			for range c.want {
				tm = w.Next(tm)
				got = append(got, tm.In(w.Location()).Format(time.RFC3339))
				if tm.Location() != time.UTC {
					t.Fatalf("Next is not UTC: %v", tm)
				}
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("next times\n got  %s\n want %s", strings.Join(got, " "), strings.Join(c.want, " "))
			}
		})
	}
}

func TestEvery(t *testing.T) {
	anchor := mustTime(t, "2026-03-01T10:00:07Z")
	w := EveryFrom(15*time.Minute, anchor)
	for _, c := range []struct{ from, want string }{
		{"2026-03-01T09:00:00Z", "2026-03-01T10:00:07Z"},
		{"2026-03-01T10:00:07Z", "2026-03-01T10:15:07Z"},
		{"2026-03-01T10:15:06Z", "2026-03-01T10:15:07Z"},
		{"2026-03-08T00:00:00Z", "2026-03-08T00:00:07Z"},
	} {
		if got := w.Next(mustTime(t, c.from)).Format(time.RFC3339); got != c.want {
			t.Errorf("Next(%s) = %s, want %s", c.from, got, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ cron, tz, want string }{
		{"0 8 * *", "", `--cron "0 8 * *": expected exactly 5 fields`},
		{"61 8 * * *", "", `--cron "61 8 * * *": end of range (61) above maximum (59)`},
		{"0 8 30 2 *", "UTC", "never due"},
		{"0 8 * * *", "Mars/Olympus", `--tz "Mars/Olympus": unknown time zone`},
		{"CRON_TZ=UTC 0 8 * * *", "", "give the zone with --tz"},
		{"@every 5m", "", "use --every"},
	} {
		_, err := ParseCron(c.cron, c.tz)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseCron(%q, %q) = %v, want %q", c.cron, c.tz, err, c.want)
		}
	}
}

// TestDue: after a gap, policy skip notes the missed times and runs none;
// policy once makes up with one run unless one is on time now.
func TestDue(t *testing.T) {
	w, _ := ParseCron("0 * * * *", "UTC")
	at := func(s string) time.Time { return mustTime(t, s) }
	kinds := func(p Plan) string {
		var s []string
		for _, f := range p.Fires {
			s = append(s, f.Kind+"@"+f.Due.Format("15:04"))
		}
		return strings.Join(s, " ")
	}
	for _, c := range []struct {
		name, missed, now string
		want, next        string
	}{
		{"on time", MissedSkip, "2026-03-02T08:00:10Z", "cron@08:00", "09:00"},
		{"just within grace", MissedSkip, "2026-03-02T08:01:00Z", "cron@08:00", "09:00"},
		{"late: skip", MissedSkip, "2026-03-02T08:05:00Z", "missed@08:00", "09:00"},
		{"late: once", MissedOnce, "2026-03-02T08:05:00Z", "catchup@08:00 missed@08:00", "09:00"},
		{"gap of three, none on time: skip", MissedSkip, "2026-03-02T10:30:00Z", "missed@10:00", "11:00"},
		{"gap of three, none on time: once", MissedOnce, "2026-03-02T10:30:00Z", "catchup@10:00 missed@10:00", "11:00"},
		{"gap, the last on time: skip", MissedSkip, "2026-03-02T10:00:30Z", "cron@10:00 missed@09:00", "11:00"},
		{"gap, the last on time: once runs only that", MissedOnce, "2026-03-02T10:00:30Z", "cron@10:00 missed@09:00", "11:00"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &Def{Missed: c.missed, Grace: Duration(time.Minute)}
			p := Due(w, d, at("2026-03-02T08:00:00Z"), at(c.now))
			if got := kinds(p); got != c.want || p.Next.Format("15:04") != c.next {
				t.Errorf("got %s next %s, want %s next %s", got, p.Next.Format("15:04"), c.want, c.next)
			}
		})
	}
	// A scheduler held up a few seconds: the due times within the grace
	// window are one run, and none is missed.
	e := EveryFrom(2*time.Second, at("2026-03-02T08:00:00Z"))
	held := Due(e, &Def{Missed: MissedSkip, Grace: Duration(time.Minute)}, at("2026-03-02T08:00:02Z"), at("2026-03-02T08:00:07Z"))
	if len(held.Fires) != 1 || held.Fires[0].Kind != "cron" || held.Fires[0].Due.Format("15:04:05") != "08:00:06" || held.Next.Format("15:04:05") != "08:00:08" {
		t.Errorf("held up: %+v", held)
	}
	d := &Def{Missed: MissedSkip, Grace: Duration(time.Minute)}
	p := Due(w, d, at("2026-03-02T08:00:00Z"), at("2026-03-02T10:30:00Z"))
	if e := p.Fires[0].Error; !strings.Contains(e, "missed 3 due times") || !strings.Contains(e, "policy skip") {
		t.Errorf("missed note: %q", e)
	}
}
