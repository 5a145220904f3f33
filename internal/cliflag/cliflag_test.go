package cliflag

import (
	"flag"
	"io"
	"strings"
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

func TestKV(t *testing.T) {
	kv := KV{}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(kv, "arg", "")
	if err := fs.Parse([]string{"--arg", " a =1", "--arg", "b==2", "--arg", "a=3"}); err != nil || len(kv) != 2 || kv["a"] != "3" || kv["b"] != "=2" {
		t.Errorf("KV = %v (%v)", kv, err)
	}
	for _, bad := range []string{"a", "=1", " =1"} {
		if kv.Set(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestMissingValue(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"--http"}, true},
		{[]string{"--http", "--token", "t"}, true},
		{[]string{"-http", "-v"}, true},
		{[]string{"--http", "8765"}, false},
		{[]string{"--http=8765"}, false},
		{[]string{"--", "--http"}, false},
		{[]string{"--stdio"}, false},
	} {
		if got := MissingValue(c.args, "http"); got != c.want {
			t.Errorf("%q: %v", c.args, got)
		}
	}
}

func TestParse(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	v := fs.Bool("v", false, "")
	pos, err := Parse(fs, []string{"a", "-v", "b", "--", "-x"})
	if err != nil || strings.Join(pos, " ") != "a b -x" || !*v {
		t.Errorf("Parse = %q %v (v %v)", pos, err, *v)
	}
	if _, err := Parse(fs, []string{"a", "-h"}); err != flag.ErrHelp {
		t.Errorf("-h: %v", err)
	}
	if _, err := Parse(fs, []string{"--nope"}); err == nil {
		t.Error("unknown flag accepted")
	}
}
