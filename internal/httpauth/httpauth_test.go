package httpauth

import "testing"

func TestNormalOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"HTTPS://A.example:443":  "https://a.example",
		"http://a.example:80/":   "http://a.example",
		"http://a.example:8080":  "http://a.example:8080",
		"http://[::1]:9":         "http://[::1]:9",
		"https://a.example/path": "",
		"a.example":              "",
		"https://u:p@a.example":  "",
		"https://a.example?x=1":  "",
		"null":                   "",
	} {
		got, ok := normalOrigin(in)
		if (want == "") == ok || got != want {
			t.Errorf("normalOrigin(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
