package tasks

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The shapes of tasks on the wire, per era.

// Extension is the 2026-07-28 Tasks extension's identifier (SEP-2663).
const Extension = "io.modelcontextprotocol/tasks"

// MetaRelatedTask is the _meta key that ties a message to a task
// (2025-11-25: the elicitation a task's tasks/result carries, and that
// result itself).
const MetaRelatedTask = "io.modelcontextprotocol/related-task"

// MetaImmediateResponse is the _meta key of a CreateTaskResult's text for
// the model while the task runs (2025-11-25, provisional).
const MetaImmediateResponse = "io.modelcontextprotocol/model-immediate-response"

// CodeMissingCapability is the extension's JSON-RPC error for a 2026-07-28
// request to tasks/* from a client that did not declare the extension.
const CodeMissingCapability = -32021

// CodeCancelled is the JSON-RPC error of tasks/result for a task that was
// cancelled before its run left a result (PROTOCOL.md: -32001, a cancelled
// call's code; mrtr.CodeCancelled).
const CodeCancelled = -32001

const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// TaskV1 is a task on 2025-11-25 (schema Task).
type TaskV1 struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           *int64 `json:"ttl"` // milliseconds from creation; null: unlimited
	PollInterval  int64  `json:"pollInterval,omitempty"`
}

// StatusV1 is r's status on 2025-11-25, where a tool result with isError
// makes the task failed ("For tool calls specifically, this includes cases
// where the tool call result has isError set to true").
func StatusV1(r *Record) string {
	if r.Status == Completed && r.IsError {
		return Failed
	}
	return r.Status
}

// V1 is r as a 2025-11-25 Task.
func V1(r *Record) TaskV1 {
	ttl := r.TTLMs
	return TaskV1{TaskID: r.ID, Status: StatusV1(r), StatusMessage: r.Message,
		CreatedAt: r.Created.Format(timeLayout), LastUpdatedAt: r.Updated.Format(timeLayout),
		TTL: &ttl, PollInterval: r.PollMs}
}

// TaskV2 is a task on 2026-07-28 (the extension's DetailedTask): the
// status-specific fields are set by status.
type TaskV2 struct {
	TaskID         string          `json:"taskId"`
	Status         string          `json:"status"`
	StatusMessage  string          `json:"statusMessage,omitempty"`
	CreatedAt      string          `json:"createdAt"`
	LastUpdatedAt  string          `json:"lastUpdatedAt"`
	TTLMs          *int64          `json:"ttlMs"`
	PollIntervalMs int64           `json:"pollIntervalMs,omitempty"`
	InputRequests  json.RawMessage `json:"inputRequests,omitempty"`
	Result         json.RawMessage `json:"result,omitempty"`
	Error          *jsonrpc.Error  `json:"error,omitempty"`
}

// V2 is r as a 2026-07-28 DetailedTask: inputRequests when input_required,
// result when completed (isError or not), error when failed.
func V2(r *Record) TaskV2 {
	ttl := r.TTLMs
	t := TaskV2{TaskID: r.ID, Status: r.Status, StatusMessage: r.Message,
		CreatedAt: r.Created.Format(timeLayout), LastUpdatedAt: r.Updated.Format(timeLayout),
		TTLMs: &ttl, PollIntervalMs: r.PollMs}
	switch r.Status {
	case InputRequired:
		t.InputRequests = r.Inputs
		if len(t.InputRequests) == 0 {
			t.InputRequests = json.RawMessage(`{}`)
		}
	case Completed:
		t.Result = r.Result
	case Failed:
		t.Error = r.Error
		if t.Error == nil {
			t.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: r.Message}
		}
	}
	return t
}

// createResultV1 is the 2025-11-25 CreateTaskResult.
type createResultV1 struct {
	mcp.ResultBase
	Task TaskV1 `json:"task"`
}

// taskResultV1 is a 2025-11-25 GetTaskResult or CancelTaskResult.
type taskResultV1 struct {
	mcp.ResultBase
	TaskV1
}

// listResultV1 is the 2025-11-25 ListTasksResult.
type listResultV1 struct {
	mcp.ResultBase
	Tasks      []TaskV1 `json:"tasks"`
	NextCursor string   `json:"nextCursor,omitempty"`
}

// taskResultV2 is a 2026-07-28 CreateTaskResult (resultType "task") or
// GetTaskResult (resultType "complete").
type taskResultV2 struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	TaskV2
}

// ackV2 is the 2026-07-28 UpdateTaskResult and CancelTaskResult.
type ackV2 struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

// payloadV1 is a 2025-11-25 tasks/result: the stored tools/call result as
// it was, with the related-task _meta added.
type payloadV1 struct {
	mcp.ResultBase
	raw json.RawMessage
}

// MarshalJSON writes the stored result with _meta merged.
func (p *payloadV1) MarshalJSON() ([]byte, error) {
	obj := map[string]json.RawMessage{}
	if err := json.Unmarshal(p.raw, &obj); err != nil {
		return nil, err
	}
	meta := map[string]json.RawMessage{}
	if m, ok := obj["_meta"]; ok {
		_ = json.Unmarshal(m, &meta)
	}
	for k, v := range p.Meta {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		meta[k] = b
	}
	if len(meta) > 0 {
		b, err := json.Marshal(meta)
		if err != nil {
			return nil, err
		}
		obj["_meta"] = b
	}
	return json.Marshal(obj)
}

// patched is a result of the SDK's own handlers (initialize,
// server/discover, tools/list) with fields the SDK's types do not have
// (the tasks capability, a tool's execution), added at marshal time.
type patched struct {
	mcp.ResultBase
	inner mcp.Result
	edit  func(obj map[string]json.RawMessage) error
}

// GetMeta and SetMeta reach the inner result's _meta (the SDK annotates
// 2026-07-28 results with serverInfo there).
func (p *patched) GetMeta() map[string]any  { return p.inner.GetMeta() }
func (p *patched) SetMeta(m map[string]any) { p.inner.SetMeta(m) }

// MarshalJSON marshals the inner result and applies edit.
func (p *patched) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(p.inner)
	if err != nil {
		return nil, err
	}
	obj := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, err
	}
	if err := p.edit(obj); err != nil {
		return nil, err
	}
	return json.Marshal(obj)
}
