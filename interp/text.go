package interp

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/msg"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/stdlib"
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
	for _, l := range HealLines(f, res) {
		fmt.Fprintln(stderr, l)
	}
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

func init() {
	msg.Register(map[string]msg.Text{
		"run.ok":        {En: "ok", Zh: "成功"},
		"run.failed":    {En: "FAILED", Zh: "失败"},
		"run.cancelled": {En: "CANCELLED", Zh: "已取消"},
		"run.okCount":   {En: "%d ok", Zh: "%d 个成功"},
		"run.badCount":  {En: "%d failed or skipped", Zh: "%d 个失败或跳过"},
		"run.summary":   {En: "%s  %s: %d actions (%s) in %d ms", Zh: "%s  %s：%d 个动作（%s），用时 %d ms"},
		"run.healFound": {En: "line %d: %s matched with %.2f; `rpa heal %s` proposes the patch", Zh: "第 %d 行：%s 的匹配度为 %.2f；`rpa heal %s` 会给出补丁"},
		"run.healed":    {En: "line %d: healed to %s (%.2f); `rpa heal %s` proposes keeping it", Zh: "第 %d 行：已自愈为 %s（%.2f）；`rpa heal %s` 会给出保留它的补丁"},
	})
}

// HealLines are the sentences `rpa run` prints for the steps healing looked
// at: a candidate it found but did not act on (heal suggest, or refused;
// the failure packet's), or the element it healed to, each with the `rpa
// heal` command that proposes the patch. In the language of msg.Env.
func HealLines(f *lang.Flow, res *Result) []string {
	lg := msg.Env()
	file := f.Path
	if file == "" {
		file = f.File.Name
	}
	var out []string
	seen := map[int]bool{}
	for _, st := range res.Results {
		h := st.Heal
		if h == nil || seen[st.Line] {
			continue
		}
		switch {
		case h.Status == stdlib.HealHealed:
			out = append(out, msg.T(lg, "run.healed", st.Line, h.Desc, h.Score, file))
		case len(h.Candidates) > 0 && len(h.Candidates[0].Selectors) > 0:
			c := h.Candidates[0]
			out = append(out, msg.T(lg, "run.healFound", st.Line, c.Desc, c.Score, file))
		default:
			continue
		}
		seen[st.Line] = true
	}
	return out
}

// SummaryLine is "ok  NAME: 12 actions (12 ok) in 845 ms" or the FAILED
// form, in the language of the process's person (msg.Env: LANG=zh_CN.UTF-8
// gives "成功  NAME：12 个动作（12 个成功），用时 845 ms").
func SummaryLine(f *lang.Flow, res *Result) string {
	lg := msg.Env()
	state := msg.T(lg, "run.ok")
	switch {
	case res.Error != nil && res.Error.Kind == core.KindCancelled:
		state = msg.T(lg, "run.cancelled")
	case !res.Success:
		state = msg.T(lg, "run.failed")
	}
	counts := msg.T(lg, "run.okCount", res.CompletedActions)
	if res.FailedActions > 0 {
		sep := ", "
		if lg == "zh" {
			sep = "，"
		}
		counts += sep + msg.T(lg, "run.badCount", res.FailedActions)
	}
	return msg.T(lg, "run.summary", state, f.File.Name, res.TotalActions, counts, res.DurationMs)
}
