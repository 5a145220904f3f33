package ui

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
	"github.com/rpa-dev/rpa/interp"
)

// LiveEvent is one server-sent event of a live run (PROTOCOL.md has no part in it: it is the
// console's own page protocol, event names "step", "log" and "done").
type LiveEvent struct {
	// Seq numbers the run's events from 1 (the SSE id; a reconnecting page resumes after it).
	Seq int `json:"seq"`
	// Kind is interp's event kind ("started", "finished", "log") or "done".
	Kind string `json:"kind"`
	// Index is the 1-based action number, Total the number of actions when known (else 0).
	Index int `json:"index,omitempty"`
	Total int `json:"total,omitempty"`
	// Action and Target name the action and its first argument (masked by interp).
	Action string `json:"action,omitempty"`
	Target string `json:"target,omitempty"`
	// Line is the flow line.
	Line int `json:"line,omitempty"`
	// Status is ok, failed or skipped (finished events), or the run's outcome (done).
	Status string `json:"status,omitempty"`
	// DurationMs is the action's duration (finished events).
	DurationMs int64 `json:"durationMs,omitempty"`
	// Summary is the short form of an output or an error (masked by interp), or a log line.
	Summary string `json:"summary,omitempty"`
	// AtMs is when the event happened, in ms since the run started.
	AtMs int64 `json:"atMs"`
}

// LiveRun is a run started from the console, watched live. Its methods are safe for concurrent
// use.
type LiveRun struct {
	// ID identifies the live run in the console (not the run store's ID: see Outcome.RunID).
	ID string
	// Flow is the flow NAME, Tool its tool.
	Flow, Tool string
	// Profile is the profile asked for ("" = the flow's).
	Profile string
	// Started is when the run was started.
	Started time.Time

	cancel context.CancelFunc

	mu     sync.Mutex
	rerun  string // the Run form filled in again (RunFormURL)
	events []LiveEvent
	wake   chan struct{} // closed and replaced at every change
	out    *RunOutcome
	gotAt  []time.Time // when each event was added (benchmark)
}

// RunOutcome is a finished live run.
type RunOutcome struct {
	// Success is the flow's outcome.
	Success bool
	// Status is "ok", "failed", "cancelled" or "error" (the call itself failed: bad arguments,
	// no browser).
	Status string
	// RunID is the run store's ID ("" when the run was not recorded).
	RunID string
	// DurationMs is the run's duration.
	DurationMs int64
	// Outputs is the flow's return value (ordered JSON).
	Outputs any
	// Steps are the executed actions.
	Steps []interp.StepResult
	// Log is the run log.
	Log []string
	// Error is the run's error (nil on success).
	Error *interp.RunError
	// Failure is the failure packet (ordered JSON; nil on success or when not recorded).
	Failure any
	// Image is the failure screenshot (JPEG or PNG), ImageType its MIME type.
	Image     []byte
	ImageType string
	// CallError is the error of a call that did not run the flow (with CallCode, the JSON-RPC
	// code).
	CallError string
	CallCode  int64
}

type liveKey struct{}

// liveTable keeps the console's live runs (the newest maxLive).
type liveTable struct {
	mu   sync.Mutex
	runs map[string]*LiveRun
}

// maxLive is how many live runs the console remembers (the run store keeps them all).
const maxLive = 50

func (s *Server) live() *liveTable {
	return s.Value(liveKey{}, func() any { return &liveTable{runs: map[string]*LiveRun{}} }).(*liveTable)
}

// LiveRun returns the live run with id.
func (s *Server) LiveRun(id string) (*LiveRun, bool) {
	t := s.live()
	t.mu.Lock()
	defer t.mu.Unlock()
	lr, ok := t.runs[id]
	return lr, ok
}

// URL is the live run's page.
func (lr *LiveRun) URL() string { return "/live/" + lr.ID }

// add appends an event and wakes the watchers.
func (lr *LiveRun) add(ev LiveEvent) {
	now := time.Now()
	lr.mu.Lock()
	ev.Seq = len(lr.events) + 1
	ev.AtMs = now.Sub(lr.Started).Milliseconds()
	lr.events = append(lr.events, ev)
	lr.gotAt = append(lr.gotAt, now)
	close(lr.wake)
	lr.wake = make(chan struct{})
	lr.mu.Unlock()
}

// onEvent is the run's interp event hook (mcpserver.WatchCall): never blocks.
func (lr *LiveRun) onEvent(ev interp.Event) {
	lr.add(LiveEvent{Kind: ev.Kind, Index: ev.Index, Total: ev.Total, Action: ev.Action, Target: ev.Target,
		Line: ev.Line, Status: ev.Status, DurationMs: ev.DurationMs, Summary: ev.Summary})
}

// Events returns the events after seq, whether the run is done, and a channel closed at the next
// change.
func (lr *LiveRun) Events(after int) ([]LiveEvent, bool, <-chan struct{}) {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	if after < 0 {
		after = 0
	}
	var evs []LiveEvent
	if after < len(lr.events) {
		evs = append(evs, lr.events[after:]...)
	}
	return evs, lr.out != nil, lr.wake
}

// Outcome is the finished run (nil while it runs).
func (lr *LiveRun) Outcome() *RunOutcome {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	return lr.out
}

// setRerun sets the Run form URL of "Run again" (the non-secret arguments of this run; profile
// chosen again).
func (lr *LiveRun) setRerun(u, profile string) {
	if profile != "" {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		u += sep + "profile=" + url.QueryEscape(profile)
	}
	lr.mu.Lock()
	lr.rerun = u
	lr.mu.Unlock()
}

// Rerun is the Run form filled in with this run's arguments but its secrets ("" when the run
// was not started from the form).
func (lr *LiveRun) Rerun() string {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	return lr.rerun
}

// Stop cancels the run (the server records it as cancelled).
func (lr *LiveRun) Stop() { lr.cancel() }

type toolsKey struct{}

// toolSession is the console's session with Options.Tools, redialled when it died.
type toolSession struct {
	mu sync.Mutex
	c  *toolClient
}

func (s *Server) session(ctx context.Context) (*toolClient, error) {
	if s.opts.Tools == nil {
		return nil, errors.New("this console was started without tools: runs are not available")
	}
	ts := s.Value(toolsKey{}, func() any { return &toolSession{} }).(*toolSession)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.c != nil && ts.c.alive() {
		return ts.c, nil
	}
	c, err := dialTools(ctx, s.opts.Tools)
	if err != nil {
		return nil, err
	}
	ts.c = c
	return c, nil
}

// randomID is 16 random hex digits.
func randomID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// StartRun starts the published flow NAME (its tool workflow_NAME of Options.Tools) with args
// (JSON values as its inputSchema wants, secrets included: the console keeps none of them) on
// profile ("" = the flow's `defaults profile:`, else "default"), and returns the live run at
// once; its page is LiveRun.URL. UI-B's Rerun uses it (or RunFormURL, to ask for secrets again).
// The error is for a console without tools or an unknown tool; anything else (bad arguments, a
// browser that does not start) ends the live run with Outcome.CallError.
func (s *Server) StartRun(flow string, args map[string]any, profile string) (*LiveRun, error) {
	if s.opts.Tools == nil {
		return nil, errors.New("this console was started without tools: runs are not available")
	}
	tool := mcpserver.ToolName(flow)
	if _, ok := s.opts.Tools.Tool(tool); !ok {
		return nil, fmt.Errorf("no published tool %s", tool)
	}
	sess, err := s.session(s.runCtx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(s.runCtx)
	lr := &LiveRun{ID: randomID(), Flow: flow, Tool: tool, Profile: profile, Started: time.Now(), cancel: cancel, wake: make(chan struct{})}
	t := s.live()
	t.mu.Lock()
	t.runs[lr.ID] = lr
	if len(t.runs) > maxLive {
		var old []*LiveRun
		for _, r := range t.runs {
			if r.Outcome() != nil {
				old = append(old, r)
			}
		}
		sort.Slice(old, func(i, j int) bool { return old[i].Started.Before(old[j].Started) })
		for i := 0; i < len(old) && len(t.runs) > maxLive; i++ {
			delete(t.runs, old[i].ID)
		}
	}
	t.mu.Unlock()

	callArgs := make(map[string]any, len(args)+1)
	for k, v := range args {
		callArgs[k] = v
	}
	if profile != "" {
		callArgs[mcpserver.ProfileArg] = profile
	}
	tok := "rpa-console-" + lr.ID
	stop := s.opts.Tools.WatchCall(tok, lr.onEvent)
	s.Logf("ui: run %s started (%s)", lr.ID, tool) // never the arguments
	go func() {
		defer cancel()
		defer stop()
		raw, err := sess.call(ctx, "tools/call", map[string]any{
			"name": tool, "arguments": callArgs, "_meta": map[string]any{"progressToken": tok}})
		out := outcomeOf(raw, err)
		if out.Status == "error" && ctx.Err() != nil {
			out.Status = "cancelled"
		}
		lr.mu.Lock()
		lr.out = out
		lr.mu.Unlock()
		lr.add(LiveEvent{Kind: "done", Status: out.Status, DurationMs: out.DurationMs})
		s.Logf("ui: run %s ended: %s", lr.ID, out.Status)
	}()
	return lr, nil
}

// outcomeOf reads a tools/call answer.
func outcomeOf(raw json.RawMessage, err error) *RunOutcome {
	out := &RunOutcome{}
	if err != nil {
		out.Status, out.CallError = "error", err.Error()
		var re *rpcError
		if errors.As(err, &re) {
			out.CallCode = re.Code
		}
		return out
	}
	var res struct {
		Content []struct {
			Type     string `json:"type"`
			Data     string `json:"data"`
			MIMEType string `json:"mimeType"`
		} `json:"content"`
		Structured json.RawMessage `json:"structuredContent"`
		IsError    bool            `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		out.Status, out.CallError = "error", "unreadable tool result: "+err.Error()
		return out
	}
	for _, c := range res.Content {
		if c.Type == "image" && out.Image == nil {
			if b, err := base64.StdEncoding.DecodeString(c.Data); err == nil {
				out.Image, out.ImageType = b, c.MIMEType
			}
		}
	}
	var r struct {
		Success    bool                `json:"success"`
		Results    []interp.StepResult `json:"results"`
		Outputs    json.RawMessage     `json:"outputs"`
		Error      *interp.RunError    `json:"error"`
		DurationMs int64               `json:"durationMs"`
		Log        []string            `json:"log"`
		RunID      string              `json:"runId"`
		Failure    json.RawMessage     `json:"failure"`
	}
	if err := json.Unmarshal(res.Structured, &r); err != nil {
		out.Status, out.CallError = "error", "unreadable tool result: "+err.Error()
		return out
	}
	out.Success, out.Steps, out.Error, out.DurationMs, out.Log, out.RunID = r.Success, r.Results, r.Error, r.DurationMs, r.Log, r.RunID
	if len(r.Outputs) > 0 && string(r.Outputs) != "null" {
		out.Outputs, _ = decodeOrdered(r.Outputs)
	}
	if len(r.Failure) > 0 && string(r.Failure) != "null" {
		out.Failure, _ = decodeOrdered(r.Failure)
	}
	switch {
	case r.Success:
		out.Status = "ok"
	case r.Error != nil && r.Error.Kind == core.KindCancelled:
		out.Status = "cancelled"
	default:
		out.Status = "failed"
	}
	return out
}

// RunFormURL is the Run page of flow NAME with args filled in (secrets are never put in a URL:
// leave them out, the person types them again), for Rerun.
func RunFormURL(flow string, args map[string]any) string {
	q := url.Values{}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch v := args[k].(type) {
		case string:
			q.Set("a."+k, v)
		case nil:
		default:
			b, err := json.Marshal(v)
			if err == nil {
				q.Set("a."+k, string(b))
			}
		}
	}
	u := "/run/" + url.PathEscape(flow)
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// startSSE answers with an event stream (text/event-stream, not stored, not buffered by a
// proxy) and sends its headers at once; the controller flushes what follows.
func startSSE(w http.ResponseWriter) *http.ResponseController {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	return rc
}

// sseEvents streams a live run's events (text/event-stream): "step" and "log" events as they
// happen, then "done". A reconnecting EventSource resumes after its Last-Event-ID.
func sseEvents(s *Server, w http.ResponseWriter, r *http.Request) {
	lr, ok := s.LiveRun(r.PathValue("id"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	s.stream(w, r, func(after int) ([]sseEvent, <-chan struct{}) {
		evs, _, wake := lr.Events(after)
		out := make([]sseEvent, len(evs))
		for i, ev := range evs {
			name := "step"
			switch ev.Kind {
			case "log":
				name = "log"
			case "done":
				name = "done"
			}
			out[i] = sseEvent{seq: ev.Seq, name: name, data: ev, last: ev.Kind == "done"}
		}
		return out, wake
	})
}

// sseEvent is one server-sent event of Server.stream.
type sseEvent struct {
	seq  int    // its id
	name string // its event name
	data any    // encoded as JSON
	last bool   // the stream ends after it
}

// stream answers r with server-sent events (text/event-stream): next gives the events after a
// sequence number (from Last-Event-ID, else ?after=, else 0) and a channel closed at the next
// change. It ends after an event marked last, when the page goes or the console closes, and
// sends a keep-alive comment every 15 s of quiet.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, next func(after int) ([]sseEvent, <-chan struct{})) {
	after := 0
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		after, _ = strconv.Atoi(v)
	} else if v := r.URL.Query().Get("after"); v != "" {
		after, _ = strconv.Atoi(v)
	}
	if after < 0 {
		after = 0
	}
	rc := startSSE(w)
	for {
		evs, wake := next(after)
		for _, ev := range evs {
			b, _ := json.Marshal(ev.data)
			if _, err := fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", ev.seq, ev.name, b); err != nil {
				return
			}
			after = ev.seq
			if ev.last {
				_ = rc.Flush()
				return
			}
		}
		if err := rc.Flush(); err != nil {
			return
		}
		select {
		case <-wake:
		case <-r.Context().Done():
			return
		case <-s.runCtx.Done():
			return
		case <-time.After(15 * time.Second):
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
		}
	}
}
