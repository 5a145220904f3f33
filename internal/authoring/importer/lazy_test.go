package importer

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestLazySteps: parseRecording finds every syntax error parseJSON finds,
// at the same offset, and its lazy "steps" yield the elements parseJSON
// keeps, in order; Detect still tells a JSON flow by a step's "attrs"
// (the elements are not kept for it to look at).
func TestLazySteps(t *testing.T) {
	inputs := map[string]string{
		"bad literal":    "{\"steps\": [\n  {\"a\": 1},\n  {\"b\": tru}\n]}",
		"trailing comma": `{"steps": [1, 2,]}`,
		"missing colon":  `{"steps": [{"a" 1}]}`,
		"unterminated":   `{"steps": [1, 2`,
		"after value":    `{"steps": []} {}`,
		"bad escape":     `{"title": "t", "steps": [{"type": "x\q"}]}`,
		"deep":           `{"steps": [` + string(repeat('[', 600)) + `]}`,
		"empty":          `{"steps": []}`,
		"not an array":   `{"steps": {"a": [1]}}`,
		"nested steps":   `{"x": {"steps": [1, {"y": null}]}, "steps": [true, "s", -1.5e3, {"steps": [2]}]}`,
	}
	files, _ := filepath.Glob("testdata/chrome/*.json")
	more, _ := filepath.Glob("testdata/jsonflow/*.json")
	for _, f := range append(files, more...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[f] = string(b)
	}
	for name, src := range inputs {
		full, ferr := parseJSON([]byte(src))
		lazy, lerr := parseRecording([]byte(src))
		if (ferr == nil) != (lerr == nil) || (ferr != nil && !reflect.DeepEqual(ferr, lerr)) {
			t.Errorf("%s: parseJSON error %v, parseRecording error %v", name, ferr, lerr)
			continue
		}
		if ferr != nil {
			continue
		}
		want, got := full.get("steps"), lazy.get("steps")
		if want == nil || want.kind != jArray {
			if !reflect.DeepEqual(want, got) {
				t.Errorf("%s: steps %+v, want %+v", name, got, want)
			}
			continue
		}
		if !got.lazy || got.elems != nil || got.off != want.off || got.end != want.end {
			t.Errorf("%s: steps not lazy: %+v", name, got)
		}
		if all := got.list(); len(all) != len(want.elems) || (len(all) > 0 && !reflect.DeepEqual(all, want.elems)) {
			t.Errorf("%s: the lazy steps are %d elements, not the %d parseJSON keeps (or differ)", name, len(all), len(want.elems))
		}
		n := 0
		for i, e := range got.items() {
			if i != n || !reflect.DeepEqual(e, want.elems[i]) {
				t.Errorf("%s: step %d differs", name, i)
			}
			n++
		}
		if filepath.Dir(name) == "testdata/jsonflow" {
			if f, ok := Detect(name, []byte(src)); f != FormatJSONFlow || !ok {
				t.Errorf("%s: detected as %q", name, f)
			}
		}
	}
	if f, ok := Detect("x.json", []byte(`{"steps": [{"type": "click"}, {"type": "input", "attrs": {}}]}`)); f != FormatJSONFlow || !ok {
		t.Errorf("a JSON flow whose second step has attrs is detected as %q", f)
	}
}

func repeat(c byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = c
	}
	return b
}
