package stdlib

import (
	"context"
	"testing"

	"github.com/rpa-dev/rpa/lang/actions"
)

// TestParity: every action of the table has exactly one implementation and
// every implementation is an action of the table.
func TestParity(t *testing.T) {
	names := map[string]bool{}
	for _, a := range actions.Table {
		names[a.Name] = true
		if _, impl, ok := Lookup(a.Name); !ok || impl == nil {
			t.Errorf("action %q has no implementation", a.Name)
		}
		for _, al := range a.Aliases {
			if got, _, ok := Lookup(al); !ok || got != a {
				t.Errorf("alias %q does not resolve to %q", al, a.Name)
			}
		}
	}
	for _, n := range Registered() {
		if !names[n] {
			t.Errorf("implementation %q is not in actions.Table", n)
		}
	}
	if len(Registered()) != len(actions.Table) {
		t.Errorf("%d implementations for %d actions", len(Registered()), len(actions.Table))
	}
}

// TestUniverseRejects: a binding must name a canonical action of the table
// (not a typo, not an alias) and have an implementation.
func TestUniverseRejects(t *testing.T) {
	impl := func(context.Context, *Call) (any, error) { return nil, nil }
	for _, u := range []map[string]Impl{
		{"clik": impl},
		{"navigate": impl},
		{"click": nil},
	} {
		if err := checkUniverse(u); err == nil {
			t.Errorf("checkUniverse(%v) accepted it", u)
		}
	}
	if err := checkUniverse(universe); err != nil {
		t.Error(err)
	}
}
