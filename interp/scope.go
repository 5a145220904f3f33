package interp

import "fmt"

// Scope is one level of name bindings (HCL's EvalContext shape): the flow
// scope holds params (read-only) and, in a child, top-level names; each
// block is a child scope; a loop variable lives in its loop body.
type Scope struct {
	vars     map[string]any
	parent   *Scope
	readOnly bool // the params scope
	rt       *versioned

	// env caches the flattened chain for expr; valid while envVer == rt.v.
	env    map[string]any
	envVer uint64
}

// versioned counts binding changes of one run, so flattened envs are
// rebuilt only after a change.
type versioned struct{ v uint64 }

// NewScope returns a root scope holding vars (read-only when readOnly).
func NewScope(vars map[string]any, readOnly bool) *Scope {
	return &Scope{vars: vars, readOnly: readOnly, rt: &versioned{v: 1}}
}

// Child returns a new child scope of s.
func (s *Scope) Child() *Scope { return &Scope{parent: s, rt: s.rt} }

// Lookup finds name in s or its ancestors.
func (s *Scope) Lookup(name string) (any, bool) {
	for sc := s; sc != nil; sc = sc.parent {
		if v, ok := sc.vars[name]; ok {
			return v, true
		}
	}
	return nil, false
}

// Declare binds name in s itself (loop and catch variables).
func (s *Scope) Declare(name string, v any) {
	if s.vars == nil {
		s.vars = make(map[string]any, 4)
	}
	s.vars[name] = v
	s.rt.v++
}

// Set updates the nearest existing binding of name, else creates it in s.
// Assigning to a param is an error.
func (s *Scope) Set(name string, v any) error {
	for sc := s; sc != nil; sc = sc.parent {
		if _, ok := sc.vars[name]; ok {
			if sc.readOnly {
				return fmt.Errorf("%s is a param: params are read-only", name)
			}
			sc.vars[name] = v
			s.rt.v++
			return nil
		}
	}
	s.Declare(name, v)
	return nil
}

// flatten returns every visible binding in one map (inner ones shadow
// outer ones) plus extra, reusing the cached map while nothing changed.
// The map must not be modified by the caller.
func (s *Scope) flatten(extra func(map[string]any)) map[string]any {
	if s.env != nil && s.envVer == s.rt.v {
		return s.env
	}
	n := 4
	for sc := s; sc != nil; sc = sc.parent {
		n += len(sc.vars)
	}
	m := make(map[string]any, n)
	if extra != nil {
		extra(m)
	}
	var chain [16]*Scope
	scs := chain[:0]
	for sc := s; sc != nil; sc = sc.parent {
		scs = append(scs, sc)
	}
	for i := len(scs) - 1; i >= 0; i-- { // outermost first: inner bindings win
		for k, v := range scs[i].vars {
			m[k] = v
		}
	}
	s.env, s.envVer = m, s.rt.v
	return m
}
