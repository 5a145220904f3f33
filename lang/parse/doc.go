// Package parse reads the .flow text form of a flow into the closed AST of
// lang/ast (see docs/spec/LANGUAGE.md, "Lexical rules" and
// "Statements").
//
// How it works: a hand-written stateful Scanner (internal/grammar) turns the
// source into tokens; a line splitter cuts them into logical lines (a
// newline ends a statement unless a ( [ or { is open), decides what '{' and
// '#' mean there, and marks context-dependent tokens (action keywords,
// option keys, glued . [ ( of name paths); each logical line is parsed by a
// participle/v2 grammar; the blocks are assembled without recursion, so the
// nesting limits (MaxBlockDepth, MaxBracketDepth) are errors, never stack
// overflows. Full expressions keep their exact source text (ast.ExprSrc).
//
// The most common line shape — an action whose arguments and option values
// are literal tokens, name paths or lists of single tokens — is recognised by
// a small hand-written fast path that builds the very structs the grammar
// would (grammar.FastPath; every test and fuzz input is parsed both ways and
// must agree); everything else goes through participle.
//
// Positions: Line and Col are 1-based, Col counts bytes; Offset is the
// byte offset in src. A leading UTF-8 BOM is skipped and not counted in the
// columns of line 1 (offsets do count it). CRLF line ends and tabs are
// accepted.
//
// Errors are collected, one or more per bad line, with exact positions; the
// parser resynchronises at the next line.
package parse
