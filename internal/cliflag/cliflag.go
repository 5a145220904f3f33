// Package cliflag holds the flag.Value types the commands share: a
// repeatable flag collected as a list (List) or joined with commas
// (Joined).
package cliflag

import (
	"flag"
	"fmt"
	"strings"
)

// List collects a repeatable string flag (--exec-allow A --exec-allow B).
type List []string

// String is the values joined with ",".
func (l *List) String() string { return strings.Join(*l, ",") }

// Set appends one value.
func (l *List) Set(v string) error { *l = append(*l, v); return nil }

// Joined is a repeatable string flag whose values are joined with "," into
// *S: `--browser ws://a --browser ws://b` is the same as `--browser
// ws://a,ws://b`, the endpoint list drivers/rod spreads profiles over
// (docs/remote.md). Blank values are dropped.
type Joined struct{ S *string }

// String is the joined value ("" before any).
func (f Joined) String() string {
	if f.S == nil {
		return ""
	}
	return *f.S
}

// Set appends one value (itself possibly a comma-separated list).
func (f Joined) Set(v string) error {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil
	}
	if *f.S == "" {
		*f.S = v
	} else {
		*f.S += "," + v
	}
	return nil
}

// KV collects repeated NAME=VALUE flags (--arg) into a map; NAME is
// trimmed and must not be empty, the last value of a NAME wins. Make it
// before use: cliflag.KV{}.
type KV map[string]string

// String is the map's text.
func (f KV) String() string { return fmt.Sprint(map[string]string(f)) }

// Set adds one NAME=VALUE.
func (f KV) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if k = strings.TrimSpace(k); !ok || k == "" {
		return fmt.Errorf("want NAME=VALUE, got %q", s)
	}
	f[k] = v
	return nil
}

// MissingValue reports whether the value flag name (-name or --name, not
// -name=V) stands last in args or right before another flag (before any
// "--"): the flag package would take that flag as the value, or print its
// default usage.
func MissingValue(args []string, name string) bool {
	for i, a := range args {
		if a == "--" {
			return false
		}
		if a == "--"+name || a == "-"+name {
			if i+1 == len(args) || strings.HasPrefix(args[i+1], "-") {
				return true
			}
		}
	}
	return false
}

// Parse parses args with fs allowing flags before, between and after the
// positional arguments (`rpa run FILE --json`), which it returns in order;
// after "--" everything is positional. The error is fs.Parse's
// (flag.ErrHelp after -h).
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		if used := len(args) - fs.NArg(); used > 0 && args[used-1] == "--" && !takesValue(fs, args[:used-1]) {
			return append(pos, fs.Args()...), nil // after "--": all positional
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// takesValue reports whether the last of args is a flag of fs that takes
// the next argument as its value (-name, not -name=V, nor a bool flag).
func takesValue(fs *flag.FlagSet, args []string) bool {
	if len(args) == 0 {
		return false
	}
	a := args[len(args)-1]
	name := strings.TrimLeft(a, "-")
	if len(a)-len(name) < 1 || len(a)-len(name) > 2 || name == "" || strings.Contains(name, "=") {
		return false
	}
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}
