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
	// after "--" everything is positional, a flag too
	pos, err = Parse(fs, []string{"a", "--", "b", "-v", "-nope"})
	if err != nil || strings.Join(pos, " ") != "a b -v -nope" {
		t.Errorf("after --: %q %v", pos, err)
	}
	// "--" as a flag's value is not the terminator
	s := fs.String("s", "", "")
	pos, err = Parse(fs, []string{"-s", "--", "a", "-v"})
	if err != nil || *s != "--" || strings.Join(pos, " ") != "a" {
		t.Errorf("-s --: %q %v (s %q)", pos, err, *s)
	}
	if _, err := Parse(fs, []string{"a", "-h"}); err != flag.ErrHelp {
		t.Errorf("-h: %v", err)
	}
	if _, err := Parse(fs, []string{"--nope"}); err == nil {
		t.Error("unknown flag accepted")
	}
}

// TestParseFlags: flags after the file names too (rpa fmt F --to yaml),
// with fs.Args() the positional arguments in order.
func TestParseFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		to   string
		w    bool
		pos  string
	}{
		{[]string{"a.flow", "--to", "yaml"}, "yaml", false, "a.flow"},
		{[]string{"--to", "flow", "a.flow", "b.flow", "-w"}, "flow", true, "a.flow b.flow"},
		{[]string{"a.flow", "-w", "b.flow"}, "", true, "a.flow b.flow"},
		{[]string{"a.flow", "--", "-w"}, "", false, "a.flow -w"},
		{nil, "", false, ""},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		to := fs.String("to", "", "")
		w := fs.Bool("w", false, "")
		if done, code := ParseFlags(fs, c.args); done {
			t.Fatalf("%q: done %d", c.args, code)
		}
		if *to != c.to || *w != c.w || strings.Join(fs.Args(), " ") != c.pos {
			t.Errorf("%q: to %q w %v args %q", c.args, *to, *w, fs.Args())
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if done, code := ParseFlags(fs, []string{"a", "--nope"}); !done || code != exitUsage {
		t.Errorf("bad flag after a file: %v %d", done, code)
	}
	if done, code := ParseFlags(fs, []string{"a", "-h"}); !done || code != exitOK {
		t.Errorf("-h after a file: %v %d", done, code)
	}
}
