package execpolicy

import (
	"errors"
	"flag"
	"strings"
)

// Register adds --allow-exec (Enabled) and --exec-allow GLOB (Allow,
// repeatable) to fs, as `rpa run` takes them. Call CheckFlags after
// parsing.
func (p *Policy) Register(fs *flag.FlagSet) {
	fs.BoolVar(&p.Enabled, "allow-exec", false, "let the flow's exec actions run commands (refused otherwise)")
	fs.Var((*globList)(&p.Allow), "exec-allow", "with --allow-exec, allow only commands matching this glob (repeatable)")
}

// CheckFlags reports flags that do not go together: --exec-allow without
// --allow-exec.
func (p *Policy) CheckFlags() error {
	if len(p.Allow) > 0 && !p.Enabled {
		return errors.New("--exec-allow needs --allow-exec")
	}
	return nil
}

// globList is a repeatable string flag.
type globList []string

func (l *globList) String() string     { return strings.Join(*l, ",") }
func (l *globList) Set(s string) error { *l = append(*l, s); return nil }
