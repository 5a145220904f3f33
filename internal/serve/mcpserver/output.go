package mcpserver

import "encoding/json"

// OutputSchema is the outputSchema of every workflow tool: the
// WorkflowExecutionResult of LANGUAGE.md ("Result of a run"), the object
// sent both as the text content (JSON) and as structuredContent. It is
// kept terse (top-level fields and their types, no prose, no nested
// properties) because it is repeated in every workflow tool of tools/list:
// with 1,000 flows each byte here is a kilobyte of every listing. The
// nested shapes are LANGUAGE.md's: results[] items {index, action, line,
// status ok|failed|skipped, durationMs, selector?, selectorIndex?,
// output?, error?}; error {message, line, col?, file?, action?, code
// (always -32002), kind (timeout, not_found, not_visible, covered,
// disabled, navigation, assertion, fail, expression, hitl_timeout,
// hitl_declined, exec_refused, browser, cancelled)}.
var OutputSchema = json.RawMessage(compactJSON(`{
  "type": "object",
  "properties": {
    "success": {"type": "boolean"},
    "totalActions": {"type": "integer"},
    "completedActions": {"type": "integer"},
    "failedActions": {"type": "integer"},
    "results": {"type": "array", "items": {"type": "object"}},
    "outputs": {},
    "error": {"type": ["object", "null"]},
    "durationMs": {"type": "integer"},
    "log": {"type": "array", "items": {"type": "string"}},
    "runId": {"type": "string"},
    "failure": {"type": "object", "properties": {"line": {"type": "integer"}, "action": {"type": "string"}, "source": {"type": "string"}, "selectors": {"type": "array", "items": {"type": "object"}}, "url": {"type": "string"}, "title": {"type": "string"}, "hints": {"type": "array", "items": {"type": "string"}}}}
  },
  "required": ["success", "results", "outputs", "error"]
}`))
