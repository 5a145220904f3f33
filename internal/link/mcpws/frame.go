package mcpws

import (
	"encoding/json"
)

// Capability names a desktop may declare in its register message.
const (
	CapDesktopExec       = "desktop_exec"
	CapBrowserControl    = "browser_control"
	CapWorkflowExecution = "workflow_execution"
)

// Register is the link control message a desktop sends after connecting and again whenever its
// tool list changes: {"type":"register","deviceId":...,"capabilities":[...],"available_tools":[...]}.
type Register struct {
	Type           string   `json:"type"` // always "register"
	DeviceID       string   `json:"deviceId"`
	Capabilities   []string `json:"capabilities"`
	AvailableTools []string `json:"available_tools"`
}

// TypeRegister is the "type" of a Register message.
const TypeRegister = "register"

// Requests a desktop sends the backend over its link (JSON-RPC, ids of the desktop's own): an
// account's lease across the desktops of a gateway cluster (PROTOCOL.md, "Accounts"). A
// backend that does not hold leases answers -32601.
const (
	// MethodLeaseAcquire takes an account's lease: params {"account", "holder": {"run", "pid",
	// "host", "since"}, "waitMs"}; result {"leaseId"}. An account held elsewhere for all of
	// waitMs is -32004 with data {"kind": "account_busy", "holder": {...}}.
	MethodLeaseAcquire = "rpa/lease/acquire"
	// MethodLeaseRelease gives it back: params {"leaseId"}; result {}.
	MethodLeaseRelease = "rpa/lease/release"
)

// Control reports whether frame is a link control message (a JSON object with a string "type"
// field and no "jsonrpc" field) and returns its type. Frames that are not JSON objects are not
// control messages (the JSON-RPC decoder reports them).
func Control(frame []byte) (typ string, ok bool) {
	var probe struct {
		Type    *string          `json:"type"`
		JSONRPC *json.RawMessage `json:"jsonrpc"`
	}
	if err := json.Unmarshal(frame, &probe); err != nil {
		return "", false
	}
	if probe.Type == nil || probe.JSONRPC != nil {
		return "", false
	}
	return *probe.Type, true
}

// ParseErrorFrame is the JSON-RPC response sent back for a frame that is not valid JSON-RPC
// (code -32700, id null); detail is added to the message.
func ParseErrorFrame(detail string) []byte {
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": -32700, "message": "parse error: " + detail},
	})
	return b
}
