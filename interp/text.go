package interp

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/lang"
)

// This file holds the text forms of a run for people: the progress lines
// of its events and the outcome of its result (`rpa run`, `rpa demo`).

// Progress prints one line per action: on a terminal a live line that is
// rewritten when the action ends, elsewhere the finished line only. Log
// lines are printed as they come. Everything it gets is already masked.
type Progress struct {
	W     io.Writer
	Live  bool // rewrite the current line (W is a terminal)
	Quiet bool // print nothing
	NoLog bool // leave out the run-log lines
	open  bool // a started line is on screen without its newline
}

const targetWidth = 44

func (p *Progress) line(e Event) string {
	n := fmt.Sprint(e.Index)
	if e.Total > 0 {
		n = fmt.Sprintf("%d/%d", e.Index, e.Total)
	}
	target := strings.Join(strings.Fields(e.Target), " ")
	if r := []rune(target); len(r) > targetWidth {
		target = string(r[:targetWidth-1]) + "…"
	}
	return fmt.Sprintf("%7s  %-9s %-*s", n, e.Action, targetWidth, target)
}

// Event prints e; pass it as Options.Events.
func (p *Progress) Event(e Event) {
	if p.Quiet {
		return
	}
	switch e.Kind {
	case EventStarted:
		if p.Live {
			p.clear()
			fmt.Fprintf(p.W, "%s  …", p.line(e))
			p.open = true
		}
	case EventFinished:
		p.clear()
		s := fmt.Sprintf("%s %6d ms  %s", p.line(e), e.DurationMs, e.Status)
		if e.Status != StatusOK && e.Summary != "" {
			s += ": " + e.Summary
		}
		fmt.Fprintln(p.W, s)
	case EventLog:
		if p.NoLog {
			return
		}
		p.clear()
		fmt.Fprintf(p.W, "         log: %s\n", e.Summary)
	}
}

func (p *Progress) clear() {
	if p.open {
		fmt.Fprint(p.W, "\r\033[K")
		p.open = false
	}
}

// Flush ends a live line left open (call it after Run returns).
func (p *Progress) Flush() {
	if p.open {
		fmt.Fprintln(p.W)
		p.open = false
	}
}

// PrintOutcome writes the human form of a result: the outputs as indented
// JSON on stdout, a one-line summary (and the error) on stderr.
func PrintOutcome(stdout, stderr io.Writer, f *lang.Flow, res *Result) {
	if res.Outputs != nil {
		b, err := json.MarshalIndent(res.Outputs, "", "  ")
		if err == nil {
			fmt.Fprintf(stdout, "%s\n", b)
		}
	}
	fmt.Fprintln(stderr, SummaryLine(f, res))
	if res.Error != nil {
		e := res.Error
		file := e.File
		if file == "" {
			file = f.Path
		}
		where := file
		if e.Line > 0 {
			where = fmt.Sprintf("%s:%d", file, e.Line)
			if e.Col > 0 {
				where += fmt.Sprintf(":%d", e.Col)
			}
		}
		act := "" // the action in parentheses, unless the message starts with it
		if e.Action != "" && !strings.HasPrefix(e.Message, e.Action+":") && !strings.HasPrefix(e.Message, e.Action+" ") {
			act = " (" + e.Action + ")"
		}
		fmt.Fprintf(stderr, "%s: %s%s: %s\n", where, e.Kind, act, e.Message)
	}
}

// SummaryLine is "ok  NAME: 12 actions (12 ok) in 845 ms" or the FAILED
// form.
func SummaryLine(f *lang.Flow, res *Result) string {
	state := "ok"
	switch {
	case res.Error != nil && res.Error.Kind == core.KindCancelled:
		state = "CANCELLED"
	case !res.Success:
		state = "FAILED"
	}
	counts := []string{fmt.Sprintf("%d ok", res.CompletedActions)}
	if res.FailedActions > 0 {
		counts = append(counts, fmt.Sprintf("%d failed or skipped", res.FailedActions))
	}
	sort.Strings(counts[1:])
	return fmt.Sprintf("%s  %s: %d actions (%s) in %d ms", state, f.File.Name, res.TotalActions,
		strings.Join(counts, ", "), res.DurationMs)
}
