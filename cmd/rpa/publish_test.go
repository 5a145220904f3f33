package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	pubCaller = `flow caller "Calls helper"

param who: string "Whom to greet"

call helper with: { name: who }
`
	pubHelperA = `flow helper "Greets"

param name: string "Name"

log "hi " + name
`
	pubHelperB = `flow helper "Greets, renamed param"

param person: string "Name"

log "hi " + person
`
)

// TestPublishChecksTheDestination: a flow whose call target exists next to
// it but not in the served folder is refused; so is a flow whose new params
// would break a caller in the served folder. Nothing is written either way.
func TestPublishChecksTheDestination(t *testing.T) {
	t.Setenv("RPA_HOME", t.TempDir())
	work, served := t.TempDir(), t.TempDir()
	write := func(dir, name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	caller := write(work, "caller.flow", pubCaller)
	write(work, "helper.flow", pubHelperA)

	// helper is next to caller, not in the served folder.
	code, _, errOut := capture(t, "publish", caller, "--flows", served)
	if code != exitFailed || !strings.Contains(errOut, "would not load in "+served) || !strings.Contains(errOut, `"helper"`) {
		t.Fatalf("publish of a caller without its target: %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(served, "caller.flow")); err == nil {
		t.Fatal("a flow that does not load there was written")
	}

	// With its target published first, it goes in.
	if code, _, errOut := capture(t, "publish", filepath.Join(work, "helper.flow"), "--flows", served); code != 0 {
		t.Fatalf("publish helper: %d %s", code, errOut)
	}
	if code, _, errOut := capture(t, "publish", caller, "--flows", served); code != 0 {
		t.Fatalf("publish caller: %d %s", code, errOut)
	}

	// A new helper whose param no longer fits the caller's with: is refused.
	b := write(t.TempDir(), "helper.flow", pubHelperB)
	code, _, errOut = capture(t, "publish", b, "--flows", served)
	if code != exitFailed || !strings.Contains(errOut, "caller would stop loading") {
		t.Fatalf("publish of a helper breaking its caller: %d %s", code, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(served, "helper.flow")); string(got) != pubHelperA {
		t.Errorf("the served helper changed:\n%s", got)
	}
}
