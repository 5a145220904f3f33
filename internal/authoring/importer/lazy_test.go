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
		sameAsTree(t, name, []byte(src))
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

// sameAsTree checks that parseRecording fails as parseJSON does, and
// that its lazy steps are the elements parseJSON keeps.
func sameAsTree(t *testing.T, name string, src []byte) {
	t.Helper()
	full, ferr := parseJSON(src)
	lazy, lerr := parseRecording(src)
	if (ferr == nil) != (lerr == nil) || (ferr != nil && !reflect.DeepEqual(ferr, lerr)) {
		t.Errorf("%s: parseJSON error %v, parseRecording error %v", name, ferr, lerr)
		return
	}
	if ferr != nil {
		return
	}
	want, got := full.get("steps"), lazy.get("steps")
	if want == nil || want.kind != jArray {
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s: steps %+v, want %+v", name, got, want)
		}
		return
	}
	if !got.lazy || got.elems != nil || got.off != want.off || got.end != want.end {
		t.Errorf("%s: steps not lazy: %+v", name, got)
	}
	flow := false
	for _, e := range want.elems {
		flow = flow || e.has("attrs") || e.has("body")
	}
	if got.flowSteps != flow {
		t.Errorf("%s: flowSteps %v, want %v", name, got.flowSteps, flow)
	}
	n := 0
	for i, e := range got.items() {
		if i != n || i >= len(want.elems) || !reflect.DeepEqual(e, want.elems[i]) {
			t.Errorf("%s: step %d differs", name, i)
			return
		}
		n++
	}
	if n != len(want.elems) {
		t.Errorf("%s: %d lazy steps, parseJSON keeps %d", name, n, len(want.elems))
	}
}

// FuzzLazySteps: whatever the input, parseRecording agrees with parseJSON
// (sameAsTree).
func FuzzLazySteps(f *testing.F) {
	for _, s := range []string{`{"steps": [1, {"a": [true, null]}, "x\u0041"]}`, `{"steps": [{"attrs": {}}], "steps": 2}`,
		`{"title": "t", "steps": [{"type": "click", "selectors": [["#a"]]},]}`, "\ufeff{\"steps\": []}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) { sameAsTree(t, "fuzz", src) })
}

func repeat(c byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = c
	}
	return b
}
