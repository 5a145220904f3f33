package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportWarningHidesPassword: the "recorded password value dropped"
// warning quotes its source line with the value as ***, for a Selenium IDE
// project and a Chrome Recorder recording written one step per line.
func TestImportWarningHidesPassword(t *testing.T) {
	dir := t.TempDir()
	inputs := map[string]string{
		"t.side": `{"id":"p1","version":"2.0","name":"t","url":"http://127.0.0.1:8080","tests":[{"id":"t1","name":"login","commands":[
{"id":"c1","command":"open","target":"/login","value":""},
{"id":"c2","command":"type","target":"id=password","value":"Hunter 2&x=ü"},
{"id":"c3","command":"click","target":"id=go","value":""}]}],"suites":[],"urls":["http://127.0.0.1:8080"]}
`,
		"c.json": `{"title":"c","steps":[{"type":"navigate","url":"http://127.0.0.1:8080/login"},
{"type": "change", "value": "Hunter 2&x=ü", "selectors": [["#password"]], "target": "main"}]}
`,
	}
	for name, src := range inputs {
		in := filepath.Join(dir, name)
		if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		r := rpaRun(t, "import", in, "-o", filepath.Join(dir, name+".out"))
		all := r.stdout + r.stderr
		if r.code != 0 || !strings.Contains(all, "recorded password value dropped") || !strings.Contains(all, `"value": "***"`) && !strings.Contains(all, `"value":"***"`) {
			t.Errorf("%s: exit %d:\n%s", name, r.code, all)
		}
		if strings.Contains(all, "Hunter") {
			t.Errorf("%s: the recorded password shows:\n%s", name, all)
		}
	}
}
