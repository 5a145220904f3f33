package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang/ast"
)

// TestAuthoringSchemaBounds: the authoring tools' inputSchemas state the
// bounds their handlers check (a flow NAME: pattern and at most
// ast.MaxFlowName; a param or output name; a profile ID), so an agent
// reads them before it calls; a value past a bound is refused naming the
// field and its length, never quoting a long value (jsonschema-go's own
// message quoted it whole).
func TestAuthoringSchemaBounds(t *testing.T) {
	sc := authSchemas()
	var save struct {
		Properties map[string]struct {
			Pattern   string
			MaxLength *int
		}
	}
	if err := json.Unmarshal(sc.save.JSON, &save); err != nil {
		t.Fatal(err)
	}
	if n := save.Properties["name"]; n.MaxLength == nil || *n.MaxLength != ast.MaxFlowName || n.Pattern != "^[a-z][a-z0-9_]*$" {
		t.Errorf("flow_save name: %+v", n)
	}
	if p := save.Properties["profileId"]; p.MaxLength == nil || *p.MaxLength != 64 || p.Pattern == "" {
		t.Errorf("flow_save profileId: %+v", p)
	}
	long := "a" + strings.Repeat("b", 5<<20)
	for _, c := range []struct {
		what string
		s    *Schema
		args map[string]any
		want string
	}{
		{"flow_save name too long", sc.save, map[string]any{"name": long}, `invalid argument "name": too long (5242881 characters; at most 119)`},
		{"flow_save bad name", sc.save, map[string]any{"name": "Bad Name"}, `invalid argument "name": "Bad Name" does not match ^[a-z][a-z0-9_]*$`},
		{"flow_preview name too long", sc.preview, map[string]any{"name": long}, "too long (5242881 characters; at most 119)"},
		{"browser_fill param", sc.fill, map[string]any{"ref": "e1", "value": "v", "param": "-" + long}, "a text too long to show (5242882 bytes) does not match"},
		{"browser_read as", sc.read, map[string]any{"action": "text", "as": "-x"}, `"-x" does not match`},
		{"params[].name", sc.save, map[string]any{"name": "f", "params": []any{map[string]any{"name": "-" + long}}}, "params"},
		{"profileId", sc.click, map[string]any{"ref": "e1", "profileId": strings.Repeat("p", 65)}, "too long (65 characters; at most 64)"},
	} {
		err := c.s.Validate(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) || len(err.Error()) > 600 {
			t.Errorf("%s: %.300v", c.what, err)
		}
	}
	for _, ok := range []map[string]any{{"name": "detour"}, {"name": strings.Repeat("a", ast.MaxFlowName)}} {
		if err := sc.save.Validate(ok); err != nil {
			t.Errorf("%v: %v", ok["name"], err)
		}
	}
}
