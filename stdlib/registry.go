// Package stdlib binds one implementation to every action of the flow
// language's action table (lang/actions.Table): navigation, pointer and
// keyboard input, reads, waits, tabs, dialogs, downloads, and the host hooks
// (ask, llm, exec) and call.
//
// Implementations see the browser only through the drivers interfaces and
// the runtime only through Env, which interp provides; interp's replay engine
// (retries, waits, timeouts, optional/skip, results, masking) wraps every
// call. An Impl runs one attempt of an action.
//
// Choices the spec leaves open, made here:
//   - screenshot without path: writes a new file in the OS temp folder
//     (rpa-screenshot-*.png) and returns its path;
//   - download without to: saves into $TMPDIR/rpa-downloads;
//   - upload paths are resolved against the working folder and must exist
//     (a missing file fails at once, without retries);
//   - table with no header rows takes its first body row as the header;
//     a column without header text is keyed "col N"; header "none" returns
//     the header and body rows (tfoot left out, as everywhere);
//   - tab "URL pattern" picks the newest matching tab; tab N counts tabs
//     oldest first (Browser.Pages);
//   - ask without a Host.Ask fails with kind hitl_declined, exec without a
//     Host.Exec with exec_refused, llm without a Host.LLM with browser.
package stdlib

import (
	"context"
	"fmt"
	"sort"

	"github.com/rpa-dev/rpa/lang/actions"
)

// Impl runs one attempt of an action and returns its result value (nil for
// actions that return null). Errors should be *core.Error (kinds from the
// driver) or *Error (kinds of the result such as hitl_declined); anything
// else counts as kind "browser".
type Impl func(ctx context.Context, c *Call) (any, error)

var impls = map[string]Impl{}

// Register binds impl to the action named name. It panics when name is not a
// canonical action name of actions.Table (aliases are not accepted) or is
// already registered: both are programming errors caught by the parity test.
func Register(name string, impl Impl) {
	a := actions.Lookup(name)
	if a == nil || a.Name != name {
		panic(fmt.Sprintf("stdlib.Register: %q is not an action of lang/actions.Table", name))
	}
	if impl == nil {
		panic(fmt.Sprintf("stdlib.Register: nil implementation for %q", name))
	}
	if _, dup := impls[name]; dup {
		panic(fmt.Sprintf("stdlib.Register: %q registered twice", name))
	}
	impls[name] = impl
}

// Lookup resolves name (or an alias) to its action spec and implementation;
// ok is false when either is missing.
func Lookup(name string) (a *actions.Action, impl Impl, ok bool) {
	a = actions.Lookup(name)
	if a == nil {
		return nil, nil, false
	}
	impl, ok = impls[a.Name]
	return a, impl, ok
}

// Registered lists the names with an implementation, sorted.
func Registered() []string {
	out := make([]string, 0, len(impls))
	for n := range impls {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
