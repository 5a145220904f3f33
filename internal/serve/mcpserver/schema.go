package mcpserver

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/rpa-dev/rpa/lang/ast"
)

// ToolPrefix is the prefix of every flow's tool name: flow NAME is served as
// workflow_NAME (PROTOCOL.md, "Tools").
const ToolPrefix = "workflow_"

// ProfileArg is the optional argument of every workflow tool that picks the
// browser profile.
const ProfileArg = "profileId"

// ToolName is the MCP tool name of flow name.
func ToolName(flowName string) string { return ToolPrefix + flowName }

// Schema is the JSON Schema of a tool's input built from a flow's params,
// ready to send (JSON bytes) and to validate arguments with.
type Schema struct {
	// JSON is the schema as sent in tools/list.
	JSON json.RawMessage
	// props holds one resolved schema per property, to validate each
	// argument on its own and name it in the error.
	props    map[string]*jsonschema.Resolved
	required []string
}

// paramSchema is the JSON Schema of one param (PROTOCOL.md's table).
func paramSchema(p *ast.Param) (*jsonschema.Schema, error) {
	s := &jsonschema.Schema{Description: p.Description}
	secret := false
	switch p.Type.Name {
	case "string":
		s.Type = "string"
	case "secret":
		s.Type = "string"
		s.Format = "password"
		s.WriteOnly = true
		secret = true
	case "int":
		s.Type = "integer"
	case "number":
		s.Type = "number"
	case "bool":
		s.Type = "boolean"
	case "list":
		s.Type = "array"
	case "map":
		s.Type = "object"
	case "enum":
		s.Type = "string"
		for _, v := range p.Type.Values {
			s.Enum = append(s.Enum, v)
		}
	default:
		return nil, fmt.Errorf("param %q: unknown type %q", p.Name, p.Type.Name)
	}
	if p.Default != nil && !secret {
		v, err := LiteralValue(p.Default)
		if err != nil {
			return nil, fmt.Errorf("param %q: default: %w", p.Name, err)
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("param %q: default: %w", p.Name, err)
		}
		s.Default = raw
	}
	return s, nil
}

// LiteralValue converts a param default literal (string, number, bool, null,
// list or map of literals) to its JSON value. An interpolating string or
// any other expression is an error.
func LiteralValue(e ast.Expr) (any, error) {
	switch e := e.(type) {
	case *ast.StringLit:
		v, ok := e.Value()
		if !ok {
			return nil, fmt.Errorf("%s: a default cannot interpolate {{ }}", e.Range)
		}
		return v, nil
	case *ast.NumberLit:
		return e.Value, nil
	case *ast.BoolLit:
		return e.Value, nil
	case *ast.NullLit:
		return nil, nil
	case *ast.ListLit:
		out := make([]any, 0, len(e.Elems))
		for _, el := range e.Elems {
			v, err := LiteralValue(el)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case *ast.MapLit:
		out := make(map[string]any, len(e.Entries))
		for _, en := range e.Entries {
			k, ok := en.Key.(*ast.StringLit)
			ks, ok2 := "", false
			if ok {
				ks, ok2 = k.Value()
			}
			if !ok2 {
				return nil, fmt.Errorf("%s: a map key in a default must be a plain string", en.Range)
			}
			v, err := LiteralValue(en.Value)
			if err != nil {
				return nil, err
			}
			out[ks] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: not a literal", e.Rng())
}

// InputSchema builds the inputSchema of flow f's tool: one property per
// param in declaration order (type, description, default, enum; a secret
// has "format":"password" and "writeOnly":true and never a default),
// `required` listing the params without a default, plus the optional
// profileId. Extra arguments are refused (additionalProperties false).
func InputSchema(f *ast.File) (*Schema, error) {
	root := &jsonschema.Schema{
		Type:                 "object",
		Properties:           map[string]*jsonschema.Schema{},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		Required:             []string{},
	}
	out := &Schema{props: map[string]*jsonschema.Resolved{}}
	for _, p := range f.Params {
		if p.Name == ProfileArg || p.Name == ResumeRunArg || p.Name == ResumeFromArg {
			return nil, fmt.Errorf("param %q: the name is reserved for the profile and resume arguments", p.Name)
		}
		if _, dup := root.Properties[p.Name]; dup {
			return nil, fmt.Errorf("param %q declared twice", p.Name)
		}
		ps, err := paramSchema(p)
		if err != nil {
			return nil, err
		}
		root.Properties[p.Name] = ps
		root.PropertyOrder = append(root.PropertyOrder, p.Name)
		if p.Default == nil {
			root.Required = append(root.Required, p.Name)
		}
	}
	root.Properties[ProfileArg] = &jsonschema.Schema{Type: "string", Description: "Browser profile ID (optional override)"}
	root.PropertyOrder = append(root.PropertyOrder, ProfileArg)
	// resume.go: resume a failed run of this tool (the other arguments are then ignored).
	root.Properties[ResumeRunArg] = &jsonschema.Schema{Type: "string", Description: "Resume this failed run (its runId) from its failed line"}
	root.Properties[ResumeFromArg] = &jsonschema.Schema{Type: "integer", Description: "With resumeRunId, the line to resume from"}
	root.PropertyOrder = append(root.PropertyOrder, ResumeRunArg, ResumeFromArg)
	if err := out.compile(root); err != nil {
		return nil, err
	}
	return out, nil
}

// compile resolves every property of root and renders root as JSON.
func (s *Schema) compile(root *jsonschema.Schema) error {
	for name, ps := range root.Properties {
		// Validate a copy without the default: the default is applied by
		// the runtime, and a type mismatch there is a check error.
		c := *ps
		c.Default = nil
		r, err := c.Resolve(nil)
		if err != nil {
			return fmt.Errorf("property %q: %w", name, err)
		}
		s.props[name] = r
	}
	s.required = root.Required
	raw, err := json.Marshal(root)
	if err != nil {
		return err
	}
	s.JSON = raw
	return nil
}

// schemaOf builds a Schema from a literal JSON Schema (built-in tools).
func schemaOf(src string) *Schema {
	var root jsonschema.Schema
	if err := json.Unmarshal([]byte(src), &root); err != nil {
		panic("mcpserver: bad built-in schema: " + err.Error())
	}
	s := &Schema{props: map[string]*jsonschema.Resolved{}}
	if err := s.compile(&root); err != nil {
		panic("mcpserver: bad built-in schema: " + err.Error())
	}
	s.JSON = json.RawMessage(compactJSON(src))
	return s
}

func compactJSON(src string) string {
	var b strings.Builder
	var v any
	if err := json.Unmarshal([]byte(src), &v); err != nil {
		return src
	}
	raw, _ := json.Marshal(v)
	b.Write(raw)
	return b.String()
}

// ArgError is an argument that does not match a tool's inputSchema; the
// server answers it with JSON-RPC error -32602 naming Field.
type ArgError struct {
	Field string
	Msg   string
}

// Error is `invalid argument "FIELD": MSG`.
func (e *ArgError) Error() string {
	if e.Field == "" {
		return "invalid arguments: " + e.Msg
	}
	return fmt.Sprintf("invalid argument %q: %s", e.Field, e.Msg)
}

// Validate checks args (decoded JSON) against the schema: unknown
// arguments, missing required ones, then each value against its property,
// in a stable order (required list first, then names sorted). The error is
// an *ArgError naming the first bad field. Values are never echoed for
// properties marked writeOnly (secrets).
func (s *Schema) Validate(args map[string]any) error {
	for k := range args {
		if _, ok := s.props[k]; !ok {
			return &ArgError{Field: k, Msg: "unknown argument"}
		}
	}
	_, resuming := args[ResumeRunArg] // resume.go: the held run's arguments are used
	for _, r := range s.required {
		if _, ok := args[r]; !ok && !resuming {
			return &ArgError{Field: r, Msg: "required argument missing"}
		}
	}
	for _, k := range sortedKeys(args) {
		rs := s.props[k]
		if err := rs.Validate(args[k]); err != nil {
			msg := err.Error()
			if args[k] == nil { // jsonschema-go says `<invalid reflect.Value> has type "null"`
				msg = "want " + wantWord(rs.Schema().Type) + ", got null"
			} else if rs.Schema().WriteOnly {
				msg = "wrong type or value (secret, value not shown)"
			} else if i := strings.LastIndex(msg, ": "); i >= 0 && strings.HasPrefix(msg, "validating") {
				msg = msg[i+2:]
			}
			return &ArgError{Field: k, Msg: shortValidation(msg, rs.Schema())}
		}
	}
	return nil
}

// wantWord names a JSON Schema type in the words of interp's argument
// errors ("want an integer, got null").
func wantWord(t string) string {
	switch t {
	case "integer":
		return "an integer"
	case "number":
		return "a number"
	case "string":
		return "a string"
	case "boolean":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "a map"
	}
	return "a value"
}

// shortValidation turns jsonschema-go's message into a terse one; the
// library's text is kept when it is not a type or enum failure.
func shortValidation(msg string, s *jsonschema.Schema) string {
	switch {
	case strings.HasPrefix(msg, "type: "):
		return strings.TrimPrefix(msg, "type: ")
	case len(s.Enum) > 0:
		vals := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			vals[i] = fmt.Sprint(v)
		}
		return "want one of " + strings.Join(vals, ", ")
	}
	return msg
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
