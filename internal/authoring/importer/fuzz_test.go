package importer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/diag"
	"github.com/rpa-dev/rpa/lang/format"
)

// FuzzImport: any input either yields diagnostics with errors or flows
// that print and load back with no error; it never panics.
func FuzzImport(f *testing.F) {
	for _, pat := range []string{"testdata/chrome/*.json", "testdata/side/*.side", "testdata/jsonflow/*.json"} {
		m, _ := filepath.Glob(pat)
		for _, p := range m {
			b, err := os.ReadFile(p)
			if err == nil && len(b) < 20000 {
				f.Add(filepath.Base(p), b)
			}
		}
	}
	// members of the wrong kind (errors naming them)
	f.Add("rec.json", []byte(`{"title": "t", "steps": [{"type": "setViewport", "width": "abc", "height": 600}, {"type": "scroll", "x": "10px"}, {"type": "click", "selectors": [["#a", 7]], "offsetX": "5", "frame": ["0"]}]}`))
	f.Add("p.side", []byte(`{"version": "2.0", "url": "http://h", "tests": [{"name": "t", "commands": [{"command": "open", "target": 123}, {"command": "click", "target": "id=a", "targets": [["id=a", 1]], "opensWindow": "yes"}]}]}`))
	f.Add("f.json", []byte(`{"name": "f", "steps": [{"type": "navigate", "attrs": {"url": 123}}, {"type": "wait", "attrs": {"seconds": "2"}}, {"type": "loop", "attrs": {"items": "xs", "var": "x"}, "body": {}}]}`))
	f.Fuzz(func(t *testing.T, name string, src []byte) {
		flows, ds := Import(name, src, Options{})
		if ds.HasErrors() {
			return
		}
		for _, fl := range flows {
			text := format.Flow(fl.File)
			if _, lds := lang.Load(fl.Name+".flow", text); lds.HasErrors() {
				for _, d := range lds {
					if d.Severity == diag.Error {
						t.Fatalf("imported flow does not load: %s\n%s", d.OneLine(), text)
					}
				}
			}
		}
	})
}

// FuzzFields puts arbitrary strings into the fields of well-formed
// recordings of the three formats (titles, selectors, values, variable
// names, commands): whatever they hold, the flows load clean.
func FuzzFields(f *testing.F) {
	f.Add("Sign in", "#password", "s3cret{{x}}", "id=user", "type", "${name}", "my var")
	f.Add("", "aria/Name[role=\"button\"]", "\"quoted\" \\ {{ '{{' }}", "css=a > b", "sendKeys", "a${KEY_ENTER}b", "page")
	f.Add("登录", "xpath///*[@id='x']", "{$from}", "linkText=It's \"x\"", "if", "${a} === 'b' && ${c} !== 2", "x.y")
	f.Add("x", "text/Go", "line\nbreak", "//div[1]", "store", "1.5e3", "password")
	for _, c := range [][2]string{{"while", "${n} < 3"}, {"times", "${n}"}, {"forEach", "item"}, {"selectFrame", "index=1"},
		{"selectWindow", "handle=${w}"}, {"executeScript", "return ${x}[0] + 1"}, {"storeAttribute", "css=a@href"},
		{"assertChecked", "x"}, {"select", "index=2"}, {"verifyText", "${a}b"}, {"storeWindowHandle", "w"}} {
		f.Add("t", "#a", "v", "id=a", c[0], c[1], "n")
	}
	f.Fuzz(func(t *testing.T, title, sel, value, target, command, val2, varname string) {
		docs := map[string]any{
			"c.json": map[string]any{"title": title, "steps": []any{
				map[string]any{"type": "navigate", "url": "https://example.com/" + value},
				map[string]any{"type": "change", "value": value, "selectors": []any{[]any{sel}, []any{sel, value}}},
				map[string]any{"type": "click", "selectors": []any{sel}, "target": value, "frame": []any{0, 1}},
				map[string]any{"type": "keyDown", "key": value}, map[string]any{"type": "keyUp", "key": value},
				map[string]any{"type": "waitForElement", "selectors": []any{[]any{sel}}, "count": 2, "operator": "=="},
			}},
			"p.side": map[string]any{"version": "2.0", "url": "http://h" + value, "tests": []any{
				map[string]any{"name": title, "commands": []any{
					map[string]any{"command": "store", "target": val2, "value": varname},
					map[string]any{"command": command, "target": target, "value": val2},
					map[string]any{"command": "echo", "target": "${" + varname + "}"},
					map[string]any{"command": "assertText", "target": target, "value": value},
					map[string]any{"command": "end"},
				}},
				map[string]any{"name": title + "2", "commands": []any{map[string]any{"command": "run", "target": title}}},
			}},
			"j.json": map[string]any{"name": title, "steps": []any{
				map[string]any{"type": "input", "attrs": map[string]any{"selector": sel, "value": value}},
				map[string]any{"type": "extract", "attrs": map[string]any{"selector": sel, "store": varname}},
				map[string]any{"type": "loop", "attrs": map[string]any{"items": varname, "var": val2}, "body": []any{
					map[string]any{"type": "llm", "attrs": map[string]any{"prompt": value, "store": varname}},
				}},
			}},
		}
		for name, doc := range docs {
			src, err := json.Marshal(doc)
			if err != nil {
				return
			}
			flows, ds := Import(name, src, Options{})
			if ds.HasErrors() {
				continue
			}
			dir := t.TempDir()
			for _, fl := range flows {
				text := format.Flow(fl.File)
				os.WriteFile(filepath.Join(dir, fl.Name+".flow"), text, 0o644)
				if _, lds := lang.Load(fl.Name+".flow", text); lds.HasErrors() {
					t.Fatalf("%s: imported flow does not load: %s\n%s", name, lds.Error(), text)
				}
			}
		}
	})
}
