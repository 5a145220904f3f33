package core

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestShown(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://x/", "http://x/"},
		{strings.Repeat("a", 200), strings.Repeat("a", 200)},
		{strings.Repeat("a", 3<<20), strings.Repeat("a", 100) + "… (3145728 bytes)"},
		{strings.Repeat("a", 99) + strings.Repeat("é", 100), strings.Repeat("a", 99) + "… (299 bytes)"},
	} {
		got := Shown(tc.in)
		if got != tc.want {
			t.Errorf("Shown(%d bytes) = %q, want %q", len(tc.in), got, tc.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("Shown(%d bytes) is not UTF-8", len(tc.in))
		}
	}
	if got := Message(strings.Repeat("x", 5000)); len(got) > 1100 || !strings.HasSuffix(got, "… (5000 bytes in all)") {
		t.Errorf("Message(5000 bytes) = %d bytes: %q", len(got), got[len(got)-40:])
	}
	if got := Message("short"); got != "short" {
		t.Errorf("Message(short) = %q", got)
	}
}

func TestIsCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{Message(strings.Repeat("x", 5000)), true},
		{Message(strings.Repeat("é", 3000)), true},
		{Message("short"), false},
		{"a note… (12 bytes in all)", false},
		{"… (x bytes in all)", false},
		{strings.Repeat("y", 1500) + "… (5000 bytes in all)", false},
	} {
		if got := IsCut(tc.in); got != tc.want {
			t.Errorf("IsCut(%.40q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
