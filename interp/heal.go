package interp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rpa-dev/rpa/stdlib"
)

// healStep copies what healing did (package heal) into step and, when the
// step healed, says so in the run log (and so in events, the report and
// the result's log): "line 5: fill healed: textbox "Customer" (score
// 0.86), selectors now "#client", ...". The step's Selector is then the
// healed list's first selector (SelectorIndex stays unset: it is not an
// index of the flow's list).
func (r *runner) healStep(step *StepResult, c *stdlib.Call) {
	step.Heal = c.Heal
	if c.Heal == nil || c.Heal.Status != stdlib.HealHealed || len(c.Heal.Selectors) == 0 {
		return
	}
	step.Selector = r.mask.String(c.Heal.Selectors[0])
	q := make([]string, len(c.Heal.Selectors))
	for i, s := range c.Heal.Selectors {
		q[i] = strconv.Quote(s)
	}
	r.logLine(fmt.Sprintf("line %d: %s healed: %s (score %.2f), selectors now %s", step.Line, step.Action, c.Heal.Desc, c.Heal.Score, strings.Join(q, ", ")))
}
