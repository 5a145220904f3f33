package publish

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang"
)

func write(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const (
	caller  = "flow caller \"Calls helper\"\n\nparam who: string \"Whom\"\n\ncall helper with: { name: who }\n"
	helperA = "flow helper \"Greets\"\n\nparam name: string \"Name\"\n\nlog \"hi \" + name\n"
	helperB = "flow helper \"Greets\"\n\nparam person: string \"Name\"\n\nlog \"hi \" + person\n"
)

// TestSource: what goes into the folder must load there and keep the
// folder loading; a refusal writes nothing; --name renames the header
// (the rest kept) and is the file's name; a NAME another file declares is
// refused; Unpublish removes by NAME or tool name.
func TestSource(t *testing.T) {
	work, served := t.TempDir(), filepath.Join(t.TempDir(), "flows")
	callerPath := write(t, work, "caller.flow", caller)
	write(t, work, "helper.flow", helperA)

	_, err := File(callerPath, Options{Dir: served})
	if r := (*Refusal)(nil); !errors.As(err, &r) || !strings.Contains(r.Msg, "would not load in") || len(r.Diags) == 0 {
		t.Fatalf("caller without its target in the folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(served, "caller.flow")); err == nil {
		t.Fatal("a refused flow was written")
	}
	if p, err := File(filepath.Join(work, "helper.flow"), Options{Dir: served}); err != nil || p.Flow != "helper" || p.Path != filepath.Join(served, "helper.flow") {
		t.Fatalf("helper: %+v %v", p, err)
	}
	if _, err := File(callerPath, Options{Dir: served}); err != nil {
		t.Fatalf("caller with its target: %v", err)
	}
	_, err = Source(filepath.Join(work, "helper.flow"), []byte(helperB), Options{Dir: served})
	if r := (*Refusal)(nil); !errors.As(err, &r) || !strings.Contains(r.Msg, "caller would stop loading") {
		t.Fatalf("helper breaking its caller: %v", err)
	}

	long := "a" + strings.Repeat("b", 119) // workflow_NAME past MCP's 128
	if _, err := Source(filepath.Join(work, "helper.flow"), []byte(helperA), Options{Dir: served, Name: long}); err == nil || !strings.Contains(err.Error(), "--name: too long (120 characters") {
		t.Fatalf("--name too long: %v", err)
	}
	p, err := Source(filepath.Join(work, "helper.flow"), []byte(helperA), Options{Dir: served, Name: "greeter", Description: "Says hi"})
	if err != nil || p.Flow != "greeter" {
		t.Fatalf("rename: %+v %v", p, err)
	}
	got, _ := os.ReadFile(p.Path)
	if !strings.HasPrefix(string(got), "flow greeter \"Says hi\"\n") || !strings.Contains(string(got), "log \"hi \" + name") {
		t.Errorf("renamed file:\n%s", got)
	}
	other := write(t, served, "zz.flow", "flow dup\n\nlog \"x\"\n")
	_, err = Source(filepath.Join(work, "dup.flow"), []byte("flow dup\n\nlog \"y\"\n"), Options{Dir: served})
	if r := (*Refusal)(nil); !errors.As(err, &r) || !strings.Contains(r.Msg, other) {
		t.Errorf("taken NAME: %v", err)
	}
	if _, err := Source(callerPath, []byte(caller), Options{Dir: served, Name: "Bad-Name"}); err == nil || errors.As(err, new(*Refusal)) {
		t.Errorf("bad --name: %v", err)
	}
	_, err = Source(filepath.Join(work, "x.flow"), []byte("flow x\nclick (\n"), Options{Dir: served})
	if r := (*Refusal)(nil); !errors.As(err, &r) || !r.Diags.HasErrors() {
		t.Errorf("flow that does not parse: %v", err)
	}

	if path, err := Unpublish(served, "workflow_greeter"); err != nil || path != p.Path {
		t.Errorf("Unpublish: %q %v", path, err)
	}
	if _, err := os.Stat(p.Path); !os.IsNotExist(err) {
		t.Errorf("still there: %v", err)
	}
	if _, err := Unpublish(served, "greeter"); !errors.Is(err, lang.ErrNoFlow) {
		t.Errorf("unpublish twice: %v", err)
	}
}
