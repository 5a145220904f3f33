package runs

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestErrorLineSaysActionOnce: `rpa runs show` names the failing action
// once: not "(wait): wait: timed out", but in parentheses only when the
// message does not start with it.
func TestErrorLineSaysActionOnce(t *testing.T) {
	for _, tc := range []struct {
		action, msg, want string
	}{
		{"wait", `wait: timed out after 1s waiting for text "x"`, "\ntimeout at line 4: wait: timed out after 1s waiting for text \"x\"\n"},
		{"click", "covered by div#consent", "\ntimeout at line 4 (click): covered by div#consent\n"},
		{"", "the run's deadline passed", "\ntimeout at line 4: the run's deadline passed\n"},
	} {
		r := &Run{ID: "20261201T120000000-aaaa", Flow: "f", Status: StatusFailed, Start: time.Unix(0, 0), ErrorKind: "timeout",
			ErrorLine: 4, ErrorAction: tc.action, ErrorMessage: tc.msg}
		var b bytes.Buffer
		if err := WriteRun(&b, r, nil, "/x"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("WriteRun:\n%s\nwant the line %q", b.String(), tc.want)
		}
	}
}
