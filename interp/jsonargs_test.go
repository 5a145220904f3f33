package interp

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang"
)

func TestArgsFromJSON(t *testing.T) {
	f, ds := lang.Load("a.flow", []byte("flow a\nparam n: int\nparam x: number = 1\nparam s: string = \"d\"\nparam l: list = []\nreturn [n, x, s, l]\n"))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	got, err := ArgsFromJSON(f, []byte(`{"n": 3, "x": 2.5, "l": [1, "a"]}`), nil)
	want := map[string]any{"n": 3, "x": 2.5, "s": "d", "l": []any{1, "a"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("JSON only: %v %v", got, err)
	}
	got, err = ArgsFromJSON(f, []byte(`{"n": 3, "s": null, "l": [1]}`), map[string]string{"n": "4", "s": "o"})
	want = map[string]any{"n": 4, "x": 1.0, "s": "o", "l": []any{1.0}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("with overrides: %#v %v", got, err)
	}
	var ae *ArgError
	if _, err := ArgsFromJSON(f, []byte(`{"n": 1.5}`), nil); !errors.As(err, &ae) || ae.Field != "n" {
		t.Errorf("bad int: %v", err)
	}
	for _, bad := range []string{`[1]`, `null`, `{`} {
		if _, err := ArgsFromJSON(f, []byte(bad), nil); err == nil || errors.As(err, &ae) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// TestArgsFromFile: no file is the overrides alone; a file's object with
// the overrides on top; a bad file names --args; an ArgError stays one.
func TestArgsFromFile(t *testing.T) {
	f, ds := lang.Load("a.flow", []byte("flow a\nparam n: int\nparam s: string = \"d\"\nreturn [n, s]\n"))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	dir := t.TempDir()
	good, bad, wrong := filepath.Join(dir, "g.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "w.json")
	os.WriteFile(good, []byte(`{"n": 3, "s": "x"}`), 0o644)
	os.WriteFile(bad, []byte(`[1]`), 0o644)
	os.WriteFile(wrong, []byte(`{"n": "three"}`), 0o644)
	if got, err := ArgsFromFile(f, "", map[string]string{"n": "2"}); err != nil || got["n"] != 2 {
		t.Errorf("no file: %v %v", got, err)
	}
	if got, err := ArgsFromFile(f, good, map[string]string{"s": "y"}); err != nil || got["n"] != 3 || got["s"] != "y" {
		t.Errorf("file + override: %v %v", got, err)
	}
	var ae *ArgError
	for path, want := range map[string]string{bad: "--args " + bad, filepath.Join(dir, "none.json"): "--args: "} {
		if _, err := ArgsFromFile(f, path, nil); err == nil || !strings.Contains(err.Error(), want) || errors.As(err, &ae) {
			t.Errorf("%s: %v", path, err)
		}
	}
	if _, err := ArgsFromFile(f, wrong, nil); !errors.As(err, &ae) {
		t.Errorf("bad value: %v", err)
	}
}
