package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// capture runs the command with os.Stdout/os.Stderr redirected (the MCP
// commands print there directly).
func capture(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	or, ow, _ := os.Pipe()
	er, ew, _ := os.Pipe()
	oldOut, oldErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = ow, ew
	var ob, eb bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&ob, or); close(done) }()
	edone := make(chan struct{})
	go func() { io.Copy(&eb, er); close(edone) }()
	code = run(args, ow, ew)
	os.Stdout, os.Stderr = oldOut, oldErr
	ow.Close()
	ew.Close()
	<-done
	<-edone
	return code, ob.String(), eb.String()
}

const pubFlow = `# a comment that must survive
flow greet "Say hello"

param who: string = "world" "Who to greet"

log "hello " + who
`

func TestPublishListSchemaUnpublish(t *testing.T) {
	t.Setenv("RPA_HOME", t.TempDir())
	src := filepath.Join(t.TempDir(), "greet.flow")
	if err := os.WriteFile(src, []byte(pubFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	served := filepath.Join(t.TempDir(), "served")

	code, out, errOut := capture(t, "publish", src, "--flows", served, "--name", "hello", "--description", `Say "hi"`)
	if code != 0 {
		t.Fatalf("publish: %d %s %s", code, out, errOut)
	}
	got, err := os.ReadFile(filepath.Join(served, "hello.flow"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `flow hello "Say \"hi\""`) || !strings.Contains(string(got), "# a comment that must survive") {
		t.Errorf("published file:\n%s", got)
	}

	code, out, _ = capture(t, "list", served)
	if code != 0 || !strings.Contains(out, "workflow_hello") || !strings.Contains(out, "who:string") || !strings.Contains(out, `Say "hi"`) {
		t.Errorf("list: %d %s", code, out)
	}

	code, out, _ = capture(t, "schema", filepath.Join(served, "hello.flow"))
	var def struct {
		Name        string         `json:"name"`
		InputSchema map[string]any `json:"inputSchema"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &def) != nil || def.Name != "workflow_hello" || def.InputSchema["type"] != "object" {
		t.Errorf("schema: %d %s", code, out)
	}

	// Another file may not take a name already served.
	if code, _, errOut = capture(t, "publish", src, "--flows", served, "--name", "hello"); code != 0 {
		t.Errorf("re-publishing under the same file should replace it: %d %s", code, errOut)
	}

	// A flow that does not check is refused and not copied.
	bad := filepath.Join(t.TempDir(), "bad.flow")
	os.WriteFile(bad, []byte("flow bad\n\nclik \"#x\"\n"), 0o644)
	if code, _, errOut = capture(t, "publish", bad, "--flows", served); code != 1 || !strings.Contains(errOut, "clik") {
		t.Errorf("bad publish: %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(served, "bad.flow")); err == nil {
		t.Error("a broken flow was published")
	}
	if code, _, _ = capture(t, "publish", src, "--flows", served, "--name", "Bad-Name"); code != 2 {
		t.Errorf("bad --name: %d", code)
	}

	if code, out, _ = capture(t, "unpublish", "workflow_hello", "--flows", served); code != 0 {
		t.Errorf("unpublish: %d %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(served, "hello.flow")); !os.IsNotExist(err) {
		t.Error("unpublish left the file")
	}
	if code, _, _ = capture(t, "unpublish", "hello", "--flows", served); code != 1 {
		t.Errorf("unpublish of a missing flow: %d", code)
	}

	// Default folder: $RPA_HOME/flows.
	if code, _, errOut = capture(t, "publish", src); code != 0 {
		t.Fatalf("publish to default: %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("RPA_HOME"), "flows", "greet.flow")); err != nil {
		t.Error(err)
	}
}
