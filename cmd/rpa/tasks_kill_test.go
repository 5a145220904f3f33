package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/runs"
)

// stdioServe is `rpa serve --stdio` on flows under home, spoken to in
// JSON-RPC lines.
type stdioServe struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.Writer
	out *bufio.Reader
	id  int
}

func startStdio(t *testing.T, bin, home, flows string) *stdioServe {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--stdio", "--flows", flows)
	cmd.Env = append(os.Environ(), "RPA_HOME="+home)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	s := &stdioServe{t: t, cmd: cmd, in: in, out: bufio.NewReader(out)}
	s.call("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"killer","version":"1"}}`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

// send sends a request without waiting for its response.
func (s *stdioServe) send(method, params string) {
	s.id++
	fmt.Fprintf(s.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", s.id, method, params)
}

// call sends a request and returns its response (notifications skipped).
func (s *stdioServe) call(method, params string) map[string]any {
	s.t.Helper()
	s.send(method, params)
	for {
		line, err := s.out.ReadString('\n')
		if err != nil {
			s.t.Fatalf("%s: %v", method, err)
		}
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["id"] == float64(s.id) {
			return m
		}
	}
}

// TestServeKilledMidTask: kill -9 of `rpa serve` while a task runs; the
// next `rpa serve` on the same home says the task failed, "interrupted",
// with its run ID (tasks/get and tasks/result), never working forever.
func TestServeKilledMidTask(t *testing.T) {
	bin := rpaBin(t)
	home, flows := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(flows, "stuck.flow"), []byte(stuckFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startStdio(t, bin, home, flows)
	created := s.call("tools/call", `{"name":"workflow_stuck","arguments":{},"task":{"ttl":600000}}`)
	task, _ := created["result"].(map[string]any)["task"].(map[string]any)
	id, _ := task["taskId"].(string)
	runID, _, _ := strings.Cut(id, ".")
	if runs.ValidID(runID) != nil || task["status"] != "working" {
		t.Fatalf("created %v", created)
	}
	// Wait until the task's run waits (tasks/get: the protocol's way to follow a task).
	var got map[string]any
	waitFor(t, "the task to reach its wait", func() bool {
		got = s.call("tasks/get", `{"taskId":"`+id+`"}`)["result"].(map[string]any)
		return strings.HasPrefix(fmt.Sprint(got["statusMessage"]), `line 4: wait "#never"`)
	}, func() string { return fmt.Sprint(got) })
	if err := s.cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = s.cmd.Wait()

	s2 := startStdio(t, bin, home, flows)
	got = s2.call("tasks/get", `{"taskId":"`+id+`"}`)["result"].(map[string]any)
	if got["status"] != "failed" || !strings.Contains(fmt.Sprint(got["statusMessage"]), "interrupted") || !strings.Contains(fmt.Sprint(got["statusMessage"]), runID) {
		t.Errorf("after kill -9 and a restart: %v", got)
	}
	res := s2.call("tasks/result", `{"taskId":"`+id+`"}`)
	e, _ := res["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32603) || fmt.Sprint(e["data"]) != "map[kind:interrupted runId:"+runID+"]" {
		t.Errorf("tasks/result: %v", res)
	}
	// The id reaches the task; a listing shows an unbound caller its own
	// session's tasks only, and this is a new session.
	if lst := s2.call("tasks/list", `{}`)["result"].(map[string]any); len(lst["tasks"].([]any)) != 0 {
		t.Errorf("tasks/list of a new stdio session: %v", lst)
	}
	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if r, err := st.Get(runID); err != nil || r.Status != runs.StatusInterrupted {
		t.Errorf("the task's run: %+v %v", r, err)
	}
}
