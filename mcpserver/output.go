package mcpserver

import "encoding/json"

// OutputSchema is the outputSchema of every workflow tool: the
// WorkflowExecutionResult of LANGUAGE.md ("Result of a run"), the object
// sent both as the text content (JSON) and as structuredContent.
var OutputSchema = json.RawMessage(compactJSON(`{
  "type": "object",
  "description": "WorkflowExecutionResult: what the flow did, step by step, and what it returned",
  "properties": {
    "success": {"type": "boolean", "description": "true when the flow reached its end or return with no unhandled error"},
    "totalActions": {"type": "integer", "description": "actions executed (loop iterations each count)"},
    "completedActions": {"type": "integer", "description": "actions with status ok"},
    "failedActions": {"type": "integer", "description": "actions with status failed or skipped"},
    "results": {
      "type": "array",
      "description": "one entry per action executed, in order",
      "items": {
        "type": "object",
        "properties": {
          "index": {"type": "integer"},
          "action": {"type": "string"},
          "line": {"type": "integer"},
          "status": {"type": "string", "enum": ["ok", "failed", "skipped"]},
          "durationMs": {"type": "integer"},
          "selector": {"type": "string"},
          "selectorIndex": {"type": "integer"},
          "output": {},
          "error": {"type": "string"}
        },
        "required": ["index", "action", "line", "status", "durationMs"]
      }
    },
    "outputs": {"description": "the flow's return value, null without return"},
    "error": {
      "type": ["object", "null"],
      "description": "the error that ended the flow, null on success",
      "properties": {
        "message": {"type": "string"},
        "line": {"type": "integer"},
        "col": {"type": "integer"},
        "file": {"type": "string"},
        "action": {"type": "string"},
        "code": {"type": "integer", "description": "-32002 for every flow failure"},
        "kind": {"type": "string", "enum": ["timeout", "not_found", "not_visible", "covered", "disabled", "navigation", "assertion", "fail", "expression", "hitl_timeout", "hitl_declined", "exec_refused", "browser", "cancelled"]}
      },
      "required": ["message", "code", "kind"]
    },
    "durationMs": {"type": "integer"},
    "log": {"type": "array", "items": {"type": "string"}}
  },
  "required": ["success", "totalActions", "completedActions", "failedActions", "results", "outputs", "error", "durationMs"]
}`))
