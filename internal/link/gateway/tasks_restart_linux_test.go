//go:build linux

package gateway

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
)

// zombieNode is the task node of a process that was killed and not yet reaped by its parent (a
// gateway after kill -9 whose parent waits for it later, as a script's does): it runs no more.
func zombieNode(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Skip("cannot start a process:", err)
	}
	node := runs.ProcessNode(cmd.Process.Pid)
	var info unix.Siginfo
	// Waits until it has exited, leaving it unreaped (WNOWAIT): a zombie.
	if err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Wait() })
	return node
}

// TestGatewayKilledTaskTakenOverAtOnce: a gateway killed mid-task whose process is not reaped yet
// when the next one starts (an immediate restart): the new gateway takes the task over at once, not
// at a second restart, and it completes with the desktop's answer.
func TestGatewayKilledTaskTakenOverAtOnce(t *testing.T) {
	store := &tasks.MemStore{} // the run store both processes open
	x := startGateway(t, "", Options{Tasks: store, TaskNode: zombieNode(t)})
	srv, desk := taskDeskFake(t)
	startDesk(t, x.wsURL(), "pc1", srv, func(o *connect.Options) { o.Wrap = tasks.LiftTransport })
	x.waitDevices(t, 1)
	tc, cs := taskAgentAt(t, x.mcpURL(), httpClient(testToken))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // only a hang
	defer cancel()
	task, _, err := tc.Call(ctx, cs, &mcp.CallToolParams{Name: "quiz", Arguments: map[string]any{}})
	if err != nil || task == nil {
		t.Fatalf("%v %v", task, err)
	}
	waitTask(t, tc, cs, task.TaskID, "asked", func(g *tasks.TaskV2) bool { return g.Status == "input_required" })
	x.kill()

	y := startGateway(t, x.addr, Options{Tasks: store})
	y.waitDevices(t, 1)
	tc2, cs2 := taskAgentAt(t, y.mcpURL(), httpClient(testToken))
	done, err := tc2.Wait(ctx, cs2, task.TaskID, func(k string, r mcp.InputRequest) (mcp.InputResponse, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": k}}, nil
	})
	if err != nil {
		g, _ := tc2.Get(context.Background(), cs2, task.TaskID)
		t.Fatalf("after the restart: %v (task: %+v)\n%s", err, g, y.logs.String())
	}
	if res, err := done.CallResult(); err != nil || len(strings.Split(text(res), ",")) != 2 || done.StatusMessage != "the quiz finished" {
		t.Fatalf("after the restart: %v %v: %s %q (want the desktop's outcome)", res, err, done.Status, done.StatusMessage)
	}
	waitIdle(t, desk, "the desktop's task to end")
}
