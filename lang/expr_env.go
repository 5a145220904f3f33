package lang

import "github.com/rpa-dev/rpa/lang/check"

// Run-time env contract (the interpreter follows it exactly).
//
// Every program returned by Flow.Program was compiled against a typed env
// whose names are exactly those visible at that point of the flow. Run it
// with expr.Run(prog, env) where env is a map[string]any holding:
//
//	name                          Go value
//	----------------------------  ---------------------------------------------
//	param string / secret / enum  string (a secret is the plain string here;
//	                              masking is done where values are shown)
//	param int                     int
//	param number                  float64
//	param bool                    bool
//	param list                    []any
//	param map                     map[string]any
//	bound names, loop variables   the value (string, int, float64, bool, nil,
//	                              []any, map[string]any, ...); an action result
//	                              as its kind says (ResultString: string,
//	                              ResultMap: map[string]any, ResultList: []any)
//	"loop" (in a for body)        LoopValue(index, total)
//	catch variable                CatchValue(message, action, line, code, kind)
//	"page"                        a PageFuncs value (not a pointer)
//	"dialogs"                     func() []map[string]any (each {"type", "message"})
//
// Extra names do no harm; a missing name fails the expression at run time.
// The "{{ }}" helper inside expression strings is compiled into the program
// and is never part of the env. Params of type int should be passed as int
// (int64 works for arithmetic and comparisons too).

// PageFuncs is the value of `page` in expressions: exists(sel) bool,
// count(sel) int, url() string, title() string. Each func may return an
// error, which fails the expression.
type PageFuncs = check.PageFuncs

// Stringify is how a value is shown inside "{{ }}": strings bare, numbers
// plain (integral floats without a fraction), nil as "", bools as
// true/false, anything else as compact JSON.
func Stringify(v any) string { return check.Stringify(v) }

// LoopValue is the value of `loop` for the iteration index (0-based) of
// total iterations: {"index": index, "first": index == 0, "last": index ==
// total-1}.
func LoopValue(index, total int) map[string]any {
	return map[string]any{"index": index, "first": index == 0, "last": index == total-1}
}

// CatchValue is the value of a `catch NAME` variable: the fields of a
// result's error (message, action, line, code, kind).
func CatchValue(message, action string, line, code int, kind string) map[string]any {
	return map[string]any{"message": message, "action": action, "line": line, "code": code, "kind": kind}
}
