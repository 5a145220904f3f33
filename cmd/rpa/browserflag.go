package main

import "strings"

// joinedFlag is a repeatable string flag whose values are joined with ","
// into *s: `--browser ws://a --browser ws://b` is the same as
// `--browser ws://a,ws://b`, the endpoint list drivers/rod spreads profiles
// over (docs/remote.md).
type joinedFlag struct{ s *string }

// String is the joined value ("" before any).
func (f joinedFlag) String() string {
	if f.s == nil {
		return ""
	}
	return *f.s
}

// Set appends one value (itself possibly a comma-separated list).
func (f joinedFlag) Set(v string) error {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil
	}
	if *f.s == "" {
		*f.s = v
	} else {
		*f.s += "," + v
	}
	return nil
}
