package runs

// OpenHome opens the run store under home ($RPA_HOME/runs) with the
// retention of OptionsFromEnv, overridden by keep (runs) and maxMB
// (megabytes) where they are above 0: the --runs-keep and --runs-max-mb
// flags of the commands.
func OpenHome(home string, keep int, maxMB float64) (*Store, error) {
	o, err := OptionsFromEnv()
	if err != nil {
		return nil, err
	}
	if keep > 0 {
		o.Keep = keep
	}
	if maxMB > 0 {
		o.MaxBytes = int64(maxMB * (1 << 20))
	}
	return Open(home, o)
}
