package recorder

import (
	"flag"
	"io"
	"testing"
)

// TestParamList: --param NAME=SELECTOR, repeatable, trimmed; a side
// missing, or a NAME that cannot name a param (LANGUAGE.md: an
// identifier, not reserved), is refused.
func TestParamList(t *testing.T) {
	var ps ParamList
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&ps, "param", "")
	if err := fs.Parse([]string{"--param", " user = #u ", "--param", "q=input[name=q]"}); err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0] != (Param{Name: "user", Selector: "#u"}) || ps[1] != (Param{Name: "q", Selector: "input[name=q]"}) {
		t.Errorf("params %+v", ps)
	}
	for _, bad := range []string{"user", "=#u", "user= ", "1abc=#u", "if=#u", "a-b=#u", "bad name=#u", "page=#u", "len=#u", "é=#u"} {
		if err := ps.Set(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestNameFor: the file's base name as a flow NAME, "recorded" when none.
func TestNameFor(t *testing.T) {
	for in, want := range map[string]string{"out/Log In.flow": "log_in", "a/b/check_x.flow": "check_x", "x/123.flow": "flow_123", "x/---.flow": "recorded"} {
		if got := NameFor(in); got != want {
			t.Errorf("NameFor(%q) = %q, want %q", in, got, want)
		}
	}
}
