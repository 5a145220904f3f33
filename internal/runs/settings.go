package runs

import (
	"errors"
	"flag"
	"fmt"
	"time"
)

// DefaultPacketBudget is the failure packet's default budget in tokens
// (runs/record).
const DefaultPacketBudget = 2000

// Settings are what a process records of its runs: the --evidence,
// --runs-keep, --runs-max-mb and --packet-budget flags of rpa run, serve
// and connect.
type Settings struct {
	// Evidence is EvidenceDefault, EvidenceFull, or "" for the flow's
	// `defaults evidence:` (else EvidenceDefault).
	Evidence string
	// Keep and MaxMB override the retention of OptionsFromEnv where above
	// 0 (OpenHome).
	Keep  int
	MaxMB float64
	// PacketBudget is the failure packet's budget in tokens (0:
	// DefaultPacketBudget).
	PacketBudget int
}

// Check reports a bad evidence mode or a negative number, naming the flag.
func (s Settings) Check() error {
	switch s.Evidence {
	case "", EvidenceDefault, EvidenceFull:
	default:
		return fmt.Errorf("--evidence %q: want default or full", s.Evidence)
	}
	if s.Keep < 0 || s.MaxMB < 0 || s.PacketBudget < 0 {
		return errors.New("--runs-keep, --runs-max-mb and --packet-budget must not be negative")
	}
	return nil
}

// Open opens the store under home with the settings' retention (OpenHome).
func (s Settings) Open(home string) (*Store, error) { return OpenHome(home, s.Keep, s.MaxMB) }

// Register declares the flags of s on fs: --evidence, --runs-keep,
// --runs-max-mb and, with packet (the serving commands), --packet-budget.
func (s *Settings) Register(fs *flag.FlagSet, packet bool) {
	fs.StringVar(&s.Evidence, "evidence", "", `what runs record: "default" (events, steps, a screenshot at a failure, report) or "full" (also a screenshot after every page action); default: the flow's "defaults evidence:", else default`)
	fs.IntVar(&s.Keep, "runs-keep", 0, fmt.Sprintf("keep this many runs in $RPA_HOME/runs (default $RPA_RUNS_KEEP, else %d)", DefaultKeep))
	fs.Float64Var(&s.MaxMB, "runs-max-mb", 0, fmt.Sprintf("keep the run folders under this many MB (default $RPA_RUNS_MAX_MB, else %d)", DefaultMaxBytes>>20))
	if packet {
		fs.IntVar(&s.PacketBudget, "packet-budget", 0, fmt.Sprintf("the failure packet's budget in tokens (default %d)", DefaultPacketBudget))
	}
}

// Register declares the flags of a runs listing on fs (`rpa runs`):
// --flow, --schedule, --failed, --since (ParseSince against the time of parsing) and
// --limit (default 50).
func (f *Filter) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Flow, "flow", "", "only runs of this flow")
	fs.StringVar(&f.Schedule, "schedule", "", "only runs this schedule started")
	fs.BoolVar(&f.Failed, "failed", false, "only failed, cancelled and interrupted runs")
	fs.Func("since", "only runs started in this past duration (24h, 30m) or since this date (2026-12-01)", func(s string) (err error) {
		f.Since, err = ParseSince(s, time.Now())
		return err
	})
	fs.IntVar(&f.Limit, "limit", 50, "at most this many runs")
}
