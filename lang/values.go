package lang

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
)

// Literal is the value of a literal (a param default, a `defaults` value, a
// bare flow name): strings without {{ }}, numbers (integers as int, as in
// the expression env, others float64), bools, null (nil), durations
// (time.Duration), and lists ([]any) and maps (map[string]any; a key that
// is not a string is shown as in "{{ }}", Stringify) of literals. Anything
// else is an error naming its position.
func Literal(e ast.Expr) (any, error) {
	switch x := e.(type) {
	case nil:
		return nil, nil
	case *ast.StringLit:
		if v, ok := x.Value(); ok {
			return v, nil
		}
		return nil, fmt.Errorf("%s: not a literal: a string with {{ }}", x.Range)
	case *ast.NumberLit:
		switch n := x.Value.(type) {
		case int64:
			return int(n), nil
		case int:
			return n, nil
		case float64:
			return n, nil
		}
		return x.Value, nil
	case *ast.BoolLit:
		return x.Value, nil
	case *ast.NullLit:
		return nil, nil
	case *ast.DurationLit:
		return x.Value, nil
	case *ast.ListLit, *ast.MapLit:
		return Collection(e, Literal)
	}
	return nil, fmt.Errorf("%s: not a literal", e.Rng())
}

// Collection is the value of a list or map literal whose elements (and map
// keys) are evaluated with elem: a []any, or a map[string]any whose keys
// that are not strings are shown as in "{{ }}" (Stringify).
func Collection(e ast.Expr, elem func(ast.Expr) (any, error)) (any, error) {
	switch x := e.(type) {
	case *ast.ListLit:
		out := make([]any, len(x.Elems))
		for i, el := range x.Elems {
			v, err := elem(el)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *ast.MapLit:
		out := make(map[string]any, len(x.Entries))
		for _, en := range x.Entries {
			k, err := elem(en.Key)
			if err != nil {
				return nil, err
			}
			v, err := elem(en.Value)
			if err != nil {
				return nil, err
			}
			out[Stringify(k)] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: not a list or map", e.Rng())
}

// TypeName names the kind of a flow value for error messages: "null", "a
// string", "a bool", "a number", "a list", "a map" (else "a T" with its Go
// type).
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a bool"
	case int, int64, int32, float64, float32, uint, uint64:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	}
	return fmt.Sprintf("a %T", v)
}

// ToInt converts an integral number (int, int64, int32, an integral
// float64 below 2^53) to int.
func ToInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case int32:
		return int(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int(x), true
		}
	}
	return 0, false
}

// ToDuration converts a time.Duration, or a string such as "500ms" or
// "1m30s" (not negative), to a duration.
func ToDuration(v any) (time.Duration, bool) {
	switch x := v.(type) {
	case time.Duration:
		return x, true
	case string:
		d, err := time.ParseDuration(x)
		return d, err == nil && d >= 0
	}
	return 0, false
}

// OptionValue is v as an option of spec's kind holds it (lang/actions):
// KindDuration a time.Duration (from a duration or a string such as "2s"),
// KindInt a non-negative int, KindBool a bool, KindString a string (one of
// spec.Enum when it lists values); other kinds take v as it is. The error
// says what was wanted: "must be a duration, got a string".
func OptionValue(spec *actions.Option, v any) (any, error) {
	switch spec.Kind {
	case actions.KindDuration:
		if d, ok := ToDuration(v); ok {
			return d, nil
		}
		return nil, fmt.Errorf("must be a duration, got %s", TypeName(v))
	case actions.KindInt:
		if n, ok := ToInt(v); ok && n >= 0 {
			return n, nil
		}
		return nil, fmt.Errorf("must be a non-negative integer, got %s", TypeName(v))
	case actions.KindBool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return nil, fmt.Errorf("must be true or false, got %s", TypeName(v))
	case actions.KindString:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("must be a string, got %s", TypeName(v))
		}
		if len(spec.Enum) > 0 && !slices.Contains(spec.Enum, s) {
			return nil, fmt.Errorf("must be one of %s, got %q", strings.Join(spec.Enum, ", "), s)
		}
		return s, nil
	}
	return v, nil
}
