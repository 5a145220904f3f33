package runs

import (
	"flag"
	"fmt"
)

// RegisterPrune declares the bounds of `rpa runs prune` on fs: --keep
// (alias --runs-keep, the name rpa run, serve and connect take) and
// --max-mb (alias --runs-max-mb), writing into s. Call CheckPrune after
// parsing.
func (s *Settings) RegisterPrune(fs *flag.FlagSet) {
	keepHelp := fmt.Sprintf("keep this many runs, at least 1 (without the flag: $RPA_RUNS_KEEP, else %d)", DefaultKeep)
	mbHelp := fmt.Sprintf("keep the run folders under this many MB, above 0 (without the flag: $RPA_RUNS_MAX_MB, else %d)", DefaultMaxBytes>>20)
	fs.IntVar(&s.Keep, "keep", 0, keepHelp)
	fs.IntVar(&s.Keep, "runs-keep", 0, "the same as --keep")
	fs.Float64Var(&s.MaxMB, "max-mb", 0, mbHelp)
	fs.Float64Var(&s.MaxMB, "runs-max-mb", 0, "the same as --max-mb")
}

// CheckPrune reports a bound given explicitly as 0 or less (0 in s means
// "the default", so a flag saying 0 must not silently mean that), naming
// the flag as it was written.
func (s *Settings) CheckPrune(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		switch {
		case err != nil:
		case (f.Name == "keep" || f.Name == "runs-keep") && s.Keep < 1:
			err = fmt.Errorf("--%s %s: want at least 1 run (to use the default, leave the flag out)", f.Name, f.Value)
		case (f.Name == "max-mb" || f.Name == "runs-max-mb") && s.MaxMB <= 0:
			err = fmt.Errorf("--%s %s: want a positive number of MB (to use the default, leave the flag out)", f.Name, f.Value)
		}
	})
	return err
}
