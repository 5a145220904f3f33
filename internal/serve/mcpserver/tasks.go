package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/runs/record"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
	"github.com/rpa-dev/rpa/interp"
)

// Tasks (PROTOCOL.md, "Tasks"): a workflow call may run as a task, in both
// protocol eras (package tasks). The task is the call's run: its id begins
// with the run ID, its statusMessage is the step the run is on, its result
// is what the plain call would return.

// startTasks builds the server's task manager and attaches it to the MCP
// server (before the server's own middleware, so an unknown tool is
// -32003 first).
func (s *Server) startTasks() error {
	store := tasks.Store(&tasks.MemStore{})
	if s.opts.Runs != nil {
		store = tasks.RunStore(s.opts.Runs)
	}
	s.tasks = tasks.New(tasks.Options{Store: store, Max: s.opts.MaxTasks, TTL: s.opts.TaskTTL, MaxTTL: s.opts.TaskMaxTTL,
		Life: s.ctx, Log: s.log, Changed: s.taskChanged})
	if err := s.tasks.Recover(context.Background()); err != nil {
		return err
	}
	// A task belongs to its caller by the rule of runs (runs.Owner,
	// runowner.go).
	f := &tasks.Front{M: s.tasks, Taskable: s.taskable,
		Who: func(req mcp.Request) tasks.Who { return tasks.Who{Owner: s.ownerOf(req), Live: s.callers.live} }}
	return f.Attach(s.srv)
}

// Tasks returns the server's task manager.
func (s *Server) Tasks() *tasks.Manager { return s.tasks }

// taskable reports whether tool may run as a task: the workflow tools.
func (s *Server) taskable(name string) bool {
	t, ok := s.lookupTool(name)
	return ok && t.flow != nil
}

// startTask runs a validated workflow call as the task tr asks for: the
// task is stored before this returns (the caller's answer is the task),
// the run goes on in the task's work.
func (s *Server) startTask(ctx context.Context, req *mcp.CallToolRequest, t *tool, fc *flowCall, tr *tasks.Request) (*mcp.CallToolResult, error) {
	err := tr.Start(ctx, func(wctx context.Context, h *tasks.Handle) (*mcp.CallToolResult, error) {
		start := time.Now()
		if p := fc.profile; p != "" && !s.opts.ShareProfiles {
			who := s.claimKey(req, fc)
			if !s.owners.claim(who, p, time.Now()) {
				return nil, profileInUse(p)
			}
			defer func() { s.owners.done(who, p, time.Now()) }()
		}
		res, err := s.runWorkflow(wctx, req, t.flow, fc, callMode{task: h})
		if err != nil {
			err = s.publicError(t.def.Name, err)
		}
		attrs := []any{"tool", t.def.Name, "task", h.ID(), "ms", time.Since(start).Milliseconds()}
		switch {
		case err != nil:
			s.log.Info("task call failed", append(attrs, "error", err.Error())...)
		case res.IsError:
			s.log.Info("task call returned an error result", attrs...)
		default:
			s.log.Info("task call ok", attrs...)
		}
		return res, err
	})
	var busy *tasks.BusyError
	switch {
	case errors.As(err, &busy):
		return nil, rpcError(CodeBrowser, busy.Error(), map[string]any{"kind": "busy"})
	case err != nil:
		return nil, rpcError(CodeBuiltinFailed, "cannot create the task: "+err.Error(), nil)
	}
	return &mcp.CallToolResult{}, nil // the answer is the task (tasks.Front)
}

// runID is the run ID a call records under ("" for a new one).
func (m callMode) runID() string {
	if m.task != nil {
		return m.task.RunID()
	}
	return ""
}

// taskEvents makes each action's start the task's statusMessage:
// `line 14: click "#submit"`.
func taskEvents(h *tasks.Handle) func(interp.Event) {
	return func(ev interp.Event) {
		if ev.Kind != interp.EventStarted {
			return
		}
		msg := fmt.Sprintf("line %d: %s", ev.Line, ev.Action)
		if ev.Target != "" {
			msg += fmt.Sprintf(" %q", ev.Target)
		}
		h.SetMessage(msg)
	}
}

// taskOutcome is a finished run's statusMessage.
func taskOutcome(res *interp.Result, fin *record.Finished) string {
	run := ""
	if fin != nil && fin.ID != "" {
		run = " (run " + fin.ID + ")"
	}
	if res == nil || res.Success || res.Error == nil {
		return "the flow finished" + run
	}
	e := res.Error
	at := ""
	if e.Line > 0 {
		at = fmt.Sprintf(" at line %d", e.Line)
	}
	return fmt.Sprintf("the flow failed%s: %s%s", at, e.Message, run)
}
