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

// TestNotUTF8Guess: the conversion the error suggests follows the bytes:
// GB18030 for Chinese text saved as GBK, Windows-1252 for Latin text.
func TestNotUTF8Guess(t *testing.T) {
	for _, c := range []struct {
		name, src, want string
	}{
		// "查询" (query) in GBK, then a GB18030 four-byte sequence
		{"gbk.flow", "flow gbk \"\xb2\xe9\xd1\xaf\"\nlog \"\x81\x30\x81\x30\"\n", "iconv -f GB18030 -t UTF-8 gbk.flow"},
		{"lat.flow", "flow lat \"caf\xe9\"\n", "iconv -f WINDOWS-1252 -t UTF-8 lat.flow"},
		{"mix.flow", "flow mix \"\xb2\xe9 caf\xe9\"\n", "iconv -f WINDOWS-1252 -t UTF-8 mix.flow"},
	} {
		_, ds := Load(c.name, []byte(c.src))
		if len(ds) != 1 || !strings.Contains(ds[0].Detail, c.want) {
			t.Errorf("%s: %v, want a detail with %q", c.name, ds, c.want)
		}
	}
}

func FuzzLooksGB18030(f *testing.F) {
	f.Add([]byte("\xb2\xe9\xd1\xaf"))
	f.Add([]byte("caf\xe9"))
	f.Fuzz(func(t *testing.T, b []byte) { _ = looksGB18030(b) })
}
