package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/serve/mrtr"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

// progress turns interp events into notifications/progress for a caller
// that sent a progressToken: one per action started, "3/8 click #submit"
// (or "3 click #submit" when the total is not known up front), and while
// an action runs, every Options.Heartbeat, the same message with the time
// spent and a progress value between this action's and the next one's.
// Before the first action, a call that waits for its profile or for a
// browser says so (profiles.Wait: "queued: ...", progress below 1), and
// so do its heartbeats while it waits.
type progress struct {
	ctx    context.Context
	req    *mcp.CallToolRequest
	tok    any
	every  time.Duration
	mu     sync.Mutex
	cur    interp.Event // the action running, Index 0 when none
	at     time.Time    // when it started (or the wait did)
	beat   int          // heartbeats sent for it
	queued string       // the wait before the first action, "" when none
	sent   int          // queued notices sent (heartbeats included)
	stop   chan struct{}
	done   chan struct{}
}

// newProgress returns nil when the caller asked for no progress.
func newProgress(ctx context.Context, req *mcp.CallToolRequest, every time.Duration) *progress {
	tok := req.Params.GetProgressToken()
	if tok == nil || req.Session == nil {
		return nil
	}
	p := &progress{ctx: ctx, req: req, tok: tok, every: every, stop: make(chan struct{}), done: make(chan struct{})}
	go p.heartbeat()
	return p
}

func (p *progress) send(value, total float64, msg string) {
	n := &mcp.ProgressNotificationParams{ProgressToken: p.tok, Progress: value, Message: msg}
	if total > 0 {
		n.Total = total
	}
	// A client that went away must not stall the run.
	_ = p.req.Session.NotifyProgress(p.ctx, n)
}

// wait is the profiles.WithWaitNotice hook: the call is queued.
func (p *progress) wait(w profiles.Wait) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.queued, p.at = w.String(), time.Now()
	p.sendQueuedLocked(p.queued)
}

// sendQueuedLocked sends a queued notice: progress 0, then 1/2, 3/4, ...
// (below the first action's 1). The caller holds p.mu.
func (p *progress) sendQueuedLocked(msg string) {
	p.send(1-math.Pow(0.5, float64(p.sent)), 0, msg)
	p.sent++
}

// event is the interp.Options.Events hook.
func (p *progress) event(ev interp.Event) {
	switch ev.Kind {
	case interp.EventStarted:
		p.mu.Lock()
		p.queued = ""
		p.cur, p.at, p.beat = ev, time.Now(), 0
		p.send(float64(ev.Index), float64(ev.Total), progressMessage(ev))
		p.mu.Unlock()
	case interp.EventFinished:
		p.mu.Lock()
		p.cur = interp.Event{}
		p.mu.Unlock()
	}
}

func (p *progress) heartbeat() {
	defer close(p.done)
	t := time.NewTicker(p.every)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-p.ctx.Done():
			return
		case <-t.C:
			p.mu.Lock()
			if p.queued != "" && time.Since(p.at) >= p.every/2 {
				p.sendQueuedLocked(fmt.Sprintf("%s (waiting %s)", p.queued, time.Since(p.at).Round(time.Second)))
			}
			if p.cur.Index > 0 && time.Since(p.at) >= p.every/2 {
				p.beat++
				// index < value < index+1, increasing with every beat.
				v := float64(p.cur.Index) + 1 - math.Pow(0.5, float64(p.beat))
				p.send(v, float64(p.cur.Total), fmt.Sprintf("%s (running %s)", progressMessage(p.cur), time.Since(p.at).Round(time.Second)))
			}
			p.mu.Unlock()
		}
	}
}

// close stops the heartbeat.
func (p *progress) close() {
	close(p.stop)
	<-p.done
}

func progressMessage(ev interp.Event) string {
	var b strings.Builder
	if ev.Total > 0 {
		fmt.Fprintf(&b, "%d/%d %s", ev.Index, ev.Total, ev.Action)
	} else {
		fmt.Fprintf(&b, "%d %s", ev.Index, ev.Action)
	}
	if ev.Target != "" {
		b.WriteString(" " + ev.Target)
	}
	return b.String()
}

// flowHostArgs are the arguments every workflow tool takes beside its
// flow's params (PROTOCOL.md, "Tools" and "Resume"); takeFlowCall takes
// them out of a call before the flow's check.
var flowHostArgs = []lang.HostArg{
	{Name: ProfileArg, Property: lang.Property{Type: "string", Description: "Browser profile ID (optional override)"}},
	{Name: ResumeRunArg, Property: lang.Property{Type: "string", Description: "Resume this failed run (its runId) from its failed line"}},
	{Name: ResumeFromArg, Property: lang.Property{Type: "integer", Description: "With resumeRunId, the line to resume from"}},
}

// flowCall is a workflow call's arguments after the one check: the
// server's own taken out (profile, resume) and the flow's checked by the
// flow (lang.Flow.CheckArgs).
type flowCall struct {
	profile string
	resume  *resumeReq // nil: a fresh run
	args    lang.Args
	// named are the arguments as the caller gave them (an account by its
	// name: what the run record keeps); args have the accounts resolved
	// (accounts.go), whose names are accounts.
	named    lang.Args
	accounts []string
}

// takeFlowCall takes the server's arguments out of args and checks the
// rest against the flow; a call that resumes one of its caller's held runs
// runs on that run's profile, with its own arguments (the run's, secrets
// among them, are never reused for another call). Errors are JSON-RPC
// -32602 naming the field.
func (s *Server) takeFlowCall(req *mcp.CallToolRequest, e *flowEntry, args map[string]any) (*flowCall, error) {
	profile, ok := args[ProfileArg].(string)
	if _, given := args[ProfileArg]; given && !ok {
		return nil, argError(&ArgError{Field: ProfileArg, Msg: "want a string, got " + lang.TypeName(args[ProfileArg])})
	}
	delete(args, ProfileArg)
	callerProfile := profile
	if profile == "" {
		profile = e.profile
	}
	if profile == "" {
		profile = profiles.DefaultProfile
	}
	if err := profiles.ValidID(profile); err != nil {
		return nil, argError(&ArgError{Field: ProfileArg, Msg: err.Error()})
	}
	resume, err := s.takeResume(req, e, args) // resume.go; nil unless resumeRunId
	if err != nil {
		return nil, err
	}
	if resume != nil {
		profile = resume.run.profile
	}
	typed, err := e.flow.CheckArgs(args)
	if err != nil {
		var ae *lang.ArgError
		if !errors.As(err, &ae) {
			return nil, rpcError(CodeInvalidParams, "invalid arguments: "+err.Error(), nil)
		}
		msg := "invalid " + ae.Error()
		if ae.Several {
			msg = "invalid arguments: " + ae.Msg
		}
		return nil, rpcError(CodeInvalidParams, msg, map[string]any{"field": ae.Field})
	}
	fc := &flowCall{profile: profile, resume: resume, args: typed}
	if err := s.resolveAccounts(e, fc, callerProfile); err != nil { // accounts.go
		return nil, err
	}
	return fc, nil
}

// callWorkflow runs one flow tool call: the run on the profile's warm
// browser with the call's checked arguments, the result.
func (s *Server) callWorkflow(ctx context.Context, req *mcp.CallToolRequest, e *flowEntry, fc *flowCall) (*mcp.CallToolResult, error) {
	if multiRoundTrip(req) {
		// The run goes on across calls while it waits for the client's
		// answers (mrtr.go).
		if req.Params.RequestState != "" {
			return s.paused.Resume(ctx, s.ownerOf(req).Key(), req)
		}
		return s.paused.Start(ctx, s.ownerOf(req).Key(), func(rctx context.Context, p *mrtr.Call) (*mcp.CallToolResult, error) {
			return s.runWorkflow(rctx, req, e, fc, callMode{pause: p})
		})
	}
	return s.runWorkflow(ctx, req, e, fc, callMode{})
}

// callMode says how a call that does not simply block its request talks
// to its caller: paused across the requests of a multi-round-trip client
// (pause; then no progress: its token belongs to the first call), or as a
// task (task: questions become the task's input, progress its
// statusMessage, the run has the task's run ID; tasks.go).
type callMode struct {
	pause *mrtr.Call
	task  *tasks.Handle
}

// runWorkflow is callWorkflow's run (and a task's work, tasks.go).
func (s *Server) runWorkflow(ctx context.Context, req *mcp.CallToolRequest, e *flowEntry, fc *flowCall, mode callMode) (*mcp.CallToolResult, error) {
	profile, resume, typed := fc.profile, fc.resume, fc.args
	secrets := typed.Secrets()
	s.rememberSecrets(profile, secrets)

	releaseAccounts, noteRun, err := s.takeAccounts(ctx, fc.accounts) // accounts.go
	if err != nil {
		return nil, err
	}
	defer releaseAccounts()
	var events func(interp.Event)
	pctx := ctx
	if mode.pause != nil {
		pctx = mode.pause.First() // progress goes to the first call only
	}
	actx := ctx // a call that waits for its profile or a browser says so
	if mode.task != nil {
		events = taskEvents(mode.task) // tasks.go: the step is the task's statusMessage
		actx = profiles.WithWaitNotice(ctx, func(w profiles.Wait) { mode.task.SetMessage(w.String()) })
	} else if pr := newProgress(pctx, req, s.opts.Heartbeat); pr != nil {
		defer pr.close()
		events = pr.event
		actx = profiles.WithWaitNotice(ctx, pr.wait)
	}
	if len(fc.accounts) > 0 {
		// The account's profile held by another rpa process (its idle
		// browser: it hands it over) is waited for as long as the account.
		actx = profiles.WithClaimWait(actx, s.accountWait())
	}
	l, err := s.acquire(actx, profile)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	l.AddSecrets(secrets...) // scrubbed from the profile folder when its browser closes
	named := fc.named
	if named.IsZero() {
		named = typed
	}
	rec := s.startRecord(req, e, named, profile, secrets, resume, mode.runID()) // runs.go; nil when not recorded
	if rec != nil {
		noteRun(rec.rec.ID())
	}
	events = s.tapEvents(req, events) // tap.go: an in-process watcher (the console)
	events = rec.hook(events, l.Page())
	hctx, healFlush := s.healCtx(ctx, e, rec) // heal.go
	hctx = hitl.WithAsker(hctx, rec.asker(e.flow.File.Name))
	res, page := interp.Run(hctx, e.flow, interp.Options{
		Args:    typed,
		Browser: l.Browser(),
		Page:    l.Page(),
		Flows:   s.reg.lookup,
		Events:  events,
		Host:    s.hostFor(req, profile, mode),
		Mask:    rec.mask(), // runs.go; nil when not recorded
		// resume.go: nil and 0 for a fresh run
		Resume:     resume.checkpoint(),
		ResumeFrom: resume.fromLine(),
	})
	healFlush()
	// nil (the flow closed its last tab): the next reader falls back to
	// the newest open tab.
	l.SetPage(page)
	if res != nil && res.Error != nil && res.Error.Kind == core.KindBrowser {
		l.MarkBroken() // the next call checks it and replaces it if dead
	}
	if res != nil && res.Error != nil && (res.Error.Kind == core.KindCancelled || res.Error.Kind == core.KindTimeout) {
		l.Interrupted() // Release stops the tab's loading for the next caller
	}
	if res == nil {
		return nil, rpcError(CodeBuiltinFailed, "the interpreter returned no result", nil)
	}
	fin := rec.finish(ctx, s, res, page)
	if mode.task != nil {
		mode.task.Outcome(taskOutcome(res, fin)) // tasks.go
	}
	if res.Error != nil {
		res.Error.File = s.shownFile(res.Error.File)
	}
	out, err := flowResultRun(res, secrets, fin)
	res.RemoveTempFiles() // after the evidence took its copy
	return out, err
}

// shownFile is a flow's file as a result names it: relative to FlowsDir
// (slash-separated) when it lies there, else its base name. A result goes
// to agents that may sit on another machine (through a gateway): they
// learn the flow's name, never the desktop's folders; the run record keeps
// the whole path.
func (s *Server) shownFile(file string) string {
	if file == "" {
		return ""
	}
	if s.opts.FlowsDir != "" {
		if dir, err := filepath.Abs(s.opts.FlowsDir); err == nil {
			if abs, err := filepath.Abs(file); err == nil {
				if rel, err := filepath.Rel(dir, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
					return filepath.ToSlash(rel)
				}
			}
		}
	}
	return filepath.Base(file)
}

// flowResult renders a WorkflowExecutionResult as the tool result: the
// JSON text content and the same object as structuredContent; isError when
// the flow failed. Secret values are masked once more as a last guard.
func flowResult(res *interp.Result, secrets []string) (*mcp.CallToolResult, error) {
	if res.Results == nil {
		res.Results = []*interp.StepResult{}
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, rpcError(CodeBuiltinFailed, "cannot encode the result: "+err.Error(), nil)
	}
	text := maskString(string(raw), jsonEscaped(secrets))
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: json.RawMessage(text),
		IsError:           !res.Success,
	}, nil
}

// jsonEscaped returns each secret as it appears inside a JSON string.
func jsonEscaped(secrets []string) []string {
	out := make([]string, 0, len(secrets))
	for _, s := range secrets {
		raw, _ := json.Marshal(s)
		if e := string(raw[1 : len(raw)-1]); utf8.RuneCountInString(s) >= interp.MinSubstring { // shorter ones are masked as whole values only (interp.Mask)
			out = append(out, e)
		}
	}
	return out
}

// flowExec runs an `exec` action of a served flow under the same policy
// as desktop_exec (execpolicy.Policy.Exec).
func (s *Server) flowExec(ctx context.Context, c core.ExecCommand) (*core.ExecResult, error) {
	return s.exec.Exec(ctx, c)
}
