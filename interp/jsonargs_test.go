package interp

import (
	"errors"
	"reflect"
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
