package a11y

import (
	"strings"
	"testing"
)

func TestSplice(t *testing.T) {
	got := Splice("(() => {\n" + Marker + "\nreturn role;\n})")
	if strings.Contains(got, Marker) || !strings.Contains(got, "function accName(el)") || !strings.Contains(got, "function role(el)") {
		t.Errorf("spliced:\n%.300s", got)
	}
	for _, bad := range []string{"no marker", Marker + Marker} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%q: no panic", bad)
				}
			}()
			Splice(bad)
		}()
	}
}
