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

func TestRegisterPanics(t *testing.T) {
	impl := func(context.Context, *Call) (any, error) { return nil, nil }
	for _, name := range []string{"click", "clik", "navigate"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", name)
				}
			}()
			Register(name, impl)
		}()
	}
}
