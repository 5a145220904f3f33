package lang

import (
	"strings"
	"testing"
)

// TestNotUTF8First: a file that is not UTF-8 gets one error saying so, at
// its first bad byte, and nothing that follows from it.
func TestNotUTF8First(t *testing.T) {
	for name, src := range map[string]string{
		"lat.flow": "flow lat \"caf\xe9\"\n\nlog \"caf\xe9\"\nclik \"#a\"\n",
		"lat.yaml": "name: lat\nsteps:\n  - log: \"caf\xe9\"\n",
	} {
		_, ds := Load(name, []byte(src))
		if len(ds) != 1 || !strings.Contains(ds[0].OneLine(), "error: the file is not UTF-8 text (byte 0xE9)") {
			t.Errorf("%s: %v", name, ds)
		}
	}
	_, ds := Load("u16.flow", []byte("\xff\xfef\x00l\x00o\x00w\x00"))
	if len(ds) != 1 || !strings.Contains(ds[0].OneLine(), "UTF-16") {
		t.Errorf("UTF-16: %v", ds)
	}
	if _, ds := Load("ok.flow", []byte("\xef\xbb\xbfflow ok\nlog \"café\"\n")); ds.HasErrors() {
		t.Errorf("UTF-8 with a byte order mark: %v", ds)
	}
}
