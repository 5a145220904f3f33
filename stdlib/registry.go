package stdlib

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/rpa-dev/rpa/lang/actions"
)

// Impl runs one attempt of an action and returns its result value (nil for
// actions that return null). Errors should be *core.Error (a driver's kinds,
// or the result's kinds such as hitl_declined); anything else counts as
// kind "browser" (core.KindOf).
type Impl func(ctx context.Context, c *Call) (any, error)

// universe binds every action of actions.Table, by canonical name, to its
// implementation.
var universe = map[string]Impl{
	// navigation (page.go)
	"open": open, "back": back, "forward": forward, "reload": reload,
	// pointer and keyboard (page.go)
	"click": click, "hover": hover, "fill": fill, "type": typeText, "press": press,
	"select": selectOpt, "check": check, "uncheck": uncheck, "upload": upload, "scroll": scroll,
	// waits and reads (read.go, table.go)
	"wait": wait, "sleep": sleep, "text": text, "attr": attr, "value": value, "html": html,
	"table": table, "form": form, "url": pageURL, "title": pageTitle,
	// files, tabs and dialogs (page.go)
	"screenshot": screenshot, "download": download, "tab": tab, "close": closeTab, "dialog": dialog,
	// beyond the browser (host.go)
	"ask": ask, "llm": llm, "call": call, "exec": execCmd,
}

func init() {
	if err := checkUniverse(universe); err != nil {
		panic(err) // a programming error; TestParity names it too
	}
}

// checkUniverse reports a binding whose name is not a canonical action name
// of actions.Table (aliases are not accepted) or whose Impl is nil.
func checkUniverse(u map[string]Impl) error {
	for _, name := range slices.Sorted(maps.Keys(u)) {
		a := actions.Lookup(name)
		if a == nil || a.Name != name {
			return fmt.Errorf("stdlib: %q is not an action of lang/actions.Table", name)
		}
		if u[name] == nil {
			return fmt.Errorf("stdlib: nil implementation for %q", name)
		}
	}
	return nil
}

// Lookup resolves name (or an alias) to its action spec and implementation;
// ok is false when either is missing.
func Lookup(name string) (a *actions.Action, impl Impl, ok bool) {
	a = actions.Lookup(name)
	if a == nil {
		return nil, nil, false
	}
	impl, ok = universe[a.Name]
	return a, impl, ok
}

// Registered lists the names with an implementation, sorted.
func Registered() []string {
	return slices.Sorted(maps.Keys(universe))
}
