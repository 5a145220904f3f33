package a11y

import (
	"os"
	"strings"
	"testing"
)

func TestSplice(t *testing.T) {
	got := Splice("(() => {\n" + Marker + "\nreturn role;\n})")
	if strings.Contains(got, Marker) || !strings.Contains(got, "function accName(el)") || !strings.Contains(got, "function role(el)") || !strings.Contains(got, "function visible(el)") {
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

// TestOneVisible: visible(el) is defined once, here, for both scripts that
// splice Source in (the engine matches with it, the generator proposes
// with it); neither defines its own.
func TestOneVisible(t *testing.T) {
	if n := strings.Count(Source, "function visible(el)"); n != 1 {
		t.Errorf("Source defines visible %d times", n)
	}
	for _, path := range []string{"../rod/engine.js", "../selectorgen/selectorgen.js"} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "function visible(") || strings.Contains(string(b), "visible = (") {
			t.Errorf("%s defines its own visible()", path)
		}
		if strings.Count(string(b), Marker) != 1 {
			t.Errorf("%s does not splice Source in once", path)
		}
	}
}
