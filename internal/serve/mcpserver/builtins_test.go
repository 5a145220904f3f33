package mcpserver

import (
	"encoding/json"
	"testing"
)

func TestMaskValue(t *testing.T) {
	secrets := []string{"hunter2"}
	in := map[string]any{"a": "pw=hunter2", "b": []any{"hunter2", 3}, "c": map[string]any{"headers": []any{"x"}, "rows": []any{[]any{"hunter2!"}}}}
	raw, _ := json.Marshal(maskValue(in, secrets))
	want := `{"a":"pw=***","b":["***",3],"c":{"headers":["x"],"rows":[["***!"]]}}`
	if string(raw) != want {
		t.Errorf("got  %s\nwant %s", raw, want)
	}
	if got := jsonEscaped([]string{`a"b\c`, "ab"}); len(got) != 1 || got[0] != `a\"b\\c` {
		t.Errorf("jsonEscaped = %q", got)
	}
}
