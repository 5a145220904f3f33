package check

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"

	"github.com/expr-lang/expr/checker/nature"
	"github.com/expr-lang/expr/types"
)

// This file is the expression environment contract between the checker
// (compile time) and the interpreter (run time).
//
// Every expression is compiled against a types.Map whose keys are exactly the
// names visible at that point of the flow. At run time the interpreter passes
// a map[string]any holding the same keys, with values of these Go types:
//
//	key                          run-time value
//	---------------------------  --------------------------------------------------
//	param string/secret/enum     string (a secret is the plain string; masking is
//	                             the interpreter's job when it shows values)
//	param int                    int
//	param number                 float64
//	param bool                   bool
//	param list                   []any
//	param map                    map[string]any
//	bound name / loop variable   any value (strings, float64/int, bool, nil,
//	                             []any, map[string]any); action results as the
//	                             action table says (ResultString: string, ...)
//	"loop" (inside a for body)   map[string]any{"index": int, "first": bool, "last": bool}
//	catch variable               map[string]any{"message": string, "action": string,
//	                             "line": int, "code": int, "kind": string}
//	"page"                       PageFuncs (the struct value, not a pointer)
//	"dialogs"                    func() []map[string]any  (each {"type", "message"})
//
// Only the names visible at that point need to be present, but extra names do
// no harm. The interpolation helper used inside expression strings is compiled
// into the program (expr.Function), so the run-time env never carries it.

// PageFuncs is the value of `page` in expressions: read-only looks at the
// current page that never wait. Each func may return an error (page gone,
// bad selector); expr then fails the expression with it. A nil func field
// fails the expression when called.
type PageFuncs struct {
	// Exists reports whether the selector matches at least one element now.
	Exists func(selector string) (bool, error) `expr:"exists"`
	// Count is the number of elements the selector matches now.
	Count func(selector string) (int, error) `expr:"count"`
	// URL is the current URL.
	URL func() (string, error) `expr:"url"`
	// Title is the current document title.
	Title func() (string, error) `expr:"title"`
}

// Static types used for names in the compile-time env.
var (
	typeString  = types.String
	typeInt     = types.Int
	typeFloat   = types.Float64
	typeBool    = types.Bool
	typeList    = types.TypeOf([]any{})
	typeMap     = types.TypeOf(map[string]any{})
	typePage    = structType{reflect.TypeOf(PageFuncs{})}
	typeDialogs = types.TypeOf(func() []map[string]any { return nil })
	typeLoop    = types.Map{"index": types.Int, "first": types.Bool, "last": types.Bool}
	typeCatch   = types.Map{"message": types.String, "action": types.String, "line": types.Int,
		"code": types.Int, "kind": types.String}
)

// structType is a types.Type for a struct whose Nature carries its struct
// data: expr v1.17.8's types.TypeOf(struct) builds a Nature without it and
// the compiler then panics on field access. Each call uses a fresh cache, so
// concurrent compiles share nothing.
type structType struct{ t reflect.Type }

// Nature builds the struct nature with a fresh cache.
func (s structType) Nature() nature.Nature { return new(nature.Cache).FromType(s.t) }

// Equal is true for the same struct type or any.
func (s structType) Equal(t types.Type) bool {
	o, ok := t.(structType)
	return t == types.Any || (ok && o.t == s.t)
}

// String is the Go type name.
func (s structType) String() string { return s.t.String() }

// Stringify renders a value the way it appears inside "{{ }}": strings bare,
// integers and floats in their shortest plain form (no exponent for
// integral floats below 1e15), bools as true/false, nil as "", anything else
// as compact JSON (map keys sorted). It never fails: a value JSON cannot
// encode falls back to fmt's %v via reflection-free best effort.
func Stringify(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case uint:
		return strconv.FormatUint(uint64(x), 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		return formatFloat(x)
	case float32:
		return formatFloat(float64(x))
	case []byte:
		return string(x)
	case json.Number:
		return x.String()
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16:
		return strconv.FormatInt(rv.Int(), 10)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return strconv.FormatUint(rv.Uint(), 10)
	case reflect.String:
		return rv.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "<" + rv.Type().String() + ">"
	}
	return string(b)
}

func formatFloat(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
