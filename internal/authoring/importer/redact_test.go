package importer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang/diag"
)

// TestRedactDiagnosticSource: the warning about a dropped recorded password
// quotes its source line; shown through Redact, that line (and a URL that
// carried the value) never shows the value, in any spelling.
func TestRedactDiagnosticSource(t *testing.T) {
	tests := []struct {
		name, file, src string
		leaks           []string
	}{
		{"side one line", "t.side", `{"id":"p1","version":"2.0","name":"t","url":"http://127.0.0.1:8080","tests":[{"id":"t1","name":"login","commands":[
{"id":"c1","command":"open","target":"/login?p=Hunter%202%26x%3D%C3%BC","value":""},
{"id":"c2","command":"type","target":"id=password","value":"Hunter 2&x=ü"},
{"id":"c3","command":"click","target":"id=go","value":""}]}],"suites":[],"urls":["http://127.0.0.1:8080"]}
`, []string{"Hunter"}},
		{"side store", "s.side", `{"id":"p1","version":"2.0","name":"t","url":"http://h","tests":[{"id":"t1","name":"x","commands":[
{"id":"c1","command":"store","target":"pa\"ss<w>","value":"password"},
{"id":"c2","command":"type","target":"id=pw","value":"${password}"}]}],"suites":[],"urls":["http://h"]}
`, []string{`pa\"ss`, `pa\u0022ss`, "ss\\u003cw"}},
		{"chrome", "c.json", `{"title":"c","steps":[{"type":"navigate","url":"http://127.0.0.1:8080/login"},
{"type": "change", "value": "s3cret-9", "selectors": [["#password"]], "target": "main"}]}
`, []string{"s3cret-9"}},
		{"chrome short", "c.json", `{"title":"c","steps":[{"type":"navigate","url":"http://127.0.0.1:8080/login"},
{"type": "change", "value": "ab", "selectors": [["#password"]], "target": "main"}]}
`, []string{`"ab"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			_, ds := Import(tt.file, src, Options{})
			dropped := 0
			for _, d := range ds {
				if strings.Contains(d.Summary, "recorded password value dropped") {
					dropped++
				}
			}
			if dropped == 0 {
				t.Fatalf("no password dropped: %v", ds)
			}
			var out bytes.Buffer
			shown := Redact(tt.file, src, Options{})
			if err := diag.Render(&out, ds, func(string) []byte { return shown }); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), `"***"`) {
				t.Errorf("the value is not shown as ***:\n%s", out.String())
			}
			for _, leak := range tt.leaks {
				if strings.Contains(out.String(), leak) || bytes.Contains(shown, []byte(leak)) {
					t.Errorf("%s shows:\n%s\n%s", leak, out.String(), shown)
				}
			}
			if string(src) != tt.src {
				t.Error("src modified")
			}
		})
	}
}
