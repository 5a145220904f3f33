package check

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/expr-lang/expr/types"

	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/diag"
)

var resultTypes = map[actions.Result]types.Type{
	actions.ResultString: typeString,
	actions.ResultMap:    typeMap,
	actions.ResultList:   typeList,
	actions.ResultNumber: typeFloat,
}

func (c *checker) action(s *ast.ActionStmt) {
	a := actions.Lookup(s.Action)
	if a == nil {
		d := c.errorf(s.ActionRange, "unknown action %q", s.Action)
		if sug := diag.Suggest(s.Action, actions.Names()); sug != "" {
			d.Detail = fmt.Sprintf("did you mean %q?", sug)
		}
		// Still check what can be checked: expressions in args and options.
		for _, arg := range s.Args {
			c.value(arg, actions.KindAny, nil, "")
		}
		for _, o := range s.Options {
			if o != nil && o.Value != nil {
				c.value(o.Value, actions.KindAny, nil, "")
			}
		}
		if s.Target != "" {
			c.bind(s.Target, s.TargetRange, nil, s)
		}
		return
	}
	c.args(s, a)
	c.options(s, a)
	if s.Target != "" {
		c.bind(s.Target, s.TargetRange, resultTypes[a.Result], s)
	}
}

func (c *checker) args(s *ast.ActionStmt, a *actions.Action) {
	n := len(s.Args)
	if n < a.MinArgs() || n > len(a.Params) {
		r := s.ActionRange
		if n > len(a.Params) && s.Args[len(a.Params)] != nil {
			r = s.Args[len(a.Params)].Rng()
		}
		d := c.errorf(r, "%s expects %s, got %d", s.Action, argCount(a), n)
		d.Detail = "usage: " + usage(s.Action, a)
	}
	if a.FlowParam() >= 0 {
		c.call(s)
		return
	}
	for i, arg := range s.Args {
		if arg == nil {
			c.errorf(s.Range, "internal error: nil argument")
			continue
		}
		if i >= len(a.Params) {
			c.value(arg, actions.KindAny, nil, "")
			continue
		}
		p := a.Params[i]
		c.value(arg, p.Kind, nil, s.Action+" "+p.Name)
		c.rawInterp(s, p.Kind, arg) // escape.go
	}
	if a.Name == "open" && len(s.Args) > 0 {
		// A literal URL is checked now; an interpolated one at run time.
		if lit, ok := s.Args[0].(*ast.StringLit); ok {
			if v, plain := lit.Value(); plain {
				if msg := actions.CheckOpenURL(v); msg != "" {
					c.errorf(lit.Range, "open: %s", msg)
				}
			}
		}
	}
}

func argCount(a *actions.Action) string {
	min, max := a.MinArgs(), len(a.Params)
	plural := func(n int) string {
		if n == 1 {
			return "1 argument"
		}
		return fmt.Sprintf("%d arguments", n)
	}
	switch {
	case max == 0:
		return "no arguments"
	case min == max:
		return plural(min)
	default:
		return fmt.Sprintf("%d to %s", min, plural(max))
	}
}

func usage(name string, a *actions.Action) string {
	parts := []string{name}
	for _, p := range a.Params {
		if p.Optional {
			parts = append(parts, "["+strings.ToUpper(p.Name)+"]")
		} else {
			parts = append(parts, strings.ToUpper(p.Name))
		}
	}
	return strings.Join(parts, " ")
}

// optionHead reports what is wrong with option o of what (an action's name
// or "defaults") before its value is looked at, in the one phrasing of
// option errors: `what has no option "o"` (known is false; names lists the
// options for a suggestion), `duplicate option "o"`, `option "o" needs a
// value`. It reports whether the value is to be checked.
func (c *checker) optionHead(what string, o *ast.Option, known bool, names func() []string, seen map[string]bool) bool {
	if !known {
		d := c.errorf(o.NameRange, "%s has no option %q", what, o.Name)
		if sug := diag.Suggest(o.Name, names()); sug != "" {
			d.Detail = fmt.Sprintf("did you mean %q?", sug)
		} else {
			d.Detail = "options: " + strings.Join(names(), ", ")
		}
		return false
	}
	if seen[o.Name] {
		c.errorf(o.NameRange, "duplicate option %q", o.Name)
	}
	seen[o.Name] = true
	if o.Value == nil {
		c.errorf(o.NameRange, "option %q needs a value", o.Name)
		return false
	}
	return true
}

func (c *checker) options(s *ast.ActionStmt, a *actions.Action) {
	seen := map[string]bool{}
	for _, o := range s.Options {
		if o == nil {
			continue
		}
		spec := a.Option(o.Name)
		if !c.optionHead(s.Action, o, spec != nil, func() []string { return optionNames(a) }, seen) {
			if spec == nil && o.Value != nil {
				c.value(o.Value, actions.KindAny, nil, "")
			}
			continue
		}
		if a.FlowParam() >= 0 && o.Name == "with" {
			c.value(o.Value, spec.Kind, nil, "call with")
			continue
		}
		c.value(o.Value, spec.Kind, spec.Enum, s.Action+" "+o.Name+":")
	}
	if a.Class == actions.ClassPage {
		c.waitBeyondTimeout(s.Options, false)
	}
}

// Built-in replay defaults (interp.DefaultWait, interp.DefaultTimeout),
// for the wait-beyond-timeout warning.
const (
	defaultWait    = 10 * time.Second
	defaultTimeout = 30 * time.Second
)

// literalDuration is the value of option name among opts when it is a
// duration literal.
func literalDuration(opts []*ast.Option, name string) (time.Duration, *ast.Option) {
	for _, o := range opts {
		if o != nil && o.Name == name {
			if d, ok := o.Value.(*ast.DurationLit); ok {
				return d.Value, o
			}
			return 0, nil
		}
	}
	return 0, nil
}

// waitBeyondTimeout warns when the wait in effect (opts, else the flow's
// defaults, else 10s) is longer than the timeout in effect (likewise, else
// 30s) and one of them is set in opts: the action's timeout bounds all its
// tries, so the wait is cut short at the timeout. For an action (not
// defaults), a warning is given only when the action sets wait or timeout
// (defaults alone are warned about once, at the defaults).
func (c *checker) waitBeyondTimeout(opts []*ast.Option, isDefaults bool) {
	wait, wo := literalDuration(opts, "wait")
	timeout, to := literalDuration(opts, "timeout")
	if wo == nil && to == nil {
		return
	}
	if !isDefaults {
		if wo == nil {
			wait, wo = literalDuration(c.f.Defaults, "wait")
			if wo == nil {
				wait = defaultWait
			}
		}
		if to == nil {
			timeout, to = literalDuration(c.f.Defaults, "timeout")
			if to == nil {
				timeout = defaultTimeout
			}
		}
	} else {
		if wo == nil {
			wait = defaultWait
		}
		if to == nil {
			timeout = defaultTimeout
		}
	}
	if wait <= timeout {
		return
	}
	r := ast.Range{}
	switch {
	case wo != nil && containsOpt(opts, wo):
		r = wo.Value.Rng()
	case to != nil:
		r = to.Value.Rng()
	}
	what := "wait"
	switch {
	case isDefaults && wo == nil:
		what = "the built-in wait"
	case isDefaults:
		what = "defaults wait"
	}
	c.warnf(r, "%s %s is longer than the timeout %s", what, wait, timeout).Detail =
		fmt.Sprintf("timeout: bounds an action with all its tries, so the element wait is cut short at %s; raise timeout: or lower wait:", timeout)
}

func containsOpt(opts []*ast.Option, o *ast.Option) bool {
	for _, x := range opts {
		if x == o {
			return true
		}
	}
	return false
}

func optionNames(a *actions.Action) []string {
	var out []string
	for _, o := range a.Options {
		out = append(out, o.Name)
	}
	for _, o := range actions.Common {
		if !slices.Contains(out, o.Name) {
			out = append(out, o.Name)
		}
	}
	return out
}

// value checks an argument or option value against kind (statically where
// it is a literal) and compiles the expressions inside it.
func (c *checker) value(e ast.Expr, kind actions.Kind, enum []string, what string) {
	if e == nil {
		return
	}
	if what != "" {
		c.checkKind(e, kind, enum, what)
	}
	switch x := e.(type) {
	case *ast.ExprSrc:
		c.compile(x, kind == actions.KindExpr || kind == actions.KindBool)
	case *ast.StringLit:
		c.parts(x)
	case *ast.ListLit:
		for _, el := range x.Elems {
			c.full(el, false)
		}
	case *ast.MapLit:
		for _, en := range x.Entries {
			if en != nil {
				c.full(en.Key, false)
				c.full(en.Value, false)
			}
		}
	}
}

var durationish = regexp.MustCompile(`^[0-9]`)

// checkKind reports a literal whose kind does not fit kind or enum. what
// names the slot for the message ("click selector", "wait state:").
func (c *checker) checkKind(e ast.Expr, kind actions.Kind, enum []string, what string) {
	if _, ok := e.(*ast.ExprSrc); ok {
		return
	}
	if s, ok := e.(*ast.StringLit); ok && len(s.Parts) == 1 && s.Parts[0].Expr != nil {
		return // "{{ E }}" has E's type
	}
	bad := func(want string) {
		c.errorf(e.Rng(), "%s expects %s, got %s", what, want, describe(e))
	}
	switch kind {
	case actions.KindAny, actions.KindExpr:
	case actions.KindString, actions.KindFlowName:
		if _, ok := e.(*ast.StringLit); !ok {
			bad("a string")
		}
	case actions.KindSelector, actions.KindStrings, actions.KindCommand:
		switch x := e.(type) {
		case *ast.StringLit:
		case *ast.ListLit:
			if len(x.Elems) == 0 {
				c.errorf(x.Range, "%s expects a non-empty list", what)
			}
			for _, el := range x.Elems {
				switch el.(type) {
				case *ast.StringLit, *ast.ExprSrc:
				default:
					c.errorf(el.Rng(), "%s expects strings in its list, got %s", what, describe(el))
				}
			}
		default:
			bad("a string or a list of strings")
		}
	case actions.KindDuration:
		switch x := e.(type) {
		case *ast.DurationLit:
			if x.Value < 0 {
				c.errorf(x.Range, "%s expects a duration of 0 or more, got %s", what, x.Raw)
			}
		case *ast.StringLit:
			if v, ok := x.Value(); ok && durationish.MatchString(v) {
				if _, err := ParseDuration(v); err != nil {
					c.errorf(x.Range, "%s expects a duration, got %q", what, v).Detail = durationHelp
					return
				}
			}
			bad("a duration")
		default:
			bad("a duration")
		}
		if _, ok := e.(*ast.DurationLit); !ok {
			if d := c.diags[len(c.diags)-1]; d.Detail == "" {
				d.Detail = durationHelp
			}
		}
	case actions.KindInt:
		if n, ok := e.(*ast.NumberLit); !ok || !isInt(n) {
			bad("an integer")
		}
	case actions.KindBool:
		if _, ok := e.(*ast.BoolLit); !ok {
			bad("true or false")
		}
	case actions.KindMap:
		if _, ok := e.(*ast.MapLit); !ok {
			bad("a map")
		}
	case actions.KindIntOrString:
		switch x := e.(type) {
		case *ast.StringLit:
		case *ast.NumberLit:
			if !isInt(x) {
				bad("an integer or a string")
			}
		default:
			bad("an integer or a string")
		}
	}
	if enum != nil {
		if s, ok := e.(*ast.StringLit); ok {
			if v, ok := s.Value(); ok && !slices.Contains(enum, v) {
				d := c.errorf(e.Rng(), "%s expects one of %s, got %q", strings.TrimSuffix(what, ":"), quoteList(enum), v)
				if sug := diag.Suggest(v, enum); sug != "" {
					d.Detail = fmt.Sprintf("did you mean %q?", sug)
				}
			}
		}
	}
}

const durationHelp = "a duration is digits followed by ms, s, m or h, in one or more groups: 500ms, 10s, 1m30s"

// call checks `call NAME [with: MAP]`: the bare flow name, and, when the
// folder is known, the target and the `with:` keys against its params.
func (c *checker) call(s *ast.ActionStmt) {
	if len(s.Args) == 0 || s.Args[0] == nil {
		return
	}
	lit, ok := s.Args[0].(*ast.StringLit)
	name, plain := "", false
	if ok {
		name, plain = lit.Value()
	}
	if !ok || !plain || !ast.IsFlowName(name) {
		c.errorf(s.Args[0].Rng(), "call expects a bare flow name, got %s", describe(s.Args[0]))
		return
	}
	if c.opts.Folder == nil {
		return
	}
	target, found := c.opts.Folder[name]
	if !found || target == nil {
		d := c.errorf(lit.Range, "unknown flow %q", name)
		var names []string
		for n := range c.opts.Folder {
			names = append(names, n)
		}
		if sug := diag.Suggest(name, names); sug != "" {
			d.Detail = fmt.Sprintf("did you mean %q?", sug)
		} else {
			d.Detail = "no flow of this folder has that name"
		}
		return
	}
	if cyc := c.callCycle(name); cyc != nil {
		// A warning, not an error: the spec allows recursion with a stopping
		// condition; at run time calls stop 32 deep with one clear message.
		c.warnf(lit.Range, "call %s makes a call cycle: %s", name, strings.Join(cyc, " → ")).Detail =
			"a flow that calls itself, directly or through other flows, must stop on its own (calls stop 32 deep); a loop (while, for) is usually clearer"
	}
	var with *ast.Option
	for _, o := range s.Options {
		if o != nil && o.Name == "with" {
			with = o
		}
	}
	given := map[string]bool{}
	if with != nil {
		m, ok := with.Value.(*ast.MapLit)
		if !ok {
			return // an expression: checked at run time
		}
		var pnames []string
		for _, p := range target.Params {
			pnames = append(pnames, p.Name)
		}
		for _, en := range m.Entries {
			if en == nil {
				continue
			}
			k, ok := en.Key.(*ast.StringLit)
			kv, plain := "", false
			if ok {
				kv, plain = k.Value()
			}
			if !plain {
				c.errorf(en.Key.Rng(), "call with: keys must be plain strings")
				continue
			}
			given[kv] = true
			if !slices.Contains(pnames, kv) {
				d := c.errorf(en.Key.Rng(), "flow %q has no param %q", name, kv)
				if sug := diag.Suggest(kv, pnames); sug != "" {
					d.Detail = fmt.Sprintf("did you mean %q?", sug)
				} else if len(pnames) > 0 {
					d.Detail = "params: " + strings.Join(pnames, ", ")
				}
			}
		}
	}
	var missing []string
	for _, p := range target.Params {
		if p.Default == nil && !given[p.Name] {
			missing = append(missing, p.Name)
		}
	}
	if len(missing) > 0 {
		r := lit.Range
		if with != nil {
			r = with.Value.Rng()
		}
		c.errorf(r, "call %s is missing required param %s", name, quoteList(missing))
	}
}

// callCycle returns the chain of flow names from the checked flow through
// target back to the checked flow when target (in the folder) leads back to
// it by `call`s, else nil.
func (c *checker) callCycle(target string) []string {
	self := c.f.Name
	if self == "" {
		return nil
	}
	seen := map[string]bool{}
	var path []string
	var visit func(name string) bool
	visit = func(name string) bool {
		path = append(path, name)
		if name == self {
			return true
		}
		if !seen[name] {
			seen[name] = true
			if f := c.opts.Folder[name]; f != nil {
				for _, callee := range actions.Callees(f) {
					if visit(callee) {
						return true
					}
				}
			}
		}
		path = path[:len(path)-1]
		return false
	}
	if visit(target) {
		return append([]string{self}, path...)
	}
	return nil
}
