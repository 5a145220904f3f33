// Package mcpserver is the MCP server core of rpa: every flow of a folder
// becomes a tool `workflow_NAME`, next to the built-in tools browser_read,
// hitl_prompt and (when enabled) desktop_exec (PROTOCOL.md).
//
// One Server wraps one go-sdk *mcp.Server; every transport connects to it:
// stdio (Server.MCP().Run with mcp.StdioTransport), Streamable HTTP
// (Server.HTTPHandler) and the WebSocket link of package mcpws. The server
// watches its flows folder and keeps the tool list current, sending
// notifications/tools/list_changed to every session.
//
// Errors follow PROTOCOL.md: arguments that do not match a tool's
// inputSchema get JSON-RPC -32602 naming the field; an unknown tool -32003
// (intercepted before the SDK's own -32602); a browser that cannot start
// -32004; a failing built-in tool -32001; a flow that ran and failed is a
// normal result with isError true, its partial results and error.code
// -32002 inside.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/internal/host/lease"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/host/vault"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/mrtr"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
	"github.com/rpa-dev/rpa/lang"
)

// JSON-RPC error codes of PROTOCOL.md ("Calls and results").
const (
	CodeBuiltinFailed = -32001 // a built-in tool failed
	CodeFlowFailed    = -32002 // a flow failed (inside an isError result)
	CodeUnknownTool   = -32003 // no such workflow / tool
	CodeBrowser       = -32004 // the browser could not be started or reached
	CodeInvalidParams = -32602 // arguments do not match the inputSchema
)

// Names of the built-in tools.
const (
	ToolBrowserRead = "browser_read"
	ToolHITLPrompt  = "hitl_prompt"
	ToolDesktopExec = "desktop_exec"
)

// DefaultDebounce is how long the watcher waits after the last change in
// the flows folder before reloading it.
const DefaultDebounce = 75 * time.Millisecond

// DefaultSessionIdle is how long an idle Streamable HTTP session lives
// (Options.SessionIdle).
const DefaultSessionIdle = 30 * time.Minute

// DefaultHeartbeat is how often a long action re-reports progress.
const DefaultHeartbeat = 10 * time.Second

// Options configures a Server.
type Options struct {
	// FlowsDir is the folder whose .flow, .yaml and .yml files are served
	// (not recursive). "" serves only the built-in tools. It must exist.
	FlowsDir string
	// NoWatch turns off watching FlowsDir (call Reload to rescan).
	NoWatch bool
	// Debounce is the watcher's quiet time (DefaultDebounce when 0).
	Debounce time.Duration
	// Pool runs the browsers of workflow tools and browser_read. The
	// caller owns it (closes it after Server.Close). Nil: those tools
	// answer -32004.
	Pool *profiles.Pool
	// AllowExec lists and enables desktop_exec (and the `exec` action of
	// served flows); ExecAllow limits it to commands matching one of these
	// globs (see ExecPolicy). ExecTimeout and ExecMaxOutput bound each
	// command (defaults DefaultExecTimeout and DefaultExecOutput).
	AllowExec     bool
	ExecAllow     []string
	ExecTimeout   time.Duration
	ExecMaxOutput int
	// AllowFiles lets served flows reach this machine's files: `open` of
	// file: URLs, and `upload`, `download to:` and `screenshot path:`
	// outside the temp dir (--allow-files). False refuses them (see
	// core.Host.NoFiles): a calling agent that controls a flow's URL or
	// path params must not read local files.
	AllowFiles bool
	// Ask, when set and HITL is nil, is the person channel after the client
	// (as the desktop channel) for hitl_prompt and the `ask` action; tests
	// and embedders use it. Nil: see HITL.
	Ask AskFunc
	// HITL orders the person channels (client elicitation, desktop dialog,
	// terminal; rpa's --hitl) and gives the desktop and terminal ones (see
	// package hitl). Nil: the client, then Ask when set, else the native
	// dialog and the controlling terminal.
	HITL *hitl.Config
	// NoURLElicitation keeps password questions away from the client: no
	// URL-mode elicitation (the WebSocket link, whose backend is not on
	// this machine). Else a one-time page on loopback is offered to
	// clients that declared URL mode.
	NoURLElicitation bool
	// Logger receives one line per call (tool, profile, outcome, duration;
	// never argument values) and flow load problems. Nil: discard.
	Logger *slog.Logger
	// Heartbeat is how often a running action re-reports progress to a
	// caller that sent a progressToken (DefaultHeartbeat when 0), so
	// clients that reset their request timeout on progress (the TypeScript
	// SDK's resetTimeoutOnProgress) do not give up during a long wait.
	Heartbeat time.Duration
	// ShareProfiles lets every MCP session use every profile
	// (--share-profiles). By default a profile belongs to the session of
	// the call running on it, and of the last call for as long as that
	// session lives (and used it within the idle time of a browser):
	// browser_read and flow calls from another session on it get -32004
	// with data.kind "profile_in_use", since the browser holds the first
	// session's page, cookies and storage.
	ShareProfiles bool
	// SessionIdle ends a Streamable HTTP session after this long without a
	// request in flight (DefaultSessionIdle when 0; negative: never), as
	// the gateway does with its agents: a client that goes away without
	// DELETE leaves nothing behind for long.
	SessionIdle time.Duration
	// AllowOrigins names the browser origins ("https://app.example.com")
	// allowed to call the Streamable HTTP endpoint besides loopback origins
	// of its own port (--allow-origin; see OriginGuard).
	AllowOrigins []string
	// Name and Version are the implementation info sent in initialize
	// ("rpa" and "dev" when empty).
	Name, Version string
	// Runs, when set, records every workflow call in this run store and
	// serves the runs as resources (runs.go); the caller owns it. Evidence
	// is "default" or "full" ("" = the flow's `defaults evidence:`),
	// PacketBudget the failure packet's budget in tokens (0: 2,000),
	// RunCaller the caller kind recorded ("" = "mcp"; `rpa connect` sets
	// "link") and RunDevice the device ID recorded (`rpa connect
	// --device-id`).
	Runs         *runs.Store
	Evidence     string
	PacketBudget int
	RunCaller    string
	RunDevice    string
	// Heal is the heal mode of every workflow call (off, suggest, auto,
	// ask-model; "" = the flow's `defaults heal:`, else suggest;
	// docs/healing.md, heal.go).
	Heal string
	// Vault resolves credential params (accounts.go); nil: the vault of
	// $RPA_HOME (vault.Default, no prompt). Leases gives one run per
	// account at a time (nil: lease.NewLocal of $RPA_HOME); AccountWait
	// bounds the wait for an account another run holds (0:
	// lease.DefaultWait, negative: none).
	Vault       *vault.Store
	Leases      lease.Leaser
	AccountWait time.Duration
	// MaxTasks bounds the tasks running at once (--max-tasks; 0:
	// tasks.DefaultMax); TaskTTL is a task's time to live when its caller
	// asks for none (--task-ttl; 0: tasks.DefaultTTL), TaskMaxTTL the
	// most a caller may ask for (--task-max-ttl; 0: tasks.DefaultMaxTTL).
	// Tasks are kept in Runs' database (in memory without Runs).
	MaxTasks            int
	TaskTTL, TaskMaxTTL time.Duration
}

// tool is one registered tool: a flow's (its arguments checked by the
// flow, flowCall) or a built-in one with its argument schema.
type tool struct {
	def    *mcp.Tool
	schema *Schema    // built-ins
	flow   *flowEntry // nil for built-ins
	fn     callFunc   // built-ins
}

// Server is the MCP server core shared by every transport. It is safe for
// concurrent use.
type Server struct {
	opts Options
	log  *slog.Logger
	srv  *mcp.Server
	exec *ExecPolicy

	ctx    context.Context // cancelled by Close: stops calls in flight
	cancel context.CancelFunc
	calls  sync.WaitGroup

	mu        sync.RWMutex
	tools     map[string]*tool
	listeners []func()
	closed    bool

	reg     *registry // flows of FlowsDir
	watcher *watcher

	secretsMu sync.Mutex
	secrets   map[string][]string // profile → secret values its flows filled

	hitl   hitlState  // person channels (hitl_host.go)
	paused mrtr.Table // multi-round-trip calls waiting for input (package mrtr)

	httpReqs  httpRequests  // POSTs of calls in flight (http.go)
	httpCalls httpCalls     // calls in flight per HTTP session, for cancels (cancel.go)
	owners    profileOwners // which session each profile belongs to (owner.go)
	httpPeers httpPeers     // what HTTP sessions' requests carried (owner.go)
	callers   callers       // sessions as owners of runs (runowner.go)

	tasks    *tasks.Manager // workflow calls run as tasks (tasks.go)
	taskEars taskListeners  // where task status notifications go (tasknotify.go)
}

// New builds the server, loads FlowsDir (a flow that does not load is
// logged and left out) and starts watching it.
func New(opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = DefaultHeartbeat
	}
	if opts.SessionIdle == 0 {
		opts.SessionIdle = DefaultSessionIdle
	}
	if opts.Name == "" {
		opts.Name = "rpa"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.FlowsDir != "" {
		st, err := os.Stat(opts.FlowsDir)
		if err != nil {
			return nil, fmt.Errorf("flows folder: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("flows folder %s is not a folder", opts.FlowsDir)
		}
	}
	for _, g := range opts.ExecAllow {
		if strings.TrimSpace(g) == "" {
			return nil, errors.New("--exec-allow: empty rule")
		}
	}
	s := &Server{
		opts:    opts,
		log:     opts.Logger,
		tools:   map[string]*tool{},
		secrets: map[string][]string{},
		exec: &ExecPolicy{Enabled: opts.AllowExec, Allow: opts.ExecAllow,
			Timeout: opts.ExecTimeout, MaxOutput: opts.ExecMaxOutput},
	}
	s.httpPeers.idle = opts.SessionIdle
	s.owners.sameCaller = s.httpPeers.sameClient // owner.go
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.paused.Life, s.paused.Calls, s.paused.Log = s.ctx, &s.calls, s.log
	s.srv = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
		PageSize:     1 << 20, // one page: many clients never ask for the next
		// resources/list lists the caller's runs and rpa://runs/ are one
		// caller's: private; what is the same for every caller is public.
		SetCacheable: mrtr.CachePolicy{ListsPerCaller: opts.Runs != nil, PrivateURIs: []string{RunURIPrefix}}.SetCacheable,
	})
	if err := s.startTasks(); err != nil { // tasks.go; its middleware runs after s.middleware
		s.cancel()
		return nil, err
	}
	s.srv.AddReceivingMiddleware(s.middleware)
	s.addBuiltins()
	s.addRunResources()  // runs.go
	s.addHealResources() // heal.go
	// Outermost: -32003/-32004 as tool errors to a client that asks (a Go
	// SDK client would see "connection closed" otherwise).
	s.srv.AddReceivingMiddleware(mrtr.ToolErrors)
	// resume.go: the held runs go with the server.
	context.AfterFunc(s.ctx, s.dropHeld)
	s.reg = newRegistry(s)
	if opts.FlowsDir != "" {
		// Watch first, so a file saved during the first load is not missed.
		if !opts.NoWatch {
			w, err := newWatcher(s, opts.FlowsDir, opts.Debounce, s.vaultDir())
			if err != nil {
				s.cancel()
				return nil, err
			}
			s.watcher = w
		}
		s.reg.reload()
	}
	return s, nil
}

// MCP returns the go-sdk server every transport connects to (for example
// `s.MCP().Run(ctx, &mcp.StdioTransport{})`, or `s.MCP().Connect` with a
// custom transport).
func (s *Server) MCP() *mcp.Server { return s.srv }

// AllowsFiles reports Options.AllowFiles: whether served flows may open
// file: URLs (the console's element picker opens a page under the same
// rule).
func (s *Server) AllowsFiles() bool { return s.opts.AllowFiles }

// ToolNames lists the tools served now, sorted.
func (s *Server) ToolNames() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	names := make([]string, 0, len(s.tools))
	for n := range s.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Tool returns the definition of a served tool (as listed by tools/list).
func (s *Server) Tool(name string) (*mcp.Tool, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.tools[name]
	if !ok {
		return nil, false
	}
	return t.def, true
}

// OnToolsChanged registers fn, called (on the watcher's goroutine, after
// the SDK has been updated) each time the set or definitions of tools
// change. fn must not block for long.
func (s *Server) OnToolsChanged(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listeners = append(s.listeners, fn)
}

// Reload rescans FlowsDir now (the watcher does this by itself) and
// reports whether the tool list changed.
func (s *Server) Reload() bool {
	if s.opts.FlowsDir == "" {
		return false
	}
	return s.reg.reload()
}

// Close stops watching, cancels every call in flight (their flows stop and
// their profiles are freed) and waits for them to return. The sessions of
// the transports and the Pool are left to their owners.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	var err error
	if s.watcher != nil {
		err = s.watcher.close()
	}
	s.cancel()
	s.calls.Wait()
	s.tasks.Close() // the tasks' runs were cancelled with s.ctx: wait for their ends to be stored
	s.closeHITL()
	return err
}

// setTools applies a batch of changes to the tool set: add (or replace)
// the tools in add, remove the names in remove; then tells the listeners.
func (s *Server) setTools(add []*tool, remove []string) {
	if len(add) == 0 && len(remove) == 0 {
		return
	}
	s.mu.Lock()
	for _, n := range remove {
		delete(s.tools, n)
	}
	for _, t := range add {
		s.tools[t.def.Name] = t
	}
	ls := slices.Clone(s.listeners)
	s.mu.Unlock()
	if len(remove) > 0 {
		s.srv.RemoveTools(remove...)
	}
	for _, t := range add {
		s.srv.AddTool(t.def, s.handler(t))
	}
	for _, fn := range ls {
		fn()
	}
}

func (s *Server) lookupTool(name string) (*tool, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.tools[name]
	return t, ok
}

// middleware answers tools/call for an unknown tool with -32003 (the SDK
// would answer -32602 by itself). The error of a resources/read or
// prompts/get whose URI or name is longer than lang.MaxEcho says it by its
// length (-32602), where the SDK's echoed it (data.uri, "unknown prompt
// %q").
func (s *Server) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch r := req.(type) {
		case *mcp.ReadResourceRequest:
			if r.Params != nil && len(r.Params.URI) > lang.MaxEcho {
				res, err := next(ctx, method, req)
				if err != nil {
					err = rpcError(CodeInvalidParams, "cannot read the resource "+lang.Echo(r.Params.URI), nil)
				}
				return res, err
			}
		case *mcp.GetPromptRequest:
			if r.Params != nil && len(r.Params.Name) > lang.MaxEcho {
				res, err := next(ctx, method, req)
				if err != nil {
					err = rpcError(CodeInvalidParams, "cannot get the prompt "+lang.Echo(r.Params.Name), nil)
				}
				return res, err
			}
		}
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
			if _, ok := s.lookupTool(r.Params.Name); !ok {
				return nil, unknownTool(r.Params.Name)
			}
		}
		res, err := next(ctx, method, req)
		var je *jsonrpc.Error
		if errors.As(err, &je) && je.Code == jsonrpc.CodeInvalidParams && strings.HasPrefix(je.Message, "unknown tool") {
			// Removed between our check and the SDK's lookup.
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
				return nil, unknownTool(r.Params.Name)
			}
		}
		return res, err
	}
}

// unknownTool is the error of a call of a tool that is not served: the
// name quoted with lang.Echo, and in data.tool unless it is longer than
// lang.MaxEcho (a caller's text is not sent back by the megabyte).
func unknownTool(name string) error {
	return rpcError(CodeUnknownTool, "unknown tool "+lang.Echo(name), echoData("tool", name))
}

// echoData is {key: s}, or nil when s is longer than lang.MaxEcho: the
// data of an error that names a caller's text.
func echoData(key, s string) map[string]any {
	if len(s) > lang.MaxEcho {
		return nil
	}
	return map[string]any{key: s}
}

// rpcError builds a JSON-RPC error with optional data.
func rpcError(code int64, msg string, data any) *jsonrpc.Error {
	e := &jsonrpc.Error{Code: code, Message: msg}
	if data != nil {
		if raw, err := json.Marshal(data); err == nil {
			e.Data = raw
		}
	}
	return e
}

// argError turns an *ArgError into JSON-RPC -32602 naming the field.
func argError(ae *ArgError) *jsonrpc.Error {
	return rpcError(CodeInvalidParams, ae.Error(), echoData("field", ae.Field))
}

// callFunc runs one validated call.
type callFunc func(ctx context.Context, req *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, error)

// handler wraps a tool's call: decode and validate the arguments, bind
// the call to the server's lifetime, log the outcome.
func (s *Server) handler(t *tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.mu.RLock()
		closed := s.closed
		if !closed {
			s.calls.Add(1)
		}
		s.mu.RUnlock()
		if closed {
			return nil, rpcError(CodeBuiltinFailed, "server is shutting down", nil)
		}
		defer s.calls.Done()
		ctx, stop := context.WithCancel(ctx)
		defer stop()
		unbind := context.AfterFunc(s.ctx, stop)
		defer unbind()
		unbindHTTP := s.httpReqs.onGone(req, stop)
		defer unbindHTTP()

		start := time.Now()
		args := map[string]any{}
		if raw := req.Params.Arguments; len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &args); err != nil {
				return nil, rpcError(CodeInvalidParams, "invalid arguments: want a JSON object", nil)
			}
		}
		var fc *flowCall
		if t.flow != nil {
			var err error
			if fc, err = s.takeFlowCall(req, t.flow, args); err != nil { // workflow.go
				s.log.Info("call refused", "tool", t.def.Name, "error", err.Error())
				return nil, err
			}
		} else if err := t.schema.Validate(args); err != nil {
			var ae *ArgError
			errors.As(err, &ae)
			s.log.Info("call refused", "tool", t.def.Name, "error", ae.Error())
			return nil, argError(ae)
		}
		if p := callProfile(t, args, fc); p != "" && !s.opts.ShareProfiles {
			who := s.claimKey(req, fc)
			if !s.owners.claim(who, p, time.Now()) {
				s.log.Info("call refused: profile in use by another session", "tool", t.def.Name, "profile", p)
				return nil, profileInUse(p)
			}
			defer func() { s.owners.done(who, p, time.Now()) }()
		}
		if tr := tasks.Requested(ctx); tr != nil && t.flow != nil {
			return s.startTask(ctx, req, t, fc, tr) // tasks.go
		}
		var res *mcp.CallToolResult
		var err error
		if t.flow != nil {
			res, err = s.callWorkflow(ctx, req, t.flow, fc)
		} else {
			res, err = t.fn(ctx, req, args)
		}
		if err != nil {
			err = s.publicError(t.def.Name, err)
		}
		attrs := []any{"tool", t.def.Name, "ms", time.Since(start).Milliseconds()}
		switch {
		case err != nil:
			s.log.Info("call failed", append(attrs, "error", err.Error())...)
		case res.IsError:
			s.log.Info("call returned an error result", attrs...)
		default:
			s.log.Info("call ok", attrs...)
		}
		return res, err
	}
}
