package importer

import (
	"strings"
	"testing"
)

func TestParseFormat(t *testing.T) {
	for name, want := range map[string]Format{"": "", "chrome": FormatChrome, "side": FormatSide, "json": FormatJSONFlow} {
		if got, err := ParseFormat(name); err != nil || got != want {
			t.Errorf("%q: %q %v", name, got, err)
		}
	}
	if _, err := ParseFormat("har"); err == nil {
		t.Error("har accepted")
	}
}

// TestShown: only the imported file is quoted, its password as ***.
func TestShown(t *testing.T) {
	src := []byte(`{"title":"c","steps":[{"type":"navigate","url":"http://127.0.0.1:8080/login"},
{"type": "change", "value": "s3cret-9", "selectors": [["#password"]], "target": "main"}]}
`)
	show := Shown("c.json", src, Options{})
	if show("other.json") != nil {
		t.Error("another file quoted")
	}
	if got := string(show("c.json")); strings.Contains(got, "s3cret-9") || !strings.Contains(got, "***") {
		t.Errorf("shown %s", got)
	}
}
