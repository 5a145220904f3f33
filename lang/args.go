package lang

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/diag"
)

// Args are a flow's arguments after the check: every param bound to a value
// of its type in the shapes of the expression env (expr_env.go: string, int,
// float64, bool, []any, map[string]any; nil for a null default), defaults
// applied. Only the check makes one, so a holder knows they are right for
// their flow (For). The zero Args is "no arguments given", which
// interp.Run checks itself (the check of an empty set).
type Args struct {
	file *ast.File
	vals map[string]any
}

// For reports whether a were checked for f (and not for another flow or
// another version of it).
func (a Args) For(f *Flow) bool { return f != nil && a.file != nil && a.file == f.File }

// IsZero reports whether a is the zero Args (no check was made).
func (a Args) IsZero() bool { return a.file == nil }

// Value returns the value of param name.
func (a Args) Value(name string) (any, bool) {
	v, ok := a.vals[name]
	return v, ok
}

// Map returns the arguments as a new map, param name to value (the top
// scope of a run). The values are shared, not copied.
func (a Args) Map() map[string]any {
	out := make(map[string]any, len(a.vals))
	for k, v := range a.vals {
		out[k] = v
	}
	return out
}

// Secrets returns the non-empty values of the secret params, in the params'
// order: what a run masks and a profile is scrubbed of.
func (a Args) Secrets() []string {
	if a.file == nil {
		return nil
	}
	var out []string
	for _, p := range a.file.Params {
		switch typeOf(p) {
		case "secret":
			if s, ok := a.vals[p.Name].(string); ok && s != "" {
				out = append(out, s)
			}
		case "credential":
			// A resolved account: every field is a secret.
			if m, ok := a.vals[p.Name].(map[string]any); ok {
				keys := make([]string, 0, len(m))
				for k := range m {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					if s, ok := m[k].(string); ok && s != "" {
						out = append(out, s)
					}
				}
			}
		}
	}
	return out
}

// Resolve returns a copy of a in which the value of every param of type typ
// is replaced by what fn makes of it: the hook for a host that resolves a
// param before the run (a param naming an account, replaced by that
// account's fields from a vault). fn gets the param and its checked value
// (nil when left out with a null default); an error is returned as an
// *ArgError naming the param and wrapping it. a itself is unchanged.
func (a Args) Resolve(typ string, fn func(p *ast.Param, v any) (any, error)) (Args, error) {
	if a.file == nil {
		return a, nil
	}
	out := Args{file: a.file, vals: a.Map()}
	for _, p := range a.file.Params {
		if typeOf(p) != typ {
			continue
		}
		v, err := fn(p, out.vals[p.Name])
		if err != nil {
			var ae *ArgError
			if errors.As(err, &ae) {
				return Args{}, ae
			}
			return Args{}, &ArgError{Field: p.Name, Msg: err.Error(), Err: err}
		}
		out.vals[p.Name] = v
	}
	return out, nil
}

// ArgError is a bad or missing argument of a flow; Field names the param
// (or the argument that is no param).
type ArgError struct {
	Field string
	Msg   string
	// Several: Msg names several params (Field is the first); Error then
	// does not start with one argument's name.
	Several bool
	// Err is the cause when another error made it (a host's Resolve hook:
	// a vault that cannot be opened), for errors.Is and As; nil else.
	Err error
}

// Unwrap is the cause (Err).
func (e *ArgError) Unwrap() error { return e.Err }

// Error reads `argument "NAME": MSG`, or MSG alone when it names several.
func (e *ArgError) Error() string {
	if e.Several {
		return e.Msg
	}
	return fmt.Sprintf("argument %q: %s", e.Field, e.Msg)
}

// CheckArgs is the check of a flow's arguments given as JSON-decoded values
// (an MCP call, a `call` statement, --args): strings for string, secret and
// enum (enum values checked), integral numbers for int (int, int64,
// integral float64, json.Number; the result is int), numbers for number
// (float64), bools, lists ([]any or any slice) and maps (map[string]any or
// any map with string keys). A param left out, or given as null, takes its
// default. Every name must be a param; every required param left out is
// named at once. Errors are *ArgError naming the field; a value of the
// wrong type is described by its type alone (never echoed: it may be a
// secret), a string by its text only for an enum.
func (f *Flow) CheckArgs(args map[string]any) (Args, error) {
	vals, err := checkArgs(f.File, args)
	if err != nil {
		return Args{}, err
	}
	return Args{file: f.File, vals: vals}, nil
}

// ParseArgs is the check of arguments given as strings (`rpa run --arg
// NAME=VALUE`): int, number and bool are parsed, list and map read as JSON,
// the others taken as they are; then as CheckArgs.
func (f *Flow) ParseArgs(kv map[string]string) (Args, error) {
	in := make(map[string]any, len(kv))
	for k, s := range kv {
		p := findParam(f.File, k)
		if p == nil {
			return Args{}, noSuchParam(f.File, k)
		}
		v, err := parseArg(p, s)
		if err != nil {
			return Args{}, &ArgError{Field: k, Msg: err.Error()}
		}
		in[k] = v
	}
	return f.CheckArgs(in)
}

func parseArg(p *ast.Param, s string) (any, error) {
	switch t := typeOf(p); t {
	case "int":
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("want an integer, got %s", Echo(s))
		}
		return n, nil
	case "number":
		n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, fmt.Errorf("want a number, got %s", Echo(s))
		}
		if math.IsInf(n, 0) || math.IsNaN(n) {
			return nil, fmt.Errorf("want a finite number, got %s", Echo(s))
		}
		return n, nil
	case "bool":
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("want true or false, got %s", Echo(s))
		}
		return b, nil
	case "list", "map":
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return nil, fmt.Errorf("want a JSON %s: %v", map[string]string{"list": "array", "map": "object"}[t], err)
		}
		return v, nil
	}
	return s, nil
}

// ArgsFromJSON is the check of arguments given as a JSON object (data, the
// file of `rpa run --args`) and string overrides (NAME=VALUE, `--arg`).
// With no overrides the JSON values are checked as CheckArgs does. With
// overrides each JSON value is turned back into its string spelling (a
// string as is, null dropped, anything else as JSON), the overrides win on
// a clash, and all are checked as ParseArgs does. data that is not one
// JSON object is a plain error; bad arguments are *ArgError.
func (f *Flow) ArgsFromJSON(data []byte, overrides map[string]string) (Args, error) {
	var obj map[string]any
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil || obj == nil {
		if err == nil {
			err = errors.New("want a JSON object")
		}
		return Args{}, err
	}
	if len(overrides) == 0 {
		return f.CheckArgs(numbersToGo(obj).(map[string]any))
	}
	kv := map[string]string{}
	for k, v := range obj {
		switch x := v.(type) {
		case string:
			kv[k] = x
		case nil:
		default:
			js, _ := json.Marshal(x)
			kv[k] = string(js)
		}
	}
	for k, v := range overrides {
		kv[k] = v
	}
	return f.ParseArgs(kv)
}

// ArgsFromFile is ArgsFromJSON of the file at path ("": no file, ParseArgs
// of the overrides alone). An *ArgError is returned as is; a file that
// cannot be read or is not a JSON object is an error naming --args.
func (f *Flow) ArgsFromFile(path string, overrides map[string]string) (Args, error) {
	if path == "" {
		return f.ParseArgs(overrides)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Args{}, fmt.Errorf("--args: %w", err)
	}
	args, err := f.ArgsFromJSON(b, overrides)
	if err != nil && !errors.As(err, new(*ArgError)) {
		return Args{}, fmt.Errorf("--args %s: %v", path, err)
	}
	return args, err
}

// numbersToGo turns json.Number into int (when integral) or float64,
// recursively, so `int` params accept 3 and `number` params 2.5.
func numbersToGo(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return int(n)
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = numbersToGo(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = numbersToGo(e)
		}
		return x
	}
	return v
}

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
	if len(k) > MaxEcho {
		return &ArgError{Several: true, Msg: fmt.Sprintf("an argument's name is too long (%d bytes): no param has it", len(k))}
	}
	names := make([]string, len(f.Params))
	for i, p := range f.Params {
		names[i] = p.Name
	}
	list := "the flow takes none"
	if len(names) > 0 {
		list = "params: " + strings.Join(names, ", ")
	}
	if sug := diag.Suggest(k, names); sug != "" {
		return &ArgError{Field: k, Msg: fmt.Sprintf("no such param; did you mean %q? (%s)", sug, list)}
	}
	return &ArgError{Field: k, Msg: "no such param (" + list + ")"}
}

func typeOf(p *ast.Param) string {
	if p.Type == nil {
		return "string"
	}
	return p.Type.Name
}

// checkArgs converts JSON-shaped values to the param types of the
// expression env, applies defaults and reports unknown names and missing
// or ill-typed params.
func checkArgs(f *ast.File, args map[string]any) (map[string]any, error) {
	for k := range args {
		if findParam(f, k) == nil {
			return nil, noSuchParam(f, k)
		}
	}
	out := make(map[string]any, len(f.Params))
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
			d, err := Literal(p.Default)
			if err != nil {
				return nil, &ArgError{Field: p.Name, Msg: "bad default: " + err.Error()}
			}
			if d == nil {
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
	bad := func(want string) error { return fmt.Errorf("want %s, got %s", want, describeValue(v)) }
	switch typeOf(p) {
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
		return nil, fmt.Errorf("want one of %s, got %s", enumList(p), Echo(s))
	case "int":
		if x, ok := v.(json.Number); ok {
			if n, err := strconv.Atoi(x.String()); err == nil {
				return n, nil
			}
		} else if n, ok := ToInt(v); ok {
			return n, nil
		}
		// An int param is no secret: a number that is not an integer is
		// shown ("got 1.5"), as the --arg string would be.
		if t := numberText(v); t != "" {
			return nil, fmt.Errorf("want an integer, got %s", t)
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
	case "credential":
		// An account's name, which a host resolves before the run (Resolve),
		// or an account already resolved (a flow passing its credential on
		// to a `call`).
		switch x := v.(type) {
		case string:
			if x == "" {
				return nil, errors.New("want an account name, got an empty string")
			}
			return x, nil
		case map[string]any:
			return x, nil
		}
		return nil, bad("an account name (a string)")
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

// MaxEcho bounds the text of a caller quoted back in an error (Echo).
const MaxEcho = 200

// Echo is s quoted (%q) for an error message, or "a text too long to
// show (N bytes)" when it is longer than MaxEcho bytes: what a caller
// sent is not sent back by the megabyte.
func Echo(s string) string {
	if len(s) > MaxEcho {
		return fmt.Sprintf("a text too long to show (%d bytes)", len(s))
	}
	return strconv.Quote(s)
}

// numberText is v written out when it is a number (1.5, 1e+300), else "".
func numberText(v any) string {
	switch x := v.(type) {
	case json.Number:
		if len(x) > MaxEcho {
			return fmt.Sprintf("a number too long to show (%d digits)", len(x))
		}
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case int, int64, int32, uint, uint64:
		return fmt.Sprint(x)
	}
	return ""
}

// describeValue names a wrong value in an argument error: a string with
// its text (only strings are echoed, and a secret param takes any string),
// null, else its type.
func describeValue(v any) string {
	switch x := v.(type) {
	case string:
		return "the string " + Echo(x)
	case nil:
		return "null"
	}
	return TypeName(v)
}
