package check

import (
	"fmt"

	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser/lexer"
)

// MaxExprDepth bounds how deeply one expression nests: brackets, and the
// operators expr-lang's parser meets by recursing (unary operators,
// ternaries, right-associative ** and ^, let, if/else if), counted
// together, inside `{{ }}` interpolations too. expr-lang's parser and
// checker recurse once per level, and a Go stack that overflows kills the
// process (`rpa check`, `rpa ui`, `rpa serve`): a flow nested past this is
// an error, never a crash. Expressions of real flows nest a few levels.
const MaxExprDepth = 100

// MaxInterpDepth bounds how deeply string literals with `{{ }}` nest
// inside the expressions of interpolations ("{{ '{{ x }}' }}").
const MaxInterpDepth = 8

// NestingError says why expression source src nests too deeply to be
// parsed ("expression nested too deeply ..."), nil when it does not. It
// reads src with expr-lang's lexer, which loops and never recurses.
// Importers call it before they parse an expression of their input.
func NestingError(src string) error {
	toks, err := lexer.Lex(file.NewSource(src))
	if err != nil {
		return nil // expr reports the lexical error itself
	}
	// levels[i] counts the recursion the parser will be in at bracket
	// depth i: the bracket itself plus the operators met inside it.
	levels := []int{0}
	total := 0
	prev := lexer.Token{Kind: lexer.Operator, Value: "("}
	for _, t := range toks {
		switch {
		case t.Is(lexer.Bracket, "(", "[", "{"):
			levels = append(levels, 1)
			total++
		case t.Is(lexer.Bracket, ")", "]", "}"):
			if len(levels) > 1 {
				total -= levels[len(levels)-1]
				levels = levels[:len(levels)-1]
			}
		case t.Is(lexer.Operator, "?", "**", "^", "let", "if"),
			t.Is(lexer.Operator, "!", "not", "-", "+") && (prev.Kind == lexer.Operator || prev.Is(lexer.Bracket, "(", "[", "{")):
			levels[len(levels)-1]++
			total++
		}
		if total > MaxExprDepth {
			return fmt.Errorf("expression nested too deeply (more than %d levels of brackets and unary, ternary or right-associative operators)", MaxExprDepth)
		}
		prev = t
	}
	return nil
}
