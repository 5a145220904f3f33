package interp

import (
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/stdlib"
)

// Evidence is what a host's run recorder (package runs/record) needs of an
// action besides the event's text: where it ran and what it looked for.
// The recorder takes screenshots of Page, asks Frame why Selectors failed
// (drivers.Inspector) and watches Page's console (drivers.ProblemWatcher).
// It must not act on the page.
type Evidence struct {
	// Page is the current tab when the event was sent (nil before the run
	// opened one).
	Page drivers.Page
	// Frame is the current document: Page's top document, or the iframe a
	// `frame` block entered (nil when no tab is open).
	Frame drivers.Frame
	// Selectors is the fallback list the action located, masked: the one
	// its Locate looked for (stdlib.Call.Located: `press on:` too), else
	// its selector argument; nil when it has none.
	Selectors []string
	// Checks are the checks the action's Locate waited for
	// (stdlib.Call.Checks: `click force:` only drivers.Attached); 0 when it
	// located nothing itself (wait, frame).
	Checks drivers.Checks
	// live is Selectors as run, not masked: in memory only (Live).
	live []string
	// Page actions are tried by the replay engine (ClassPage); others run
	// once.
	PageAction bool
}

// evidence builds the Evidence of action call c.
func (r *runner) evidence(c *stdlib.Call, spec *actions.Action) *Evidence {
	if r.opts.Events == nil {
		return nil
	}
	ev := &Evidence{Page: r.CurrentPage(), PageAction: spec.Class == actions.ClassPage}
	if f := r.lookFrame(); f != nil {
		ev.Frame = f
	}
	ev.Checks = c.Checks
	if c.Located != nil {
		for _, s := range c.Located {
			ev.Selectors = append(ev.Selectors, r.mask.String(s))
			ev.live = append(ev.live, s)
		}
	} else if len(spec.Params) > 0 && spec.Params[0].Kind == actions.KindSelector && len(c.Args) > 0 {
		switch x := c.Args[0].(type) {
		case string:
			ev.Selectors, ev.live = []string{r.mask.String(x)}, []string{x}
		case []any:
			for _, e := range x {
				if s, ok := e.(string); ok {
					ev.Selectors = append(ev.Selectors, r.mask.String(s))
					ev.live = append(ev.live, s)
				}
			}
		}
	}
	return ev
}

// Live is the action's selectors as the action ran them, NOT masked (a
// selector may hold a secret, `"#row-{{ password }}"`), in the order of
// Selectors: for re-checking them on the page after a failure (the
// failure packet, the failure screenshot's outline). Keep them in memory:
// mask whatever is shown or written (Selectors is the masked form). Nil
// when the action takes no selector.
func (e *Evidence) Live() []string {
	if e == nil {
		return nil
	}
	return e.live
}
