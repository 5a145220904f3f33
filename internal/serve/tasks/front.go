//lint:file-ignore SA1019 sampling (CreateMessage) is deprecated by SEP-2577 but still part of the protocol during its deprecation window; a task's sampling question is asked through it deliberately.

package tasks

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/serve/mrtr"
	"github.com/rpa-dev/rpa/lang"
)

// Method names.
const (
	MethodGet    = "tasks/get"
	MethodResult = "tasks/result" // 2025-11-25 only
	MethodList   = "tasks/list"   // 2025-11-25 only
	MethodCancel = "tasks/cancel"
	MethodUpdate = "tasks/update" // 2026-07-28 only
)

// Front puts a Manager behind an MCP server: the tasks/* methods, the
// capability (2025-11-25 `tasks`, 2026-07-28 the extension), each task
// tool's `execution.taskSupport` ("optional"; 2025-11-25), and tools/call
// returning a task when the caller asks for one (2025-11-25: a `task`
// param, lifted into _meta by Lift; 2026-07-28: the extension declared on
// the request). The tool's handler decides: it calls Requested(ctx).Start
// with the work instead of running it.
type Front struct {
	M *Manager
	// Who names who made a request (its runs.Owner and the open sessions).
	Who func(req mcp.Request) Who
	// Taskable reports whether a tool may run as a task.
	Taskable func(tool string) bool
}

// Attach registers f on s. Call it before adding middleware that must run
// first (an unknown tool's error): the SDK runs the last middleware added
// first.
func (f *Front) Attach(s *mcp.Server) error {
	for _, m := range []string{MethodGet, MethodResult, MethodList, MethodCancel, MethodUpdate} {
		method := m
		if err := mcp.AddReceivingCustomMethod(s, method, func(ctx context.Context, ss *mcp.ServerSession, p *Params) (mcp.Result, error) {
			return f.serve(ctx, method, ss, p)
		}); err != nil {
			return err
		}
	}
	s.AddReceivingMiddleware(f.middleware)
	return nil
}

// Params are the params of the tasks/* methods.
type Params struct {
	mcp.ParamsBase
	TaskID         string               `json:"taskId"`
	Cursor         string               `json:"cursor,omitempty"`         // tasks/list
	InputResponses mcp.InputResponseMap `json:"inputResponses,omitempty"` // tasks/update

	// bad says what does not decode ("taskId: want a string, got a
	// number", mrtr.BadParam), badField the field it names: serve answers
	// -32602 with them. The SDK's own answer to params that do not decode
	// is Go's text ("unmarshaling ... into a *tasks.Params") with the
	// params echoed.
	bad, badField string
}

// UnmarshalJSON decodes p as encoding/json does, except that params that
// do not decode (a field of the wrong JSON type, a malformed
// inputResponses) are not an error here: what is wrong is kept, the field
// named and no value quoted (mrtr.BadParam), for serve to answer.
func (p *Params) UnmarshalJSON(b []byte) error {
	type plain Params // without this method
	var q plain
	if err := json.Unmarshal(b, &q); err != nil {
		p.badField, p.bad = mrtr.BadParam(b, func(b []byte) error { return json.Unmarshal(b, new(plain)) })
		if p.badField == "inputResponses" {
			if f, msg := answerProblem(b); f != "" {
				p.badField, p.bad = f, msg
			}
		}
		return nil
	}
	*p = Params(q)
	return nil
}

// answerProblem names the answer of the object inputResponses of params b
// that is not one ("inputResponses.q1: want an object, got a string"; "" when
// each is an object of a known kind): BadParam can only name inputResponses,
// whose values the SDK decodes by their keys.
func answerProblem(b []byte) (field, msg string) {
	var top struct {
		R map[string]json.RawMessage `json:"inputResponses"`
	}
	if json.Unmarshal(b, &top) != nil {
		return "", ""
	}
	keys := make([]string, 0, len(top.R))
	for k := range top.R {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f := "inputResponses." + k
		if len(f) > lang.MaxEcho {
			f = lang.Echo(f)
		}
		var kinds map[string]json.RawMessage
		if err := json.Unmarshal(top.R[k], &kinds); err != nil || kinds == nil {
			return f, f + ": want an object, got " + kindOf(top.R[k])
		}
		if kinds["action"] == nil && kinds["role"] == nil && kinds["roots"] == nil {
			return f, f + `: want an answer: an elicitation's ("action"), a sampling request's ("role") or a roots request's ("roots")`
		}
	}
	return "", ""
}

// kindOf names the JSON type of the value b ("a string", "null", ...).
func kindOf(b []byte) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return "nothing"
	}
	switch v.(type) {
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "true or false"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "null"
}

// Request is a tools/call that asked for a task, as its handler sees it
// (Requested).
type Request struct {
	m    *Manager
	spec Spec
	rec  *Record
}

type requestKey struct{}

// Requested returns the task request of the tools/call whose handler gets
// ctx, or nil when the call is to run as usual.
func Requested(ctx context.Context) *Request {
	r, _ := ctx.Value(requestKey{}).(*Request)
	return r
}

// Start creates the task and starts work; the call's answer is then the
// task (CreateTaskResult), whatever the handler returns. Errors: a
// *BusyError beyond the live task limit, a store error.
func (r *Request) Start(ctx context.Context, work Work) error {
	rec, err := r.m.Start(ctx, r.spec, work)
	if err != nil {
		return err
	}
	r.rec = rec
	return nil
}

// Spec is the task the request asks for (Owner, Tool, Era, TTL).
func (r *Request) Spec() Spec { return r.spec }

// TTL is the time to live the task gets (the Manager's TTL of the one
// asked for).
func (r *Request) TTL() time.Duration { return r.m.TTL(r.spec.TTL) }

// SetRun names the run the task is and what it relays (Spec.RunID,
// Spec.Relay), before Start: at the gateway, the desktop's task.
func (r *Request) SetRun(runID, relay string) { r.spec.RunID, r.spec.Relay = runID, relay }

// callInfo is what the tasks/* handlers know of their request.
type callInfo struct {
	who      Who
	modern   bool // 2026-07-28 or later
	declares bool // the request declares the extension (2026-07-28)
	header   http.Header
}

type callKey struct{}

// protocolOf is the protocol version of req: its per-request _meta's
// (2026-07-28), else its session's.
func protocolOf(req mcp.Request) string {
	if nilParams(req) {
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
			if ip := ss.InitializeParams(); ip != nil {
				return ip.ProtocolVersion
			}
		}
		return ""
	}
	if pv, ok := req.(interface{ ProtocolVersion() string }); ok {
		return pv.ProtocolVersion()
	}
	return ""
}

// nilParams reports a request without params. The go-sdk's
// ServerRequest.ProtocolVersion and ClientCapabilities call the params'
// isNil, which a params type embedding mcp.ParamsBase (as custom methods
// must) only has promoted: on a nil *Params that dereferences nil and
// panics (go-sdk v1.8.0; for upstream: define isNil so that it checks
// the outer pointer). So the tasks/* requests are looked at here first.
func nilParams(req mcp.Request) bool {
	p := req.GetParams()
	if p == nil {
		return true
	}
	tp, ok := p.(*Params)
	return ok && tp == nil
}

// declaresExtension reports whether a 2026-07-28 request declares the
// tasks extension in its per-request capabilities.
func declaresExtension(req mcp.Request) bool {
	if nilParams(req) {
		return false
	}
	cc, ok := req.(interface {
		ClientCapabilities() *mcp.ClientCapabilities
	})
	if !ok {
		return false
	}
	caps := cc.ClientCapabilities()
	if caps == nil {
		return false
	}
	_, ok = caps.Extensions[Extension]
	return ok
}

func (f *Front) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		modern := protocolOf(req) >= mrtr.Protocol
		switch method {
		case "initialize":
			res, err := next(ctx, method, req)
			if err != nil || res == nil {
				return res, err
			}
			return &patched{inner: res, edit: addCapabilityV1}, nil
		case "server/discover":
			res, err := next(ctx, method, req)
			if err != nil || res == nil {
				return res, err
			}
			return &patched{inner: res, edit: addExtension}, nil
		case "tools/list":
			res, err := next(ctx, method, req)
			if err != nil || res == nil || modern {
				return res, err
			}
			return &patched{inner: res, edit: f.addExecution}, nil
		case "tools/call":
			return f.call(ctx, method, req, modern, next)
		case "subscriptions/listen":
			// Task status notifications are not sent on 2026-07-28 (the extension
			// makes them optional; tasks/get is polled): a listen for taskIds is
			// acknowledged for none, and refused, as the extension says, when the
			// request does not declare it.
			if p := req.GetParams(); p != nil && !nilParams(req) && p.GetMeta()[LiftTaskIDs] != nil && !declaresExtension(req) {
				return nil, missingCapability()
			}
			return next(ctx, method, req)
		case MethodGet, MethodResult, MethodList, MethodCancel, MethodUpdate:
			info := callInfo{who: f.Who(req), modern: modern, declares: declaresExtension(req)}
			if ex := req.GetExtra(); ex != nil {
				info.header = ex.Header
			}
			return next(context.WithValue(ctx, callKey{}, info), method, req)
		}
		return next(ctx, method, req)
	}
}

// call handles a tools/call: one that asks for a task gets the Request in
// its ctx, and, when its handler started the task, the CreateTaskResult.
func (f *Front) call(ctx context.Context, method string, req mcp.Request, modern bool, next mcp.MethodHandler) (mcp.Result, error) {
	p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
	if !ok || p == nil {
		return next(ctx, method, req)
	}
	var spec *Spec
	if modern {
		// 2026-07-28: the server decides; a task tool called by a client
		// that declares the extension runs as a task (a multi-round-trip
		// retry never does: it resumes a call).
		if p.RequestState == "" && declaresExtension(req) && f.Taskable(p.Name) {
			spec = &Spec{}
		}
	} else if raw, ok := p.Meta[LiftKey]; ok {
		ttl, err := parseTask(raw)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error(), Data: json.RawMessage(`{"field":"task"}`)}
		}
		if !f.Taskable(p.Name) {
			// MCP 2025-11-25 (Tasks, tool-level negotiation): a task request for a
			// tool whose taskSupport is absent or "forbidden" is -32601.
			return nil, &MethodNotFoundError{Message: fmt.Sprintf(
				"tool %q does not support task-augmented calls (its execution.taskSupport is forbidden): call it without the task param", p.Name)}
		}
		spec = &Spec{TTL: ttl}
	}
	if spec == nil {
		return next(ctx, method, req)
	}
	spec.Owner, spec.Tool, spec.Era = f.Who(req).Owner, p.Name, protocolOf(req)
	tr := &Request{m: f.M, spec: *spec}
	res, err := next(context.WithValue(ctx, requestKey{}, tr), method, req)
	if err != nil || tr.rec == nil {
		return res, err
	}
	if modern {
		return &taskResultV2{ResultType: "task", TaskV2: V2(tr.rec)}, nil
	}
	out := &createResultV1{Task: V1(tr.rec)}
	out.Meta = mcp.Meta{MetaImmediateResponse: fmt.Sprintf("%s is running as task %s (run %s); poll tasks/get and fetch the result with tasks/result.",
		tr.rec.Tool, tr.rec.ID, tr.rec.RunID)}
	return out, nil
}

// parseTask reads a 2025-11-25 `task` param: {"ttl"?: milliseconds}.
func parseTask(v any) (time.Duration, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		b, _ := json.Marshal(v)
		return 0, fmt.Errorf("task: want an object {\"ttl\"?: milliseconds}, got %s", clip(string(b)))
	}
	raw, ok := obj["ttl"]
	if !ok || raw == nil {
		return 0, nil
	}
	n, ok := raw.(float64)
	if !ok || n <= 0 || n != math.Trunc(n) || math.IsInf(n, 0) {
		b, _ := json.Marshal(raw)
		return 0, &TTLError{Got: clip(string(b))}
	}
	if n > float64(math.MaxInt64/int64(time.Millisecond)) {
		return time.Duration(math.MaxInt64), nil // cut to the maximum by Manager.TTL
	}
	return time.Duration(n) * time.Millisecond, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// addCapabilityV1 declares the 2025-11-25 tasks capability: tools/call may
// be a task, tasks/list and tasks/cancel exist.
func addCapabilityV1(obj map[string]json.RawMessage) error {
	caps := map[string]json.RawMessage{}
	if raw, ok := obj["capabilities"]; ok {
		if err := json.Unmarshal(raw, &caps); err != nil {
			return err
		}
	}
	caps["tasks"] = json.RawMessage(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`)
	b, err := json.Marshal(caps)
	obj["capabilities"] = b
	return err
}

// addExtension declares the 2026-07-28 tasks extension.
func addExtension(obj map[string]json.RawMessage) error {
	caps := map[string]json.RawMessage{}
	if raw, ok := obj["capabilities"]; ok {
		if err := json.Unmarshal(raw, &caps); err != nil {
			return err
		}
	}
	ext := map[string]json.RawMessage{}
	if raw, ok := caps["extensions"]; ok {
		if err := json.Unmarshal(raw, &ext); err != nil {
			return err
		}
	}
	ext[Extension] = json.RawMessage(`{}`)
	var err error
	if caps["extensions"], err = json.Marshal(ext); err != nil {
		return err
	}
	obj["capabilities"], err = json.Marshal(caps)
	if _, ok := obj["resultType"]; !ok {
		obj["resultType"] = json.RawMessage(`"complete"`)
	}
	return err
}

// addExecution marks each task tool `execution: {taskSupport: "optional"}`
// (2025-11-25 tools/list).
func (f *Front) addExecution(obj map[string]json.RawMessage) error {
	var tools []map[string]json.RawMessage
	if err := json.Unmarshal(obj["tools"], &tools); err != nil {
		return err
	}
	for _, t := range tools {
		var name string
		if json.Unmarshal(t["name"], &name) == nil && f.Taskable(name) {
			t["execution"] = json.RawMessage(`{"taskSupport":"optional"}`)
		}
	}
	b, err := json.Marshal(tools)
	obj["tools"] = b
	return err
}

// Errors of the tasks/* methods.
func notFound() error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Failed to retrieve task: Task not found"}
}

func methodNotFound(method, why string) error {
	return &MethodNotFoundError{Message: fmt.Sprintf("Method not found: %s (%s)", method, why)}
}

// MethodNotFoundError is a JSON-RPC -32601 error that reaches the client
// with its own Message. The go-sdk's connection (internal/jsonrpc2,
// processResult) replaces every error a handler returns that errors.Is
// matches jsonrpc2.ErrMethodNotFound (a *jsonrpc.Error of code -32601
// does) with `method not found: "METHOD"`, so a -32601 that says why (a
// tool that does not run as a task, a method of the other protocol era)
// went out as `method not found: "tools/call"`. This type does not match
// that sentinel (no Is, no Unwrap) but gives the wire its code through
// As, which the SDK's toWireError uses to pick the code. (For upstream: the
// rewrite should keep a *jsonrpc.Error's own message.)
type MethodNotFoundError struct{ Message string }

// Error is the message.
func (e *MethodNotFoundError) Error() string { return e.Message }

// As makes e a *jsonrpc.Error of code -32601 for errors.As.
func (e *MethodNotFoundError) As(target any) bool {
	p, ok := target.(**jsonrpc.Error)
	if ok {
		*p = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: e.Message}
	}
	return ok
}

func missingCapability() error {
	return &jsonrpc.Error{Code: CodeMissingCapability, Message: "Missing required client capability: declare the extension " + Extension,
		Data: json.RawMessage(`{"requiredCapabilities":{"extensions":{"` + Extension + `":{}}}}`)}
}

// lookupError maps a Manager error of a lookup to the wire.
func lookupError(err error) error {
	switch {
	case errors.Is(err, ErrNotFound):
		return notFound()
	case errors.Is(err, ErrExpired):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Failed to retrieve task: Task has expired"}
	}
	var ee *ElsewhereError
	if errors.As(err, &ee) {
		return ee.RPC()
	}
	var te *TerminalError
	if errors.As(err, &te) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Cannot cancel task: " + te.Error()}
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

// serve answers one tasks/* request.
func (f *Front) serve(ctx context.Context, method string, ss *mcp.ServerSession, p *Params) (mcp.Result, error) {
	info, _ := ctx.Value(callKey{}).(callInfo)
	if info.modern {
		switch method {
		case MethodResult, MethodList:
			return nil, methodNotFound(method, "not part of the tasks extension of protocol 2026-07-28; use tasks/get")
		}
		if !info.declares {
			return nil, missingCapability()
		}
		// Params that do not decode are named first: their taskId is not
		// known, so a header cannot be said not to match it.
		if name := info.header.Get("Mcp-Name"); name != "" && p != nil && p.bad == "" && name != p.TaskID {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("the Mcp-Name header %q does not match params.taskId", clip(name))}
		}
	} else if method == MethodUpdate {
		return nil, methodNotFound(method, "tasks/update belongs to protocol 2026-07-28; on 2025-11-25 a task's question comes through tasks/result")
	}
	if p == nil {
		p = &Params{}
	}
	if p.bad != "" {
		data, _ := json.Marshal(map[string]string{"field": p.badField})
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: p.bad, Data: data}
	}
	if method != MethodList && strings.TrimSpace(p.TaskID) == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "taskId: required", Data: json.RawMessage(`{"field":"taskId"}`)}
	}
	owner := info.who
	switch method {
	case MethodGet:
		r, err := f.M.Get(ctx, owner, p.TaskID)
		if err != nil {
			return nil, lookupError(err)
		}
		if info.modern {
			return &taskResultV2{ResultType: "complete", TaskV2: V2(r)}, nil
		}
		return &taskResultV1{TaskV1: V1(r)}, nil
	case MethodCancel:
		r, err := f.M.Cancel(ctx, owner, p.TaskID)
		if info.modern {
			var te *TerminalError
			if err != nil && !errors.As(err, &te) {
				return nil, lookupError(err)
			}
			// Cancellation is cooperative and the ack eventually consistent:
			// a task that already ended is acknowledged too.
			return &ackV2{ResultType: "complete"}, nil
		}
		if err != nil {
			return nil, lookupError(err)
		}
		return &taskResultV1{TaskV1: V1(r)}, nil
	case MethodUpdate:
		if err := f.M.Answer(ctx, owner, p.TaskID, p.InputResponses); err != nil {
			return nil, lookupError(err)
		}
		return &ackV2{ResultType: "complete"}, nil
	case MethodList:
		if p.Cursor != "" && RunIDOf(p.Cursor) == "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "cursor: not a cursor of tasks/list", Data: json.RawMessage(`{"field":"cursor"}`)}
		}
		rs, next, err := f.M.List(ctx, owner, p.Cursor, 0)
		if err != nil {
			return nil, lookupError(err)
		}
		out := &listResultV1{Tasks: []TaskV1{}, NextCursor: next}
		for _, r := range rs {
			out.Tasks = append(out.Tasks, V1(r))
		}
		return out, nil
	case MethodResult:
		r, err := f.M.Await(ctx, owner, p.TaskID, askVia(ss, p.TaskID))
		if err != nil {
			return nil, lookupError(err)
		}
		related := mcp.Meta{MetaRelatedTask: map[string]any{"taskId": r.ID}}
		switch {
		case r.Result != nil:
			return &payloadV1{ResultBase: mcp.ResultBase{Meta: related}, raw: r.Result}, nil
		case r.Error != nil:
			return nil, r.Error
		}
		// Cancelled before its run left a result (its run's process went, the desktop could
		// not be reached, the run never started: waiting for its profile): what the call
		// cancelled would have been answered (mrtr.CodeCancelled). The run's ID is the one it
		// was given, whether or not it started (a tester looked it up and found no run).
		run := cmp.Or(r.RunID, RunIDOf(r.ID))
		data, _ := json.Marshal(map[string]string{"kind": "cancelled", "runId": run})
		return nil, &jsonrpc.Error{Code: CodeCancelled, Data: data,
			Message: fmt.Sprintf("task %s was %s before its run left a result (run %s: rpa runs show has it only if it started)", r.ID, r.Status, run)}
	}
	return nil, methodNotFound(method, "unknown")
}

// askVia puts a task's question to the caller of a 2025-11-25 tasks/result
// on that request's stream, tied to the task by its _meta.
func askVia(ss *mcp.ServerSession, taskID string) func(ctx context.Context, key string, r mcp.InputRequest) (mcp.InputResponse, error) {
	if ss == nil {
		return nil
	}
	related := map[string]any{"taskId": taskID}
	return func(ctx context.Context, _ string, r mcp.InputRequest) (mcp.InputResponse, error) {
		switch x := r.(type) {
		case *mcp.ElicitParams:
			cp := *x
			cp.Meta = withMeta(cp.Meta, MetaRelatedTask, related)
			return ss.Elicit(ctx, &cp)
		case *mcp.CreateMessageParams:
			cp := *x
			cp.Meta = withMeta(cp.Meta, MetaRelatedTask, related)
			return ss.CreateMessage(ctx, &cp)
		}
		return nil, fmt.Errorf("a task cannot ask a %T through tasks/result", r)
	}
}

func withMeta(m mcp.Meta, k string, v any) mcp.Meta {
	out := mcp.Meta{}
	for key, val := range m {
		out[key] = val
	}
	out[k] = v
	return out
}
