package ui

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestAPIErrorsSayTheShape: a console API request with a body of the wrong shape is refused in
// the request's terms (which field, what it should be; a map's value by its key, a long name
// by its length), never the decoder's Go words.
func TestAPIErrorsSayTheShape(t *testing.T) {
	s, ts := newTestServer(t, Options{})
	shape := `the body must be a JSON object {"file": string, "text": string, "hash": string}`
	for _, c := range []struct{ path, body, want string }{
		{"/api/check", `[1, 2]`, "the request body is a JSON array, not an object; " + shape},
		{"/api/save", `{"file": "a.flow", "text": 5}`, `field "text" is a JSON number where a string belongs; ` + shape},
		{"/api/check", `{"file": `, "the request body ends in the middle of its JSON; " + shape},
		{"/api/check", ``, "the request body is empty; " + shape},
		{"/api/check", `{nope}`, "the request body is not valid JSON (at byte 2); " + shape},
		{"/api/publish", `{"file": "a.flow", "params": {}}`, `field "params" is a JSON object where an array belongs`},
		{"/api/debug", `{"file": "a.flow", "args": {"user": "u", "password": ["x"]}}`, `field "args.password" is a JSON array where a string belongs`},
		{"/api/debug", `{"file": "a.flow", "args": {"` + strings.Repeat("k", 300) + `": 1}}`, `field a text too long to show (305 bytes) is a JSON number where a string belongs`},
	} {
		req, _ := http.NewRequest("POST", ts.URL+c.path, strings.NewReader(c.body))
		req.Header.Set(TokenHeader, s.Token())
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got := string(b)
		if resp.StatusCode != 400 || !strings.Contains(got, jsonEscape(c.want)) {
			t.Errorf("%s %s: %d %s\nwant %s", c.path, c.body, resp.StatusCode, got, c.want)
		}
		for _, leak := range []string{"Go value", "Go struct", "interface {}", "unmarshal", "checkRequest"} {
			if strings.Contains(got, leak) {
				t.Errorf("%s %s: the answer leaks %q: %s", c.path, c.body, leak, got)
			}
		}
	}
}

// jsonEscape is s as it appears inside a JSON string.
func jsonEscape(s string) string {
	return strings.NewReplacer(`"`, `\"`, "<", `\u003c`, ">", `\u003e`, "&", `\u0026`).Replace(s)
}
