package core

import (
	"context"
	"time"
)

// Host holds the hooks a host (rpa run, the MCP server) gives a run. A nil
// func makes the matching action fail with a clear "not enabled here" error
// (`ask` with KindHITLDeclined, `exec` with KindExecRefused, `llm` with
// KindBrowser).
type Host struct {
	// Ask asks a person (the `ask` action, MCP hitl_prompt).
	Ask func(ctx context.Context, q Question) (Answer, error)
	// LLM asks the calling agent's model (MCP sampling); input is the `input:`
	// value (nil when absent), to be serialised as JSON into the prompt.
	LLM func(ctx context.Context, prompt string, input any) (string, error)
	// Exec runs a command; return an *Error of KindExecRefused to refuse.
	Exec func(ctx context.Context, cmd ExecCommand) (*ExecResult, error)
	// NoFiles keeps the flow away from this machine's files: `open` of a
	// file: URL fails (KindNavigation) and `upload`, `download to:` and
	// `screenshot path:` outside the temp dir fail (KindExecRefused).
	// The zero value allows them (rpa run: the person at the terminal runs
	// their own flow); the MCP server sets it unless --allow-files.
	NoFiles bool
}

// Question is what `ask` asks a person.
type Question struct {
	Title   string
	Message string
	// Input is "text", "password" or "number".
	Input string
	// Timeout is how long to wait for the answer (120s unless the flow says).
	Timeout time.Duration
}

// Answer statuses (the `status` of MCP hitl_prompt's result too).
const (
	AnswerAnswered  = "answered"
	AnswerDeclined  = "declined"
	AnswerCancelled = "cancelled"
	AnswerTimeout   = "timeout"
)

// Answer is a person's reply: Status is one of answered, declined,
// cancelled or timeout; Text is the answer when answered.
type Answer struct {
	Status string
	Text   string
}

// ExecCommand is the command of an `exec` action: Args (no shell) when the
// flow gave a list, else Shell, one string for `sh -c` whose interpolated
// values were already shell-quoted.
type ExecCommand struct {
	Args  []string
	Shell string
	// Timeout is the action's explicit timeout: option (0 = the host's default).
	Timeout time.Duration
}

// ExecResult is the outcome of an `exec`: its output streams (possibly
// cut, then Truncated is set) and exit code.
type ExecResult struct {
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	Code      int    `json:"code"`
	Truncated bool   `json:"truncated"`
}
