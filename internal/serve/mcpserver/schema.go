package mcpserver

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/rpa-dev/rpa/lang"
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

// Schema is the JSON Schema of a built-in tool's input (a flow's tool
// takes its schema and its check from the flow: lang.Flow.InputSchema,
// flowCall), ready to send (JSON bytes) and to validate arguments with.
type Schema struct {
	// JSON is the schema as sent in tools/list.
	JSON json.RawMessage
	// props holds one resolved schema per property, to validate each
	// argument on its own and name it in the error.
	props    map[string]*jsonschema.Resolved
	required []string
}

// paramSchema is a param's JSON Schema (lang.ParamSchema) for a schema
// built here (a step tool's).
func paramSchema(p *ast.Param) (*jsonschema.Schema, error) {
	ps, err := lang.ParamSchema(p)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(ps)
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return &s, nil
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

// Error is `invalid argument "FIELD": MSG`, FIELD quoted with lang.Echo
// (an unknown argument's name is the caller's text).
func (e *ArgError) Error() string {
	if e.Field == "" {
		return "invalid arguments: " + e.Msg
	}
	return fmt.Sprintf("invalid argument %s: %s", lang.Echo(e.Field), e.Msg)
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
			var msg string
			switch {
			case args[k] == nil: // jsonschema-go says `<invalid reflect.Value> has type "null"`
				msg = "want " + wantWord(rs.Schema().Type) + ", got null"
			case rs.Schema().WriteOnly:
				msg = "wrong type or value (secret, value not shown)"
			default:
				msg = shortValidation(err.Error(), rs.Schema(), args[k])
			}
			return &ArgError{Field: k, Msg: msg}
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

// shortValidation turns jsonschema-go's message about value v into a
// terse one that quotes no long text: the library quotes a string whole
// when it fails maxLength, minLength or pattern (at any depth), shown here
// by lang.Echo.
func shortValidation(msg string, s *jsonschema.Schema, v any) string {
	if str, ok := v.(string); ok {
		switch {
		case strings.Contains(msg, "maxLength: ") && s.MaxLength != nil:
			return fmt.Sprintf("too long (%d characters; at most %d)", utf8.RuneCountInString(str), *s.MaxLength)
		case strings.Contains(msg, "minLength: ") && s.MinLength != nil:
			return fmt.Sprintf("too short (%d characters; at least %d)", utf8.RuneCountInString(str), *s.MinLength)
		case strings.Contains(msg, "pattern: ") && s.Pattern != "":
			return fmt.Sprintf("%s does not match %s", lang.Echo(str), s.Pattern)
		}
	}
	for _, key := range []string{"maxLength: ", "minLength: ", "pattern: "} {
		msg = echoQuoted(msg, key)
	}
	if i := strings.LastIndex(msg, ": "); i >= 0 && strings.HasPrefix(msg, "validating") && !strings.Contains(msg, "pattern: ") && !strings.Contains(msg, "Length: ") {
		msg = msg[i+2:]
	}
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

// echoQuoted replaces the Go-quoted string after key in msg with lang.Echo
// of it.
func echoQuoted(msg, key string) string {
	i := strings.Index(msg, key)
	if i < 0 {
		return msg
	}
	rest := msg[i+len(key):]
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return msg
	}
	s, err := strconv.Unquote(q)
	if err != nil {
		return msg
	}
	return msg[:i+len(key)] + lang.Echo(s) + rest[len(q):]
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
