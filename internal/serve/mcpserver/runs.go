package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/record"
	"github.com/rpa-dev/rpa/internal/runs/report"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

// This file records workflow calls in the run store (Options.Runs) and
// serves the runs as MCP resources (PROTOCOL.md, "Runs"):
//
//	rpa://runs/{id}                    the record as JSON (run + steps)
//	rpa://runs/{id}/report.html        the HTML report
//	rpa://runs/{id}/screenshots/{n}.png a failure screenshot (n: the step index)
//	rpa://runs/{id}/screenshots/{n}.jpg a step screenshot (evidence full)
//
// resources/list lists the caller's most recent runs (RecentRuns of them);
// only a run's owner reads its resources (runs.Owner; another caller gets
// "Resource not found", as for a run that does not exist).

// RecentRuns is how many runs resources/list lists.
const RecentRuns = 50

// RunURIPrefix starts every run resource URI.
const RunURIPrefix = "rpa://runs/"

// runsOf returns the run store, nil when runs are not recorded.
func (s *Server) runsOf() *runs.Store { return s.opts.Runs }

// addRunResources registers the run resource templates and the
// resources/list middleware (a no-op without a run store).
func (s *Server) addRunResources() {
	if s.runsOf() == nil {
		return
	}
	for _, t := range []*mcp.ResourceTemplate{
		{Name: "run", Title: "A recorded run", URITemplate: RunURIPrefix + "{id}", MIMEType: "application/json",
			Description: "One run of a flow: flow, arguments (secrets ***), caller, status, error, steps (index, action, line, status, durationMs, selector, selectorIndex, error)."},
		{Name: "run-report", Title: "A run's report", URITemplate: RunURIPrefix + "{id}/report.html", MIMEType: "text/html",
			Description: "The run's self-contained HTML report (timeline, selectors, screenshots, errors)."},
		{Name: "run-screenshot", Title: "A run's screenshot", URITemplate: RunURIPrefix + "{id}/screenshots/{n}.png", MIMEType: "image/png",
			Description: "The screenshot taken at a failed step n (the target outlined when it was found)."},
		{Name: "run-step-screenshot", Title: "A run's step screenshot", URITemplate: RunURIPrefix + "{id}/screenshots/{n}.jpg", MIMEType: "image/jpeg",
			Description: "The small screenshot taken after page action n (evidence full)."},
	} {
		s.srv.AddResourceTemplate(t, s.readRun)
	}
	s.srv.AddReceivingMiddleware(s.listRunsMiddleware)
}

// listRunsMiddleware adds the recent runs to resources/list.
func (s *Server) listRunsMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "resources/list" || err != nil {
			return res, err
		}
		lr, ok := res.(*mcp.ListResourcesResult)
		if !ok {
			return res, err
		}
		o := s.ownerOf(req)
		l, lerr := s.runsOf().List(runs.Filter{Limit: RecentRuns, Owner: &o, Live: s.callers.live})
		if lerr != nil {
			return res, err
		}
		for _, r := range l {
			lr.Resources = append(lr.Resources, &mcp.Resource{
				URI: RunURIPrefix + r.ID, Name: "run " + r.ID, MIMEType: "application/json",
				Title:       fmt.Sprintf("%s %s (%s)", r.Flow, r.Status, r.Start.Format("2006-01-02 15:04:05")),
				Description: runLine(r),
			})
		}
		return lr, nil
	}
}

func runLine(r *runs.Run) string {
	s := fmt.Sprintf("%s: %s in %d ms, %d actions", r.Flow, r.Status, r.DurationMs, r.Actions)
	if r.ErrorKind != "" {
		s += fmt.Sprintf("; %s at line %d", r.ErrorKind, r.ErrorLine)
	}
	return s
}

// RunRecord is the JSON of rpa://runs/{id}.
type RunRecord struct {
	*runs.Run
	Steps []runs.Step `json:"steps"`
	// Report is the report's resource URI.
	Report string `json:"report"`
	// Screenshots are the screenshot resource URIs.
	Screenshots []string `json:"screenshots"`
	// Failure is the failure packet (failed runs).
	Failure json.RawMessage `json:"failure,omitempty"`
}

// readRun serves the three run resource forms.
func (s *Server) readRun(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	st := s.runsOf()
	rest, ok := strings.CutPrefix(uri, RunURIPrefix)
	if !ok || st == nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	id, sub, _ := strings.Cut(rest, "/")
	if runs.ValidID(id) != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	r, err := st.Get(id)
	if err != nil || !s.owns(req, runs.OwnerOf(r.Caller)) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	switch {
	case sub == "":
		rec, err := runRecord(st, r)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(rec)
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
	case sub == report.FileName:
		path := filepath.Join(st.RunDir(id), report.FileName)
		b, err := os.ReadFile(path)
		if err != nil {
			// A run recorded without one (interrupted): write it now.
			if path, err = report.WriteFile(st, id, report.Options{}); err == nil {
				b, err = os.ReadFile(path)
			}
			if err != nil {
				return nil, mcp.ResourceNotFoundError(uri)
			}
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/html", Text: string(b)}}}, nil
	case strings.HasPrefix(sub, "screenshots/") && (strings.HasSuffix(sub, ".png") || strings.HasSuffix(sub, ".jpg")):
		name := strings.TrimPrefix(sub, "screenshots/")
		ext := filepath.Ext(name)
		n, err := strconv.Atoi(strings.TrimSuffix(name, ext))
		if err != nil || n < 0 {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		b, err := os.ReadFile(filepath.Join(st.RunDir(id), "screenshots", strconv.Itoa(n)+ext))
		if err != nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		mime := "image/png"
		if ext == ".jpg" {
			mime = "image/jpeg"
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Blob: b}}}, nil
	}
	return nil, mcp.ResourceNotFoundError(uri)
}

// runRecord assembles the JSON record of r.
func runRecord(st *runs.Store, r *runs.Run) (*RunRecord, error) {
	steps, err := st.Steps(r.ID)
	if err != nil {
		return nil, err
	}
	pub := *r
	if pub.FlowPath != "" {
		pub.FlowPath = filepath.Base(pub.FlowPath) // never a host path in a resource
	}
	rec := &RunRecord{Run: &pub, Steps: steps, Report: RunURIPrefix + r.ID + "/" + report.FileName, Screenshots: []string{}}
	files, _ := filepath.Glob(filepath.Join(st.RunDir(r.ID), "screenshots", "*.*"))
	for _, f := range files {
		if e := filepath.Ext(f); e != ".png" && e != ".jpg" {
			continue
		}
		rec.Screenshots = append(rec.Screenshots, RunURIPrefix+r.ID+"/screenshots/"+filepath.Base(f))
	}
	if b, err := os.ReadFile(filepath.Join(st.RunDir(r.ID), "failure.json")); err == nil && json.Valid(b) {
		rec.Failure = b
	}
	return rec, nil
}

// callRecord is the recording of one workflow call (nil when runs are
// not recorded or the record could not start).
type callRecord struct {
	rec     *record.Recorder
	flow    *lang.Flow
	profile string
	owner   runs.Owner  // who may resume it (resume.go)
	caller  runs.Caller // who called, for the questions the run asks (asker)
}

// asker names the run for the questions it asks (hitl.WithAsker): the
// flow, the run's ID and its caller; only the flow when not recorded.
func (c *callRecord) asker(flow string) hitl.Asker {
	if c == nil {
		return hitl.Asker{Flow: flow}
	}
	return hitl.Asker{Flow: flow, Run: c.rec.ID(), Caller: runs.CallerText(c.caller)}
}

// startRecord begins the record of a workflow call.
// runID is the run ID to record under ("": a new one; a task's run has
// the ID its task id begins with).
func (s *Server) startRecord(req *mcp.CallToolRequest, e *flowEntry, typed lang.Args, profile string, secrets []string, resume *resumeReq, runID string) *callRecord {
	st := s.runsOf()
	if st == nil {
		return nil
	}
	var o runs.Owner
	if req != nil {
		o = s.ownerOf(req) // caller.go: the session's digest, never the raw ID (a credential)
	}
	if o.Desktop {
		o = runs.Owner{Kind: runs.CallerMCP}
		if req.Session != nil {
			o.Session = s.callers.session(req.Session)
		}
	}
	caller := runs.Caller{Kind: o.Kind, Session: o.Session, Token: o.Token, Device: s.opts.RunDevice}
	if caller.Kind == "" {
		caller.Kind = runs.CallerMCP
	}
	if req != nil && req.Session != nil {
		if ip := req.Session.InitializeParams(); ip != nil && ip.ClientInfo != nil {
			caller.Client = ip.ClientInfo.Name
		}
	}
	rec, err := record.Start(record.Options{Store: st, Flow: e.flow, Args: typed, Caller: caller, Profile: profile,
		Evidence: s.opts.Evidence, Secrets: secrets, PacketBudget: s.opts.PacketBudget, ResumedFrom: resume.resumedFrom(), ID: runID})
	if err != nil {
		s.log.Warn("run not recorded", "tool", "workflow_"+e.flow.File.Name, "err", err)
		return nil
	}
	return &callRecord{rec: rec, flow: e.flow, profile: profile, owner: runs.OwnerOf(caller), caller: caller}
}

// hook wraps the run's Events hook (nil-safe).
func (c *callRecord) hook(next func(interp.Event), page drivers.Page) func(interp.Event) {
	if c == nil {
		return next
	}
	c.rec.WatchPage(page)
	return c.rec.Hook(next)
}

// finish completes the record (nil-safe; nil when not recorded).
func (c *callRecord) finish(ctx context.Context, s *Server, res *interp.Result, page drivers.Page) *record.Finished {
	if c == nil || res == nil {
		return nil
	}
	fin := c.rec.Finish(ctx, res, page)
	if fin.Err != nil {
		s.log.Warn("run record incomplete", "run", fin.ID, "err", fin.Err)
	}
	if cp := res.Checkpoint(); cp != nil {
		// Resumable while held (resume.go).
		s.heldRuns().hold(&heldRun{id: fin.ID, flow: c.flow, profile: c.profile, cp: cp, at: time.Now(), owner: c.owner})
	}
	return fin
}

// runResult is the structuredContent of a recorded workflow call: the
// WorkflowExecutionResult with runId and, for a failed run, failure.
type runResult struct {
	*interp.Result
	RunID   string         `json:"runId,omitempty"`
	Failure *record.Packet `json:"failure,omitempty"`
}

// flowResultRun is flowResult with the run's ID, failure packet and
// screenshot (an image content item) when the call was recorded.
func flowResultRun(res *interp.Result, secrets []string, fin *record.Finished) (*mcp.CallToolResult, error) {
	if fin == nil {
		return flowResult(res, secrets)
	}
	if res.Results == nil {
		res.Results = []*interp.StepResult{}
	}
	raw, err := json.Marshal(runResult{Result: res, RunID: fin.ID, Failure: fin.Packet})
	if err != nil {
		return nil, rpcError(CodeBuiltinFailed, "cannot encode the result: "+err.Error(), nil)
	}
	text := maskString(string(raw), jsonEscaped(secrets))
	out := &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: json.RawMessage(text),
		IsError:           !res.Success,
	}
	if len(fin.Image) > 0 {
		out.Content = append(out.Content, &mcp.ImageContent{Data: fin.Image, MIMEType: "image/jpeg"})
	}
	return out, nil
}

// mask is the record's masker for interp.Options.Mask (nil when the call
// is not recorded: interp then makes its own), so values the run derives
// from a secret are hidden in the record too.
func (c *callRecord) mask() *interp.Mask {
	if c == nil || c.rec == nil {
		return nil
	}
	return c.rec.Mask()
}
