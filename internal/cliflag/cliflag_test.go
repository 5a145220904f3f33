package cliflag

import (
	"flag"
	"io"
	"testing"
)

func TestBrowserFlagRepeats(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"--browser", "ws://a:1/x"}, "ws://a:1/x"},
		{[]string{"--browser", "ws://a:1/x", "--browser", "http://b:2"}, "ws://a:1/x,http://b:2"},
		{[]string{"--browser", "ws://a:1/x,ws://c:3", "--browser", " "}, "ws://a:1/x,ws://c:3"},
	} {
		var got string
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Var(Joined{&got}, "browser", "")
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%q: got %q, want %q", c.args, got, c.want)
		}
	}
}

func TestList(t *testing.T) {
	var l List
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Var(&l, "x", "")
	if err := fs.Parse([]string{"-x", "a", "-x", "b,c"}); err != nil || len(l) != 2 || l.String() != "a,b,c" {
		t.Errorf("List = %q (%v)", l, err)
	}
}
