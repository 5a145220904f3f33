package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/serve/tasks"
)

// Tasks through the gateway (PROTOCOL.md, "Tasks"): an agent's task lives here, in the gateway's
// own task store (Options.Tasks), and the desktop runs it. A desktop tool that runs as a task
// (a workflow of `rpa connect`) gets the call as a task of its own, task-augmented over the
// link; the gateway's task has the same run ID, follows the desktop's statusMessage (tasks/get),
// and waits for its end with tasks/result, through which the desktop's questions come to be
// relayed to the agent as the gateway task's questions. The desktop's task does not depend on
// the link or the gateway: a link that drops and re-dials, or a gateway that restarts (its live
// tasks name the desktop's task in Record.Relay, and the next gateway process takes them over),
// just asks tasks/result again on the desktop's new link. tasks/cancel at the gateway cancels the
// desktop's task. In a cluster, a task whose desktop is linked to another replica is created
// there (the call goes through that replica) and followed by it. A tool the desktop does not run
// as a task is forwarded as a plain call by the gateway task's work (its answer is lost if the
// gateway restarts meanwhile).

// Defaults of the gateway's tasks.
const (
	// DefaultTaskRelinkWait is how long a task waits for its desktop to link again before it fails.
	DefaultTaskRelinkWait = 10 * time.Minute
)

// startTasks builds the gateway's task manager and attaches it to the agent-facing server.
func (g *Gateway) startTasks() {
	o := tasks.Options{Store: g.opts.Tasks, Max: g.opts.MaxTasks, TTL: g.opts.TaskTTL, MaxTTL: g.opts.TaskMaxTTL,
		Node: g.opts.TaskNode, Log: g.log, KeepOnClose: true, Orphan: func(r *tasks.Record) bool { return r.Relay != "" },
		Changed: func(*tasks.Record) { g.taskChanged() }}
	if o.Store == nil {
		o.Store = &tasks.MemStore{}
	}
	if g.rep != nil {
		// In a cluster the tasks live in the cluster's bucket (replica_tasks.go); they are
		// recovered once the replica has read the cluster's state.
		o.Store, o.Node, o.Alive, o.Forward = kvTasks{g.rep.n}, g.rep.taskNode(), g.rep.taskAlive, g.rep.forwardTask
	}
	g.tasks = tasks.New(o)
	if g.rep == nil {
		if err := g.tasks.Recover(context.Background()); err != nil {
			g.log.Error("tasks: cannot read the task store", "err", err)
		}
	}
	f := &tasks.Front{M: g.tasks, Taskable: g.taskable,
		Who: func(req mcp.Request) tasks.Who { return tasks.Who{Owner: g.agentOwner(req), Live: g.liveAgent} }}
	if err := f.Attach(g.srv); err != nil {
		g.log.Error("tasks: cannot serve them", "err", err)
	}
	if g.rep == nil {
		g.adoptTasks()
	}
}

// taskChanged calls Options.onChange after a task's state changed (its status, questions or
// end, stored) or its desktop's statusMessage was mirrored (stored at most every second).
func (g *Gateway) taskChanged() {
	if g.opts.onChange != nil {
		g.opts.onChange()
	}
}

// Tasks returns the gateway's task manager.
func (g *Gateway) Tasks() *tasks.Manager { return g.tasks }

// adoptTasks takes over the live tasks an earlier gateway process left (its desktops still run
// them).
func (g *Gateway) adoptTasks() {
	live, err := g.tasks.Store().Live(context.Background())
	if err != nil {
		g.log.Error("tasks: cannot read the live tasks", "err", err)
		return
	}
	for _, r := range live {
		device, dtask, ok := strings.Cut(r.Relay, " ")
		if !ok || r.Node == g.tasks.Options().Node || g.tasks.Options().Alive(r.Node) {
			continue
		}
		err := g.tasks.Adopt(context.Background(), r, func(ctx context.Context, h *tasks.Handle) (*mcp.CallToolResult, error) {
			return g.follow(ctx, h, device, dtask, nil)
		})
		if err != nil {
			g.log.Warn("tasks: cannot take over a task", "task", r.ID, "err", err)
		}
	}
}

// taskable reports whether tool may run as a task here: a desktop offering it runs it as a task.
func (g *Gateway) taskable(name string) bool {
	for _, o := range g.offers(name) {
		if o.dt.task {
			return true
		}
	}
	return false
}

// taskSupport reads a listed tool's execution.taskSupport ("optional" or "required": it runs as
// a task).
func taskSupport(raw json.RawMessage) bool {
	var t struct {
		Execution struct {
			TaskSupport string `json:"taskSupport"`
		} `json:"execution"`
	}
	_ = json.Unmarshal(raw, &t)
	return t.Execution.TaskSupport == "optional" || t.Execution.TaskSupport == "required"
}

// startTask runs an agent's call of tool name as the task tr asks for (see the top of this file).
// The desktop's task exists, and the gateway's is stored, before the agent gets its task.
func (g *Gateway) startTask(ctx context.Context, req *mcp.CallToolRequest, name string, tr *tasks.Request) (*mcp.CallToolResult, error) {
	pick, args, leave, err := g.openCall(ctx, req, name)
	if err != nil {
		return nil, err
	}
	defer leave()
	caps := req.ClientCapabilities()
	if !pick.dt.task {
		// The desktop runs it as a plain call: the gateway task's work forwards it as a call.
		err = tr.Start(ctx, func(wctx context.Context, h *tasks.Handle) (*mcp.CallToolResult, error) {
			return g.call(wctx, req, name, wctx, h.Ask)
		})
		return taskStarted(err)
	}
	owner := g.agentOwner(req)
	params := map[string]any{"name": name, "arguments": args, "task": map[string]any{"ttl": tr.TTL().Milliseconds()}}
	// Down its link here, or (in a cluster) through the replica holding it: the desktop's task
	// is created either way, and a task whose desktop is linked elsewhere is handed over to that
	// replica by its work (follow, linked: replica_tasks.go), which follows it from then on.
	resp, err := g.toolsCall(ctx, pick, params, &call{ctx: ctx, tool: name, owner: owner})
	if err != nil {
		return nil, desktopError(err)
	}
	if resp.Error != nil {
		return nil, rpcErr(resp.Error)
	}
	var created struct {
		Task struct {
			TaskID string `json:"taskId"`
		} `json:"task"`
	}
	_ = json.Unmarshal(resp.Result, &created)
	dtask := created.Task.TaskID
	if dtask == "" {
		// The desktop answered at once (it ran the call plainly): the task has that result.
		var res mcp.CallToolResult
		if err := json.Unmarshal(resp.Result, &res); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "desktop sent a bad tools/call result: " + err.Error()}
		}
		g.noteRun(owner, pick.id, resp.Result)
		return taskStarted(tr.Start(ctx, func(context.Context, *tasks.Handle) (*mcp.CallToolResult, error) { return &res, nil }))
	}
	runID := tasks.RunIDOf(dtask)
	g.claimRun(runID, pick.id, owner, true) // the agent owns the run's resources (owners.go)
	tr.SetRun(runID, pick.id+" "+dtask)
	err = tr.Start(ctx, func(wctx context.Context, h *tasks.Handle) (*mcp.CallToolResult, error) {
		return g.follow(wctx, h, pick.id, dtask, caps)
	})
	if err != nil {
		go g.cancelDesktopTask(pick.id, dtask)
	}
	return taskStarted(err)
}

// taskStarted is the handler's answer once tr.Start returned err (the agent's answer is then the
// task, whatever is returned here).
func taskStarted(err error) (*mcp.CallToolResult, error) {
	var busy *tasks.BusyError
	switch {
	case errors.As(err, &busy):
		return nil, &jsonrpc.Error{Code: CodeUnreachable, Message: busy.Error(), Data: json.RawMessage(`{"kind":"busy"}`)}
	case err != nil:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "cannot create the task: " + err.Error()}
	}
	return &mcp.CallToolResult{}, nil
}

// follow is the work of a gateway task whose desktop runs task dtask: wait for its end
// (tasks/result, relaying its questions through h.Ask when caps allow, or when caps is nil: a
// task taken over after a restart, whose agent answers through the task), following its
// statusMessage, across link drops; cancel it when the task is cancelled here.
func (g *Gateway) follow(ctx context.Context, h *tasks.Handle, device, dtask string, caps *mcp.ClientCapabilities) (*mcp.CallToolResult, error) {
	if caps == nil {
		caps = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}}
	}
	wait := g.opts.TaskRelinkWait
	if wait <= 0 {
		wait = DefaultTaskRelinkWait
	}
	for {
		d, err := g.linked(ctx, h, device, wait)
		if err != nil {
			if h.Cancelled() {
				go g.cancelDesktopTask(device, dtask)
			}
			return nil, err
		}
		mctx, stopMirror := context.WithCancel(ctx)
		go g.mirror(mctx, d, dtask, h)
		resp, err := d.request(ctx, "tasks/result", map[string]any{"taskId": dtask}, &call{ctx: ctx, ask: h.Ask, caps: caps})
		stopMirror()
		if err != nil && h.Cancelled() {
			// The agent cancelled: the task's result is the desktop's cancelled run's, as on rpa
			// serve (none when the desktop cannot be reached now).
			if res := g.cancelledResult(device, dtask); res != nil {
				return res, nil
			}
			return nil, err
		}
		var gone errGone
		switch {
		case errors.As(err, &gone) && ctx.Err() == nil:
			continue // the link dropped: ask again on the next one
		case errors.As(err, &gone):
			return nil, ctx.Err() // the gateway is closing: the next process takes the task over
		case err != nil:
			return nil, err
		case resp.Error != nil:
			return nil, rpcErr(resp.Error)
		}
		var res mcp.CallToolResult
		if err := json.Unmarshal(resp.Result, &res); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "desktop sent a bad tasks/result: " + err.Error()}
		}
		delete(res.Meta, tasks.MetaRelatedTask) // it names the desktop's task
		if len(res.Meta) == 0 {
			res.Meta = nil
		}
		h.Outcome(g.outcome(ctx, d, dtask))
		return &res, nil
	}
}

// linked returns the device's current link, waiting (at most wait) for it to come back. In a
// cluster, once the device links to another replica the task is handed over to it (an error
// says so). It looks again at each change of the gateway's state (stateChanged: a desktop linked
// or went, here or, through the cluster's registry, on another replica), not on a clock.
func (g *Gateway) linked(ctx context.Context, h *tasks.Handle, id string, wait time.Duration) (*device, error) {
	deadline := time.Now().Add(wait)
	said := false
	for {
		var d *device
		elsewhere := false
		look := func() bool {
			g.linkLooks.Add(1)
			d, elsewhere = g.readyLink(id), false
			if d == nil && g.rep != nil {
				elsewhere = g.rep.linkedElsewhere(id)
			}
			return d != nil || elsewhere
		}
		if !look() && !said {
			h.SetMessage(fmt.Sprintf("desktop %q is not linked; waiting for it to come back", id))
			said = true
		}
		ch := g.changes.wait() // before handOver: a change while it runs wakes the wait below
		if !g.awaitState(ctx, look, func() time.Time { return deadline }) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			return nil, &jsonrpc.Error{Code: CodeUnreachable, Message: fmt.Sprintf(
				"desktop %q did not link again within %s; its run %s may still finish there (rpa runs show on it)", id, wait, h.RunID())}
		}
		if d != nil {
			return d, nil
		}
		if other, ok := g.rep.handOver(ctx, h, id); ok {
			return nil, &jsonrpc.Error{Code: CodeUnreachable, Message: fmt.Sprintf("desktop %q links to replica %q now, which follows the task", id, other)}
		}
		// Not handed over (the desktop moved again, or the cluster refused the write): look
		// again at the next change; recheck bounds the wait when the refusal was the cluster's
		// (it announces nothing when it can take the write again).
		t := time.NewTimer(recheck)
		select {
		case <-ctx.Done():
		case <-ch:
		case <-t.C:
		}
		t.Stop()
	}
}

// readyLink returns the device's link here when it is ready, else nil.
func (g *Gateway) readyLink(id string) *device {
	g.mu.Lock()
	d := g.devices[id]
	g.mu.Unlock()
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ready && !d.gone {
		return d
	}
	return nil
}

// outcome is the statusMessage of the desktop's completed task dtask ("the flow finished (run
// ID)"), the gateway task's once it completes; "" when the desktop does not say.
func (g *Gateway) outcome(ctx context.Context, d *device, dtask string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	resp, err := d.request(ctx, "tasks/get", map[string]any{"taskId": dtask}, nil)
	if err != nil || resp.Error != nil {
		return ""
	}
	var t struct {
		Status        string `json:"status"`
		StatusMessage string `json:"statusMessage"`
	}
	if json.Unmarshal(resp.Result, &t) != nil || t.Status != tasks.Completed {
		return ""
	}
	return t.StatusMessage
}

// mirror copies the desktop task's statusMessage to h (tasks/get at its poll interval) until ctx
// ends.
func (g *Gateway) mirror(ctx context.Context, d *device, dtask string, h *tasks.Handle) {
	every := time.Second
	for {
		resp, err := d.request(ctx, "tasks/get", map[string]any{"taskId": dtask}, nil)
		if err != nil {
			return
		}
		var t struct {
			Status        string `json:"status"`
			StatusMessage string `json:"statusMessage"`
			PollInterval  int64  `json:"pollInterval"`
		}
		if resp.Error == nil && json.Unmarshal(resp.Result, &t) == nil {
			if t.Status == tasks.Working && t.StatusMessage != "" {
				h.SetMessage(t.StatusMessage)
				g.taskChanged()
			}
			if t.PollInterval > 0 {
				every = time.Duration(t.PollInterval) * time.Millisecond
			}
		}
		tm := time.NewTimer(every)
		select {
		case <-ctx.Done():
			tm.Stop()
			return
		case <-tm.C:
		}
	}
}

// cancelledResult cancels the desktop's task dtask and returns the result its cancelled run left
// (tasks/result there: an isError result, kind "cancelled"), nil when the desktop is not linked
// here or gives none within 10 seconds.
func (g *Gateway) cancelledResult(device, dtask string) *mcp.CallToolResult {
	g.cancelDesktopTask(device, dtask)
	d := g.readyLink(device)
	if d == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := d.request(ctx, "tasks/result", map[string]any{"taskId": dtask}, nil)
	if err != nil || resp.Error != nil || resp.Result == nil {
		return nil
	}
	var res mcp.CallToolResult
	if json.Unmarshal(resp.Result, &res) != nil {
		return nil
	}
	delete(res.Meta, tasks.MetaRelatedTask) // it names the desktop's task
	if len(res.Meta) == 0 {
		res.Meta = nil
	}
	return &res
}

// cancelDesktopTask asks the desktop to cancel its task (best effort, on its current link).
func (g *Gateway) cancelDesktopTask(device, dtask string) {
	g.mu.Lock()
	d := g.devices[device]
	g.mu.Unlock()
	if d == nil {
		g.log.Warn("cannot cancel a desktop's task: the desktop is not linked", "device", device, "task", dtask)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if resp, err := d.request(ctx, "tasks/cancel", map[string]any{"taskId": dtask}, nil); err != nil || resp.Error != nil {
		g.log.Info("the desktop did not cancel its task (it may have ended)", "device", device, "task", dtask)
	}
}

// desktopError is the agent's error for a request the desktop did not answer.
func desktopError(err error) error {
	var gone errGone
	if errors.As(err, &gone) {
		return &jsonrpc.Error{Code: CodeUnreachable, Message: gone.Error()}
	}
	return err
}

// rpcErr is a desktop's error answer as a *jsonrpc.Error (codes kept).
func rpcErr(err error) *jsonrpc.Error {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return we
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}
