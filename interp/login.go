package interp

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/stdlib"
)

// Sessions that stay signed in (LANGUAGE.md, "Accounts and sign-in"). A
// flow with `defaults login: "FLOW"` names its sign-in flow. After each
// page action of that flow (not of the sign-in flow itself), the run
// looks at where the tab is: when the action left it on a sign-in page
// (core.IsLoginURL), or failed while `logged_in: SELECTOR` matches nothing,
// the session has expired or was never there: the run calls the sign-in
// flow (its params taken by name from the flow's names in scope, as a
// `call` with them) and tries the action once more. A run signs in at most
// MaxSignIns times.
//
// A session may also end after an action's own look: a click whose fetch
// is refused (401) and whose page then goes to the sign-in page by script,
// while the next step already waits. When the step that finds the tab
// signed out only reads the page (an action with a result: text, table
// ...), the session ended because of what was done before it, so once
// signed in the run does again what the flow did to the page since its
// last `open` (the trail: select, fill, click ...; the sign-in flow leaves
// the tab where the flow signs in to) and then the read: the click is
// retried, not only the read after it. A step that changes the page and
// finds the tab signed out gets the same: the trail done again, then the
// step (the sign-in flow left the tab on a page where a select before it
// no longer holds).

// MaxSignIns bounds the sign-ins of one run (a sign-in flow that does not
// sign in must not loop).
const MaxSignIns = 3

// signInLook bounds the look at the page after an action (URL, logged_in).
const signInLook = 3 * time.Second

// maxTrail bounds the trail; a longer one is not done again (only the
// step that found the tab signed out is tried once more).
const maxTrail = 32

// trailStep is one action of the trail and the scope it ran in.
type trailStep struct {
	s  *ast.ActionStmt
	sc *Scope
}

// noteTrail adds action s to fr's trail once it ran signed in: an `open`
// starts a new trail (it is not part of it), a read is not part of it.
func noteTrail(fr *frame, s *ast.ActionStmt, spec *actions.Action, sc *Scope) {
	switch {
	case spec.Name == "open":
		fr.trail = fr.trail[:0]
	case spec.Result != actions.ResultNone:
	case len(fr.trail) <= maxTrail:
		fr.trail = append(fr.trail, trailStep{s, sc}) // one past the bound: too long
	}
}

// actionSignedIn runs the action statement s, signing in and trying it once
// more when it ended on a sign-in page (see above).
func (r *runner) actionSignedIn(fr *frame, s *ast.ActionStmt, sc *Scope) (any, error) {
	v, err := r.action(fr, s, sc)
	login, loggedIn := "", ""
	if fr.flow != nil {
		login, loggedIn = fr.flow.Login()
	}
	if login == "" || r.signingIn || fr.signedInAt == s {
		return v, err
	}
	spec, _, ok := stdlib.Lookup(s.Action)
	if !ok || spec.Class != actions.ClassPage || r.ctx.Err() != nil {
		return v, err
	}
	why := r.signedOut(err, loggedIn)
	if why == "" {
		if err == nil {
			noteTrail(fr, s, spec, sc)
		}
		return v, err
	}
	if r.signIns >= MaxSignIns {
		if err != nil {
			return v, err
		}
		return v, errAt(s, core.KindNavigation, s.Action, nil,
			"%s: %s, and the run signed in %d times already (defaults login: %q)", s.Action, why, MaxSignIns, login)
	}
	r.signIns++
	r.logLine(fmt.Sprintf("line %d: %s: signing in with %s", s.Range.Start.Line, why, login))
	if serr := r.signIn(fr, login, sc); serr != nil {
		return v, errAt(s, core.KindNavigation, s.Action, serr, "%s: %s; signing in with %s failed: %s", s.Action, why, login, r.mask.String(serr.Error()))
	}
	fr.signedInAt = s // this step signs in once
	defer func() { fr.signedInAt = nil }()
	if spec.Name != "open" && len(fr.trail) > 0 && len(fr.trail) <= maxTrail {
		// The sign-in left the tab on a page of its own: what the flow did to the page since
		// its last open is done again before the step (for a read, what was done before it
		// also ended the session).
		first, last := fr.trail[0].s, fr.trail[len(fr.trail)-1].s
		if spec.Result != actions.ResultNone {
			r.logLine(fmt.Sprintf("line %d: signed in again; doing lines %d-%d again (the session ended after line %d: %s), then %s",
				s.Range.Start.Line, first.Range.Start.Line, last.Range.Start.Line, last.Range.Start.Line, last.Action, s.Action))
		} else {
			r.logLine(fmt.Sprintf("line %d: signed in again; doing lines %d-%d again, then %s once more",
				s.Range.Start.Line, first.Range.Start.Line, last.Range.Start.Line, s.Action))
		}
		for _, t := range fr.trail {
			if _, terr := r.action(fr, t.s, t.sc); terr != nil {
				return nil, terr
			}
		}
	} else {
		r.logLine(fmt.Sprintf("line %d: signed in again; trying %s once more", s.Range.Start.Line, s.Action))
	}
	v, err = r.action(fr, s, sc)
	if err == nil {
		noteTrail(fr, s, spec, sc) // a retried open starts the trail afresh
	}
	return v, err
}

// signedOut says why the tab looks signed out after an action that ended
// with err ("" when it does not): the action failed on a page that is a
// sign-in page by its content (drivers.PageSignIn), the tab is on a
// sign-in page by its URL, or the action failed and logged_in matches
// nothing.
func (r *runner) signedOut(err error, loggedIn string) string {
	failed := err != nil
	if st := drivers.StateOf(err); st != nil && st.Kind == drivers.PageSignIn {
		return st.Text
	}
	p := r.CurrentPage()
	if p == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(r.ctx, signInLook)
	defer cancel()
	if u, err := p.URL(ctx); err == nil && core.IsLoginURL(u) {
		path := u
		if pu, err := url.Parse(u); err == nil {
			path = pu.Path
		}
		return fmt.Sprintf("the page is %s, a sign-in page", path)
	}
	if failed && loggedIn != "" {
		if f := r.lookFrame(); f != nil {
			if ok, err := f.Exists(ctx, loggedIn); err == nil && !ok {
				return fmt.Sprintf("the page shows no %s (logged_in)", loggedIn)
			}
		}
	}
	return ""
}

// signIn calls the sign-in flow with the names in scope its params name.
func (r *runner) signIn(fr *frame, login string, sc *Scope) error {
	if r.opts.Flows == nil {
		return fmt.Errorf("no other flows are available here")
	}
	lf, ok := r.opts.Flows(login)
	if !ok || lf == nil || lf.File == nil {
		return fmt.Errorf("no flow named %q in the folder", login)
	}
	args := map[string]any{}
	for _, p := range lf.File.Params {
		if v, ok := sc.Lookup(p.Name); ok {
			args[p.Name] = v
		}
	}
	r.signingIn = true
	defer func() { r.signingIn = false }()
	_, err := r.CallFlow(r.ctx, login, args)
	return err
}
