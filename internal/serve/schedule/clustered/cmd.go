package clustered

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/internal/cliflag"
	"github.com/rpa-dev/rpa/internal/columns"
	"github.com/rpa-dev/rpa/internal/serve/schedule"
)

// CmdUsage is the usage of `rpa gateway schedule`.
const CmdUsage = `rpa gateway schedule add NAME TOOL [--device ID] (--cron "0 8 * * 1-5" [--tz ZONE] | --every 15m) [--arg k=v ...] [--arg-json k=JSON ...] [--grace 1m] [--missed skip|once] [--retries N --backoff D] [--notify URL]
       rpa gateway schedule list | show NAME | pause NAME | resume NAME | rm NAME
       (each: [--url URL] [--token T] [--json])`

// Cmd is `rpa gateway schedule SUB`: the cluster's schedules through a replica's /schedules
// (Handler), --url (default http://127.0.0.1:8790) with the agents' --token (default
// $RPA_GATEWAY_TOKEN). It returns the exit code: 0 done, 1 failed (the gateway unreachable or
// refusing), 2 usage or bad input (a schedule the gateway refuses as such).
func Cmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "rpa gateway schedule: which subcommand? add, list, show, pause, resume or rm\nusage: %s\n", CmdUsage)
		return 2
	}
	sub := args[0]
	fs := cliflag.SubFlags("gateway schedule "+sub, CmdUsage, "the schedules of a gateway cluster", stderr)
	url := fs.String("url", "http://127.0.0.1:8790", "a replica's base URL (its --listen)")
	token := fs.String("token", "", "the agents' bearer token (default $RPA_GATEWAY_TOKEN)")
	asJSON := fs.Bool("json", false, "print the gateway's JSON")
	var d Def
	var kv, kvJSON cliflag.List
	var every, grace, backoff time.Duration
	if sub == "add" {
		fs.StringVar(&d.Device, "device", "", "the desktop (its --device-id) that runs it; default any desktop offering TOOL")
		fs.StringVar(&d.Cron, "cron", "", `when: "MIN HOUR DOM MON DOW" (or @daily ...)`)
		fs.StringVar(&d.TZ, "tz", "", "the zone --cron is read in (IANA name; default the gateway's local zone)")
		fs.DurationVar(&every, "every", 0, "when: a fixed interval instead of --cron")
		fs.Var(&kv, "arg", "the tool's argument k=v, a string (repeatable)")
		fs.Var(&kvJSON, "arg-json", "the tool's argument k=JSON (a number, true, a list ...; repeatable)")
		fs.DurationVar(&grace, "grace", schedule.DefaultGrace, "how long after its due time a fire may still land (a desktop linking late)")
		fs.StringVar(&d.Missed, "missed", schedule.MissedSkip, "due times no replica saw in time: skip, or once (one run makes up for them)")
		fs.IntVar(&d.Retries, "retries", 0, "call the tool this many more times when its result is an error")
		fs.DurationVar(&backoff, "backoff", schedule.DefaultBackoff, "wait before the first retry; each next one waits twice as long (at most 1h)")
		fs.StringVar(&d.Notify, "notify", "", "POST a JSON failure notice to this http(s) URL when a fire fails after its retries or is missed")
	}
	pos, done, code := cliflag.ParseArgs(fs, args[1:])
	if done {
		return code
	}
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "rpa gateway schedule %s: %v\n", sub, err)
		return code
	}
	method, path, want := http.MethodGet, "/schedules", 1
	var body []byte
	switch sub {
	case "add":
		if len(pos) != 2 {
			return fail(2, errors.New("want NAME and TOOL"))
		}
		d.Name, d.Tool = pos[0], pos[1]
		d.Every, d.Grace, d.Backoff = schedule.Duration(every), schedule.Duration(grace), schedule.Duration(backoff)
		d.Args = map[string]json.RawMessage{}
		for _, a := range kv {
			k, v, ok := strings.Cut(a, "=")
			if !ok || k == "" {
				return fail(2, fmt.Errorf("--arg %q: want k=v", a))
			}
			d.Args[k], _ = json.Marshal(v)
		}
		for _, a := range kvJSON {
			k, v, ok := strings.Cut(a, "=")
			if !ok || k == "" || !json.Valid([]byte(v)) {
				return fail(2, fmt.Errorf("--arg-json %q: want k=JSON", a))
			}
			d.Args[k] = json.RawMessage(v)
		}
		method, want, body = http.MethodPost, 0, must(json.Marshal(d))
	case "list", "ls":
		want = 0
	case "show":
	case "pause", "resume":
		method = http.MethodPost
	case "rm":
		method = http.MethodDelete
	default:
		return fail(2, fmt.Errorf("unknown subcommand (add, list, show, pause, resume, rm)"))
	}
	if len(pos) != want && sub != "add" {
		return fail(2, fmt.Errorf("want %d argument(s), got %d", want, len(pos)))
	}
	if want == 1 {
		path += "/" + pos[0]
		if sub == "pause" || sub == "resume" {
			path += "/" + sub
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(*url, "/")+path, bytes.NewReader(body))
	if err != nil {
		return fail(2, err)
	}
	if t := cmp.Or(*token, os.Getenv("RPA_GATEWAY_TOKEN")); t != "" {
		req.Header.Set("Authorization", "Bearer "+t)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fail(1, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if resp.StatusCode >= 300 {
		var e struct{ Error string }
		if json.Unmarshal(out, &e) != nil || e.Error == "" {
			e.Error = fmt.Sprintf("%s answered %s (a wrong --token answers 401)", *url, resp.Status)
		}
		if resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusConflict || resp.StatusCode == http.StatusNotFound {
			return fail(2, errors.New(e.Error))
		}
		return fail(1, errors.New(e.Error))
	}
	if *asJSON || sub == "rm" {
		stdout.Write(out)
		return 0
	}
	var recs []*Record
	if sub == "list" || sub == "ls" {
		var l struct{ Schedules []*Record }
		err = json.Unmarshal(out, &l)
		recs = l.Schedules
	} else {
		var r Record
		err = json.Unmarshal(out, &r)
		recs = []*Record{&r}
	}
	if err != nil {
		return fail(1, fmt.Errorf("%s is not a gateway's answer: %v", *url, err))
	}
	writeRecords(stdout, recs)
	return 0
}

func must(b []byte, _ error) []byte { return b }

// writeRecords prints schedules as a table: NAME, TOOL, ON, WHEN, NEXT (local time), LAST.
func writeRecords(w io.Writer, rs []*Record) {
	tw := columns.NewWriter(w, 2, 2)
	fmt.Fprintln(tw, "NAME\tTOOL\tON\tWHEN\tNEXT\tLAST")
	for _, r := range rs {
		on := cmp.Or(r.Def.Device, "any desktop")
		when := "every " + r.Def.Every.D().String()
		if r.Def.Cron != "" {
			when = r.Def.Cron + " " + cmp.Or(r.Def.TZ, "(the gateway's zone)")
		}
		next := "-"
		switch {
		case r.Def.Paused:
			next = "paused"
		case !r.Next.IsZero():
			next = schedule.FormatDue(r.Next)
		}
		last := "-"
		if l := r.Last; l != nil {
			last = l.State + " " + schedule.FormatDue(l.Due)
			if l.Device != "" {
				last += " on " + l.Device
			}
			if l.Error != "" {
				last += ": " + l.Error
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Def.Name, r.Def.Tool, on, when, next, last)
	}
	tw.Flush()
}
