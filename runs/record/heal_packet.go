package record

import (
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/stdlib"
)

// failedHeal returns the heal verdict of the last step of res at line (the
// failing step), or nil. It is built from masked fingerprints (package
// heal masks every string before it reaches a step).
func failedHeal(res *interp.Result, line int) *stdlib.HealInfo {
	for i := len(res.Results) - 1; i >= 0; i-- {
		s := res.Results[i]
		if s.Line == line {
			return s.Heal
		}
	}
	return nil
}
