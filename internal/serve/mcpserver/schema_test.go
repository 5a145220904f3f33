package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/rpa-dev/rpa/lang"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestToolGolden renders the tool definition of every testdata flow and
// compares it with its golden JSON (refresh with -update).
func TestToolGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/schema/*.flow")
	flows, _ := filepath.Glob("testdata/flows/*.flow")
	files = append(files, flows...)
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			f, ds := lang.LoadFile(file)
			if f == nil {
				t.Fatalf("load: %v", ds)
			}
			def, err := FlowTool(f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(def, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := strings.TrimSuffix(file, ".flow") + ".tool.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("tool definition differs from %s:\n%s", golden, got)
			}
		})
	}
}

// TestInputSchemaShape checks the contract's rules on all_types directly,
// so a wrong golden cannot hide them.
func TestInputSchemaShape(t *testing.T) {
	f, ds := lang.LoadFile("testdata/schema/all_types.flow")
	if f == nil {
		t.Fatal(ds)
	}
	def, err := FlowTool(f)
	if err != nil {
		t.Fatal(err)
	}
	raw := def.InputSchema.(json.RawMessage)
	var m struct {
		Type       string                    `json:"type"`
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
		Additional any                       `json:"additionalProperties"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "not-in-schema") {
		t.Error("a secret's default leaked into the schema")
	}
	wantType := map[string]string{"s": "string", "pw": "string", "token": "string", "i": "integer", "x": "number",
		"b": "boolean", "l": "array", "m": "object", "e": "string", "profileId": "string"}
	for k, typ := range wantType {
		if m.Properties[k]["type"] != typ {
			t.Errorf("%s: type %v, want %s", k, m.Properties[k]["type"], typ)
		}
	}
	for _, k := range []string{"pw", "token"} {
		if m.Properties[k]["format"] != "password" || m.Properties[k]["writeOnly"] != true {
			t.Errorf("%s: not marked secret: %v", k, m.Properties[k])
		}
		if _, ok := m.Properties[k]["default"]; ok {
			t.Errorf("%s: secret has a default", k)
		}
	}
	if got := strings.Join(m.Required, ","); got != "s,token" {
		t.Errorf("required = %s, want s,token", got)
	}
	if m.Properties["i"]["default"] != 3.0 || m.Properties["e"]["default"] != "two" {
		t.Errorf("defaults: i=%v e=%v", m.Properties["i"]["default"], m.Properties["e"]["default"])
	}
	if m.Properties["profileId"]["description"] != "Browser profile ID (optional override)" {
		t.Errorf("profileId: %v", m.Properties["profileId"])
	}
	if m.Additional != false {
		t.Errorf("additionalProperties = %v", m.Additional)
	}
	// Property order follows the params.
	if i, j := strings.Index(string(raw), `"s":`), strings.Index(string(raw), `"profileId":`); i < 0 || j < i {
		t.Error("properties not in declaration order")
	}
}

// TestFlowCallArgs: a workflow call's arguments are checked once, by the
// flow (takeFlowCall: the server's own taken out, the rest by
// lang.Flow.CheckArgs); a bad one is -32602 naming the field, a secret's
// value never shown.
func TestFlowCallArgs(t *testing.T) {
	f, ds := lang.LoadFile("testdata/schema/all_types.flow")
	if f == nil {
		t.Fatal(ds)
	}
	s := &Server{}
	e := newFlowEntry("all_types.flow", f)
	for _, tc := range []struct {
		name  string
		args  string
		field string // "" = valid
	}{
		{"minimal", `{"s":"a","token":"t"}`, ""},
		{"all", `{"s":"a","token":"t","pw":"p","i":4,"x":2,"b":true,"l":[1],"m":{"a":1},"e":"one","profileId":"work"}`, ""},
		{"missing", `{"s":"a"}`, "token"},
		{"unknown", `{"s":"a","token":"t","regoin":"x"}`, "regoin"},
		{"string type", `{"s":5,"token":"t"}`, "s"},
		{"int type", `{"s":"a","token":"t","i":"3"}`, "i"},
		{"int fraction", `{"s":"a","token":"t","i":3.5}`, "i"},
		{"enum", `{"s":"a","token":"t","e":"three"}`, "e"},
		{"bool", `{"s":"a","token":"t","b":"yes"}`, "b"},
		{"list", `{"s":"a","token":"t","l":{}}`, "l"},
		{"secret type", `{"s":"a","token":12345}`, "token"},
		{"profile type", `{"s":"a","token":"t","profileId":1}`, "profileId"},
		{"profile id", `{"s":"a","token":"t","profileId":"../x"}`, "profileId"},
		{"resumeFrom alone", `{"s":"a","token":"t","resumeFrom":3}`, "resumeFrom"},
		{"resumeRunId type", `{"s":"a","token":"t","resumeRunId":7}`, "resumeRunId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var args map[string]any
			if err := json.Unmarshal([]byte(tc.args), &args); err != nil {
				t.Fatal(err)
			}
			fc, err := s.takeFlowCall(nil, e, args)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if !fc.args.For(f) || fc.profile == "" {
					t.Fatalf("flowCall %+v", fc)
				}
				return
			}
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != CodeInvalidParams || !strings.Contains(string(je.Data), `"field":"`+tc.field+`"`) {
				t.Fatalf("err = %v, want -32602 naming field %q", err, tc.field)
			}
			if !strings.Contains(je.Message, `"`+tc.field+`"`) && !strings.HasPrefix(tc.field, "resume") {
				t.Errorf("message %q does not name the field", je.Message)
			}
			if strings.Contains(je.Message, "12345") {
				t.Errorf("secret value echoed: %s", je.Message)
			}
		})
	}
}
