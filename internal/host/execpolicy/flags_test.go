package execpolicy

import (
	"flag"
	"io"
	"testing"
)

func TestRegisterFlags(t *testing.T) {
	for _, c := range []struct {
		args    []string
		enabled bool
		allow   int
		bad     bool
	}{
		{nil, false, 0, false},
		{[]string{"--allow-exec"}, true, 0, false},
		{[]string{"--allow-exec", "--exec-allow", "echo *", "--exec-allow", "ls"}, true, 2, false},
		{[]string{"--exec-allow", "echo *"}, false, 1, true},
	} {
		var p Policy
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		p.Register(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if p.Enabled != c.enabled || len(p.Allow) != c.allow || (p.CheckFlags() != nil) != c.bad {
			t.Errorf("%v: enabled %v, allow %v, check %v", c.args, p.Enabled, p.Allow, p.CheckFlags())
		}
	}
}
