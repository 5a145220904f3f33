package vault

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
)

// ResolveArgs resolves the credential params of a run (LANGUAGE.md,
// "Accounts and sign-in"): each one's value, an account's name, is
// replaced by the account's fields from st (a map of strings, every one a
// secret of the run: lang.Args.Secrets), after checking that the account
// has every field the flow (and its sign-in flow, found with flows) reads
// (lang.Flow.AccountFields). A value
// already resolved stays. accounts are the names resolved, in param order
// (what the run takes the leases of). Errors are *lang.ArgError naming the
// param (an unknown account with the closest name, a missing field), or the
// vault's own error (a damaged file, a wrong key) naming it too.
func ResolveArgs(st *Store, f *lang.Flow, args lang.Args, flows func(string) (*lang.Flow, bool)) (lang.Args, []string, error) {
	var accounts []string
	out, err := args.Resolve("credential", func(p *ast.Param, v any) (any, error) {
		name, ok := v.(string)
		if !ok {
			return v, nil // already an account (a call passing its own on)
		}
		e, err := st.Get(name)
		if err != nil {
			return nil, err
		}
		var missing []string
		for _, want := range f.AccountFields(p.Name, flows) {
			if _, ok := e.Fields[want]; !ok {
				missing = append(missing, want)
			}
		}
		if len(missing) > 0 {
			have := make([]string, 0, len(e.Fields))
			for k := range e.Fields {
				have = append(have, k)
			}
			return nil, fmt.Errorf("account %s has no field %s, which the flow reads (it has %s)", name, strings.Join(missing, ", "), strings.Join(slices.Sorted(slices.Values(have)), ", "))
		}
		m := make(map[string]any, len(e.Fields))
		for k, v := range e.Fields {
			m[k] = v
		}
		accounts = append(accounts, name)
		return m, nil
	})
	if err != nil {
		return lang.Args{}, nil, err
	}
	return out, accounts, nil
}

// Matching returns the names of the accounts that have every field of
// fields, sorted (a credential param's enum in a tool's schema); nil when
// the vault cannot be read.
func (s *Store) Matching(fields []string) []string {
	infos, err := s.List()
	if err != nil {
		return nil
	}
	var out []string
	for _, in := range infos {
		if in.Has(fields...) {
			out = append(out, in.Name)
		}
	}
	return out
}

// ProfileFor is the persistent browser profile of an account, so its
// cookies stay signed in between runs: "acct-" and the name, each
// character a profile id cannot hold ('/', '@') as '_' and then, when any
// was replaced, '-' and 8 hex digits of the name's FNV-1a hash
// (portal/admin → acct-portal_admin-1c2d3e4f); cut to 64 bytes.
func ProfileFor(account string) string {
	b := []byte(account)
	changed := false
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i], changed = '_', true
		}
	}
	id := "acct-" + string(b)
	if changed || len(id) > 64 {
		f := fnv.New32a()
		f.Write([]byte(account))
		h := fmt.Sprintf("-%08x", f.Sum32())
		id = id[:min(len(id), 64-len(h))] + h
	}
	return id
}
