package lang

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/rpa-dev/rpa/lang/ast"
)

// Property is the JSON Schema of one property of a tool's input: a param's
// (ParamSchema) or an argument a host adds beside the params (profileId,
// resumeRunId). Fields are in the order they are sent.
type Property struct {
	Type        string          `json:"type"`
	Description string          `json:"description,omitempty"`
	WriteOnly   bool            `json:"writeOnly,omitempty"`
	Format      string          `json:"format,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`
	Enum        []string        `json:"enum,omitempty"`
}

// HostArg is an argument a host adds to a flow's tool beside its params;
// the host takes it out of a call's arguments before the check.
type HostArg struct {
	Name string
	Property
}

// ParamSchema is the JSON Schema of a param (PROTOCOL.md, "Tools"):
// string, secret (a string with "format":"password" and "writeOnly":true,
// never a default), int (integer), number, bool (boolean), list (array),
// map (object), enum (a string with its values); its description, and its
// default as JSON.
func ParamSchema(p *ast.Param) (Property, error) {
	s := Property{Description: p.Description}
	t := typeOf(p)
	switch t {
	case "string":
		s.Type = "string"
	case "secret":
		s.Type, s.Format, s.WriteOnly = "string", "password", true
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
		s.Enum = append([]string{}, p.Type.Values...)
	case "credential":
		// The account's name: the host adds the vault's matching names as
		// its enum (never a value of an account).
		s.Type = "string"
	default:
		return Property{}, fmt.Errorf("param %q: unknown type %q", p.Name, t)
	}
	if p.Default != nil && t != "secret" {
		v, err := Literal(p.Default)
		if err != nil {
			return Property{}, fmt.Errorf("param %q: default: %w", p.Name, err)
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return Property{}, fmt.Errorf("param %q: default: %w", p.Name, err)
		}
		s.Default = raw
	}
	return s, nil
}

// InputSchema is the JSON Schema of the input of f's tool: an object with
// one property per param in declaration order (ParamSchema), then the
// host's arguments in the order given; `required` lists the params without
// a default (left out when there are none); other names are refused ("additionalProperties": false). A
// param named like a host argument, or declared twice, is an error.
func (f *Flow) InputSchema(host ...HostArg) (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	seen := map[string]bool{}
	for _, h := range host {
		seen[h.Name] = true
	}
	required := []string{}
	prop := func(name string, p Property) error {
		if b.Bytes()[b.Len()-1] != '{' {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(name)
		v, err := json.Marshal(p)
		if err != nil {
			return err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
		return nil
	}
	params := map[string]bool{}
	for _, p := range f.File.Params {
		if seen[p.Name] {
			return nil, fmt.Errorf("param %q: the name is reserved for an argument of the host (%s)", p.Name, hostNames(host))
		}
		if params[p.Name] {
			return nil, fmt.Errorf("param %q declared twice", p.Name)
		}
		params[p.Name] = true
		ps, err := ParamSchema(p)
		if err != nil {
			return nil, err
		}
		if err := prop(p.Name, ps); err != nil {
			return nil, err
		}
		if p.Default == nil {
			required = append(required, p.Name)
		}
	}
	for _, h := range host {
		if err := prop(h.Name, h.Property); err != nil {
			return nil, err
		}
	}
	b.WriteString(`}`)
	if len(required) > 0 {
		req, _ := json.Marshal(required)
		b.WriteString(`,"required":`)
		b.Write(req)
	}
	b.WriteString(`,"additionalProperties":false}`)
	return b.Bytes(), nil
}

func hostNames(host []HostArg) string {
	var b bytes.Buffer
	for i, h := range host {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(h.Name)
	}
	return b.String()
}
