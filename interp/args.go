package interp

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/diag"
	"github.com/rpa-dev/rpa/stdlib"
)

// ArgError is a bad or missing flow argument; Field names the param.
type ArgError struct {
	Field string
	Msg   string
	// Several: Msg names several params (Field is the first); Error then
	// does not start with one argument's name.
	Several bool
}

// Error reads `argument "NAME": MSG`, or MSG alone when it names several.
func (e *ArgError) Error() string {
	if e.Several {
		return e.Msg
	}
	return fmt.Sprintf("argument %q: %s", e.Field, e.Msg)
}

// ignoredArgs are names a caller may pass that no param can have (they
// are reserved): the host consumes them.
var ignoredArgs = map[string]bool{"profileId": true, "deviceId": true}

func findParam(f *ast.File, name string) *ast.Param {
	for _, p := range f.Params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// noSuchParam is the error for an argument no param of f has, with the
// closest param name when one is close ("did you mean").
func noSuchParam(f *ast.File, k string) *ArgError {
	names := make([]string, len(f.Params))
	for i, p := range f.Params {
		names[i] = p.Name
	}
	msg := "no such param (" + paramNames(f) + ")"
	if sug := diag.Suggest(k, names); sug != "" {
		msg = fmt.Sprintf("no such param; did you mean %q? (%s)", sug, paramNames(f))
	}
	return &ArgError{Field: k, Msg: msg}
}

func paramNames(f *ast.File) string {
	ns := make([]string, len(f.Params))
	for i, p := range f.Params {
		ns[i] = p.Name
	}
	if len(ns) == 0 {
		return "the flow takes none"
	}
	return "params: " + strings.Join(ns, ", ")
}

// parseArgs converts --arg strings by param type, then checks like
// checkArgs.
func parseArgs(f *ast.File, kv map[string]string) (map[string]any, error) {
	in := make(map[string]any, len(kv))
	for k, s := range kv {
		if ignoredArgs[k] {
			continue
		}
		p := findParam(f, k)
		if p == nil {
			return nil, noSuchParam(f, k)
		}
		switch typeOf(p) {
		case "int":
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return nil, &ArgError{Field: k, Msg: fmt.Sprintf("want an integer, got %q", s)}
			}
			in[k] = n
		case "number":
			n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err == nil && (math.IsInf(n, 0) || math.IsNaN(n)) {
				return nil, &ArgError{Field: k, Msg: fmt.Sprintf("want a finite number, got %q", s)}
			}
			if err != nil {
				return nil, &ArgError{Field: k, Msg: fmt.Sprintf("want a number, got %q", s)}
			}
			in[k] = n
		case "bool":
			b, err := strconv.ParseBool(strings.TrimSpace(s))
			if err != nil {
				return nil, &ArgError{Field: k, Msg: fmt.Sprintf("want true or false, got %q", s)}
			}
			in[k] = b
		case "list", "map":
			var v any
			if err := json.Unmarshal([]byte(s), &v); err != nil {
				return nil, &ArgError{Field: k, Msg: fmt.Sprintf("want a JSON %s: %v", map[string]string{"list": "array", "map": "object"}[typeOf(p)], err)}
			}
			in[k] = v
		default:
			in[k] = s
		}
	}
	return checkArgs(f, in)
}

func typeOf(p *ast.Param) string {
	if p.Type == nil {
		return "string"
	}
	return p.Type.Name
}

// checkArgs converts JSON-shaped values to the param types of the
// expression env (int, float64, string, bool, []any, map[string]any),
// applies defaults and reports missing or ill-typed params.
func checkArgs(f *ast.File, args map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(f.Params))
	for k := range args {
		if !ignoredArgs[k] && findParam(f, k) == nil {
			return nil, noSuchParam(f, k)
		}
	}
	var missing []*ast.Param // every required param left out, named at once
	for _, p := range f.Params {
		v, ok := args[p.Name]
		if !ok || v == nil {
			if p.Default == nil {
				if ok { // given as null: say so rather than "missing"
					if _, err := convertArg(p, v); err != nil {
						return nil, &ArgError{Field: p.Name, Msg: err.Error()}
					}
				}
				missing = append(missing, p)
				continue
			}
			d, err := literal(p.Default)
			if err != nil {
				return nil, &ArgError{Field: p.Name, Msg: "bad default: " + err.Error()}
			}
			if _, isNull := p.Default.(*ast.NullLit); isNull {
				out[p.Name] = nil
				continue
			}
			v = d
		}
		cv, err := convertArg(p, v)
		if err != nil {
			return nil, &ArgError{Field: p.Name, Msg: err.Error()}
		}
		out[p.Name] = cv
	}
	switch {
	case len(missing) == 1:
		return nil, &ArgError{Field: missing[0].Name, Msg: "required " + typeOf(missing[0]) + " param is missing"}
	case len(missing) > 1:
		names := make([]string, len(missing))
		for i, p := range missing {
			names[i] = p.Name + " (" + typeOf(p) + ")"
		}
		return nil, &ArgError{Field: missing[0].Name, Msg: "required params are missing: " + strings.Join(names, ", "), Several: true}
	}
	return out, nil
}

func convertArg(p *ast.Param, v any) (any, error) {
	t := typeOf(p)
	bad := func(want string) error { return fmt.Errorf("want %s, got %s", want, describe(v)) }
	switch t {
	case "string", "secret":
		if s, ok := v.(string); ok {
			return s, nil
		}
		return nil, bad("a string")
	case "enum":
		s, ok := v.(string)
		if !ok {
			return nil, bad("one of " + enumList(p))
		}
		for _, e := range p.Type.Values {
			if e == s {
				return s, nil
			}
		}
		return nil, fmt.Errorf("want one of %s, got %q", enumList(p), s)
	case "int":
		switch x := v.(type) {
		case int:
			return x, nil
		case int64:
			return int(x), nil
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
				return int(x), nil
			}
		case json.Number:
			if n, err := strconv.Atoi(x.String()); err == nil {
				return n, nil
			}
		}
		return nil, bad("an integer")
	case "number":
		switch x := v.(type) {
		case float64:
			if math.IsInf(x, 0) || math.IsNaN(x) {
				return nil, bad("a finite number")
			}
			return x, nil
		case int:
			return float64(x), nil
		case int64:
			return float64(x), nil
		case json.Number:
			if n, err := x.Float64(); err == nil {
				return n, nil
			}
		}
		return nil, bad("a number")
	case "bool":
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return nil, bad("true or false")
	case "list":
		if l, ok := v.([]any); ok {
			return l, nil
		}
		rv := reflect.ValueOf(v)
		if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
			l := make([]any, rv.Len())
			for i := range l {
				l[i] = rv.Index(i).Interface()
			}
			return l, nil
		}
		return nil, bad("a list")
	case "map":
		if m, ok := v.(map[string]any); ok {
			return m, nil
		}
		rv := reflect.ValueOf(v)
		if rv.Kind() == reflect.Map && rv.Type().Key().Kind() == reflect.String {
			m := make(map[string]any, rv.Len())
			for it := rv.MapRange(); it.Next(); {
				m[it.Key().String()] = it.Value().Interface()
			}
			return m, nil
		}
		return nil, bad("a map")
	}
	return v, nil
}

func enumList(p *ast.Param) string {
	q := make([]string, len(p.Type.Values))
	for i, v := range p.Type.Values {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}

func describe(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", x)
	case nil:
		return "null"
	}
	return stdlib.TypeName(v)
}
