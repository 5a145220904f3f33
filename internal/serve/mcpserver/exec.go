package mcpserver

import "github.com/rpa-dev/rpa/internal/host/execpolicy"

// The exec policy (--allow-exec, --exec-allow) lives in package execpolicy,
// which `rpa run` applies too; these names are the MCP layer's spelling of
// it (desktop_exec and the `exec` action of served flows).
type (
	// ExecPolicy is execpolicy.Policy.
	ExecPolicy = execpolicy.Policy
	// RefusedError is execpolicy.RefusedError.
	RefusedError = execpolicy.RefusedError
)

// Default limits of desktop_exec and of the `exec` action when served.
const (
	DefaultExecTimeout = execpolicy.DefaultTimeout
	DefaultExecOutput  = execpolicy.DefaultOutput
)
