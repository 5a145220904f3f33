package actions

import "github.com/rpa-dev/rpa/lang/ast"

// Calls lists the action statements under n that take a flow name (`call`),
// in source order.
func Calls(n ast.Node) []*ast.ActionStmt {
	var out []*ast.ActionStmt
	ast.Walk(n, func(n ast.Node) bool {
		if s, ok := n.(*ast.ActionStmt); ok {
			if a := Lookup(s.Action); a != nil && a.FlowParam() >= 0 {
				out = append(out, s)
			}
		}
		return true
	})
	return out
}

// Callees lists the flow names the calls under n name, once each, in source
// order. A call whose flow argument is not a plain string (none after a
// clean parse) is left out.
func Callees(n ast.Node) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range Calls(n) {
		i := Lookup(s.Action).FlowParam()
		if i >= len(s.Args) {
			continue
		}
		if lit, ok := s.Args[i].(*ast.StringLit); ok {
			if v, plain := lit.Value(); plain && !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}
