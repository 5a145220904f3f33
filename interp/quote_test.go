package interp

import "testing"

func TestCmdQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`report.txt`, `^"report.txt^"`},
		{`a b`, `^"a b^"`},
		{`x & del /q *`, `^"x ^& del /q *^"`},
		{`%PATH%`, `^"^%PATH^%^"`},
		{`!x! | more > out`, `^"^!x^! ^| more ^> out^"`},
		{`say "hi"`, `^"say \^"hi\^"^"`},
		{`C:\dir\`, `^"C:\dir\\^"`},
		{`a\"b`, `^"a\\\^"b^"`},
		{``, `^"^"`},
	} {
		if got := cmdQuote(tc.in); got != tc.want {
			t.Errorf("cmdQuote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if quoteFor("windows")("a&b") != `^"a^&b^"` || quoteFor("linux")("a&b") != `'a&b'` {
		t.Error("quoteFor picks the wrong quoting")
	}
}
