package cli

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/cliflag"
)

func table() *Table {
	t := &Table{Prog: "x", Intro: "x does things."}
	t.Register(Command{Name: "check", Usage: "x check FILE", Summary: "check a file", Run: func(args []string, stdout, stderr io.Writer) int {
		fs := t.NewFlags("check", stderr)
		v := fs.Bool("v", false, "verbose")
		pos, done, code := cliflag.ParseArgs(fs, args)
		if done {
			return code
		}
		if len(pos) != 1 {
			return t.Fail(stderr, ExitUsage, "check", errors.New("one FILE"))
		}
		if *v {
			io.WriteString(stdout, "v ")
		}
		io.WriteString(stdout, pos[0])
		return ExitOK
	}})
	t.Register(Command{Name: "serve", Usage: "x serve", Summary: "serve", Run: func([]string, io.Writer, io.Writer) int { return ExitFailed }})
	return t
}

// TestRun: dispatch with interspersed flags, help, -h, usage errors and a
// suggestion for a near miss.
func TestRun(t *testing.T) {
	for _, c := range []struct {
		args       []string
		code       int
		out, errw  string
		notInError string
	}{
		{[]string{"check", "a", "-v"}, ExitOK, "v a", "", ""},
		{[]string{"check"}, ExitUsage, "", "x check: one FILE", ""},
		{[]string{"check", "-h"}, ExitOK, "", "usage: x check FILE\n\ncheck a file\n\nflags:\n  -v\tverbose", ""},
		{[]string{"check", "--nope"}, ExitUsage, "", "flag provided but not defined", ""},
		{[]string{"serve"}, ExitFailed, "", "", ""},
		{[]string{"chek"}, ExitUsage, "", `did you mean "check"?`, ""},
		{[]string{"zzzzzz"}, ExitUsage, "", "unknown command", "did you mean"},
		{nil, ExitUsage, "", "commands:\n  check  check a file\n  serve  serve\n", ""},
		{[]string{"help"}, ExitOK, "x does things.", "", ""},
		{[]string{"help", "serve"}, ExitOK, "usage: x serve\n\nserve\n\nRun `x serve -h`", "", ""},
		{[]string{"help", "nope"}, ExitUsage, "", "x help: unknown command", ""},
	} {
		var out, errw strings.Builder
		code := table().Run(c.args, &out, &errw)
		if code != c.code || !strings.Contains(out.String(), c.out) || !strings.Contains(errw.String(), c.errw) ||
			(c.notInError != "" && strings.Contains(errw.String(), c.notInError)) {
			t.Errorf("%q: exit %d\nstdout %q\nstderr %q", c.args, code, out.String(), errw.String())
		}
	}
}

// TestRegister: a duplicate or an unnamed command panics.
func TestRegister(t *testing.T) {
	for _, c := range []Command{{Name: "check", Run: func([]string, io.Writer, io.Writer) int { return 0 }}, {Name: "", Run: nil}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%q registered", c.Name)
				}
			}()
			table().Register(c)
		}()
	}
}
