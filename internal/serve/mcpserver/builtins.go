package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/stdlib"
)

// readTimeout bounds browser_read's wait for its selector.
const readTimeout = 5 * time.Second

var browserReadSchema = schemaOf(`{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["text", "table", "form", "html", "url", "screenshot"],
      "description": "what to read: text, table ({headers, rows}), form (field → value), html, url, or screenshot (PNG image)"},
    "selector": {"type": "string", "description": "element to read (table: default the first table; others: default the whole page)"},
    "profileId": {"type": "string", "description": "Browser profile ID (optional override)"}
  },
  "required": ["action"],
  "additionalProperties": false
}`)

var hitlSchema = schemaOf(`{
  "type": "object",
  "properties": {
    "title": {"type": "string", "description": "the question, in a few words"},
    "message": {"type": "string", "description": "longer explanation shown with the question"},
    "inputType": {"type": "string", "enum": ["text", "password", "number"], "default": "text",
      "description": "kind of answer; a password answer is never logged or echoed"},
    "timeout": {"type": "number", "minimum": 1, "maximum": 3600, "default": 120,
      "description": "seconds to wait for the answer"}
  },
  "required": ["title"],
  "additionalProperties": false
}`)

var execSchema = schemaOf(`{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "shell command, run with sh -c (cmd /C on Windows)"},
    "timeout": {"type": "number", "minimum": 1, "maximum": 600, "description": "seconds before the command is killed (default 30)"}
  },
  "required": ["command"],
  "additionalProperties": false
}`)

var hitlOutputSchema = json.RawMessage(compactJSON(`{
  "type": "object",
  "properties": {
    "status": {"type": "string", "enum": ["answered", "declined", "cancelled", "timeout"]},
    "answer": {"type": "string"},
    "reason": {"type": "string", "description": "why no one could be asked (with status timeout)"}
  },
  "required": ["status"]
}`))

var execOutputSchema = json.RawMessage(compactJSON(`{
  "type": "object",
  "properties": {
    "stdout": {"type": "string"}, "stderr": {"type": "string"},
    "code": {"type": "integer", "description": "exit code, -1 when killed"},
    "truncated": {"type": "boolean", "description": "an output was cut at the size limit"},
    "timedOut": {"type": "boolean"},
    "durationMs": {"type": "integer"}
  },
  "required": ["stdout", "stderr", "code", "truncated", "durationMs"]
}`))

// addBuiltins registers browser_read, hitl_prompt and, when enabled,
// desktop_exec.
func (s *Server) addBuiltins() {
	ts := []*tool{
		{def: &mcp.Tool{Name: ToolBrowserRead, InputSchema: browserReadSchema.JSON,
			Description: "Read the current page of a browser profile (the page the last flow on that profile left; " +
				"an error when no browser is running for it): " +
				"its text, a table as {headers, rows}, a form's fields, HTML, URL, or a screenshot. Password and secret values read as ***.",
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			schema: browserReadSchema, fn: s.browserRead},
		{def: &mcp.Tool{Name: ToolHITLPrompt, InputSchema: hitlSchema.JSON, OutputSchema: hitlOutputSchema,
			Description: "Ask the person at this computer a question and wait for the answer " +
				"(status answered, declined, cancelled or timeout)."},
			schema: hitlSchema, fn: s.hitlPrompt},
	}
	if s.exec.Enabled {
		desc := "Run a shell command on this computer and return its stdout, stderr and exit code."
		if len(s.exec.Allow) > 0 {
			desc += " Only commands matching the allow-list run: " + strings.Join(s.exec.Allow, ", ") + "."
		}
		ts = append(ts, &tool{def: &mcp.Tool{Name: ToolDesktopExec, InputSchema: execSchema.JSON,
			OutputSchema: execOutputSchema, Description: desc,
			Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true)}},
			schema: execSchema, fn: s.desktopExec})
	}
	s.setTools(ts, nil)
}

func ptr[T any](v T) *T { return &v }

func str(args map[string]any, k string) string {
	v, _ := args[k].(string)
	return v
}

// acquire takes the profile for a call, starting its browser when needed,
// and maps pool errors to the contract's codes.
func (s *Server) acquire(ctx context.Context, profile string) (*profiles.Lease, error) {
	return s.acquireLease(ctx, profile, true)
}

// acquireLease is acquire; with launch false it never starts a browser (nor
// creates the profile's folder) and answers -32001 when none is running.
func (s *Server) acquireLease(ctx context.Context, profile string, launch bool) (*profiles.Lease, error) {
	if s.opts.Pool == nil {
		return nil, rpcError(CodeBrowser, "no browser is available on this server", nil)
	}
	var l *profiles.Lease
	var err error
	if launch {
		l, err = s.opts.Pool.Acquire(ctx, profile)
	} else {
		l, err = s.opts.Pool.AcquireRunning(ctx, profile)
	}
	if err == nil {
		return l, nil
	}
	if errors.Is(err, profiles.ErrNotRunning) {
		return nil, rpcError(CodeBuiltinFailed, fmt.Sprintf("no browser is running for profile %q (run a flow on it first)", profile),
			map[string]any{"profileId": profile})
	}
	var ie *profiles.IDError
	var le *profiles.LaunchError
	var be *profiles.BusyError
	switch {
	case errors.As(err, &be):
		return nil, rpcError(CodeBrowser, be.Error(), map[string]any{"profileId": profile, "kind": string(core.KindBusy)})
	case errors.As(err, &ie):
		return nil, argError(&ArgError{Field: ProfileArg, Msg: ie.Error()})
	case errors.As(err, &le):
		return nil, rpcError(CodeBrowser, le.Error(), map[string]any{"profileId": profile})
	case errors.Is(err, profiles.ErrClosed):
		return nil, rpcError(CodeBrowser, "the browser pool is closed", nil)
	case ctx.Err() != nil:
		return nil, rpcError(CodeBuiltinFailed, fmt.Sprintf("cancelled while waiting for profile %q", profile), nil)
	}
	return nil, err
}

// currentPage returns the lease's current page, falling back to the
// newest open tab.
func currentPage(ctx context.Context, l *profiles.Lease) (drivers.Page, error) {
	if pg := l.Page(); pg != nil {
		return pg, nil
	}
	pages, err := l.Browser().Pages(ctx)
	if err != nil {
		return nil, err
	}
	if len(pages) == 0 {
		return nil, nil
	}
	pg := pages[len(pages)-1]
	l.SetPage(pg)
	return pg, nil
}

func (s *Server) browserRead(ctx context.Context, req *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, error) {
	profile := str(args, ProfileArg)
	if profile == "" {
		profile = profiles.DefaultProfile
	}
	// Reading never starts a browser: with none running there is no page.
	l, err := s.acquireLease(ctx, profile, false)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	pg, err := currentPage(ctx, l)
	if err != nil {
		l.MarkBroken()
		return nil, rpcError(CodeBrowser, "browser_read: "+err.Error(), nil)
	}
	if pg == nil {
		return nil, rpcError(CodeBuiltinFailed, fmt.Sprintf("browser_read: profile %q has no page open yet (run a flow first)", profile), nil)
	}
	readErr := func(err error) error {
		if core.KindOf(err) == core.KindBrowser {
			l.MarkBroken()
		}
		return s.readError(err)
	}
	action, sel := str(args, "action"), str(args, "selector")
	rctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	var el drivers.Element
	if sel != "" {
		if el, _, err = pg.Locate(rctx, []string{sel}, drivers.ForRead); err != nil {
			return nil, readErr(err)
		}
	}
	mask := s.masker(profile)
	if action == "screenshot" {
		// Fields holding the profile's secrets, and password fields, are
		// masked in the picture (drivers.Capture).
		holds := func(v string) bool { m, _ := mask(v).(string); return m != v }
		png, err := drivers.Capture(rctx, pg, el, false, holds)
		if err != nil {
			return nil, readErr(err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: png, MIMEType: "image/png"}}}, nil
	}
	value, err := stdlib.Read(rctx, action, pg, el, readOpts) // as the read actions read
	if err != nil {
		return nil, readErr(err)
	}
	value = mask(value)
	if text, ok := value.(string); ok {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return nil, rpcError(CodeBuiltinFailed, "browser_read: "+err.Error(), nil)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}, StructuredContent: value}, nil
}

// readError maps a driver failure of browser_read: a dead browser is
// -32004, anything else -32001.
func (s *Server) readError(err error) error {
	if core.KindOf(err) == core.KindBrowser {
		return rpcError(CodeBrowser, "browser_read: "+err.Error(), nil)
	}
	return rpcError(CodeBuiltinFailed, "browser_read: "+err.Error(), map[string]any{"kind": string(core.KindOf(err))})
}

// readOpts are the read actions' options browser_read reads with: a table
// in the shape of `table` with header: "grid" ({"headers": [...], "rows":
// [[...], ...]}: one key per column, several header rows joined with " / ",
// a table without header rows keyed by its first row; the body rows'
// trimmed cell texts).
var readOpts = map[string]any{"header": "grid"}

func (s *Server) desktopExec(ctx context.Context, req *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, error) {
	command := str(args, "command")
	var timeout time.Duration
	if n, ok := args["timeout"].(float64); ok {
		timeout = time.Duration(n * float64(time.Second))
	}
	out, err := s.exec.Run(ctx, command, timeout)
	if err != nil {
		var re *RefusedError
		if errors.As(err, &re) {
			s.log.Warn("desktop_exec refused", "rule", re.Rule)
			return nil, rpcError(CodeBuiltinFailed, "desktop_exec: "+re.Error(), map[string]any{"rule": re.Rule})
		}
		return nil, rpcError(CodeBuiltinFailed, "desktop_exec: "+err.Error(), nil)
	}
	raw, _ := json.Marshal(out)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}},
		StructuredContent: out, IsError: out.TimedOut}, nil
}

// masker returns a function replacing, in strings anywhere inside a
// value, every secret value a flow of that profile filled with "***".
func (s *Server) masker(profile string) func(any) any {
	s.secretsMu.Lock()
	secrets := append([]string(nil), s.secrets[profile]...)
	s.secretsMu.Unlock()
	if len(secrets) == 0 {
		return func(v any) any { return v }
	}
	return func(v any) any { return maskValue(v, secrets) }
}

// maskString masks every secret inside x with "***".
func maskString(x string, secrets []string) string {
	for _, sec := range secrets {
		if sec != "" {
			x = strings.ReplaceAll(x, sec, "***")
		}
	}
	return x
}

// maskValue masks every string inside v (a browser_read value) with the
// given secrets by the rules of interp.Mask: their URL-, JSON- and
// HTML-escaped spellings too, as a page's address or markup shows them.
func maskValue(v any, secrets []string) any {
	m := &interp.Mask{}
	for _, sec := range secrets {
		m.Add(sec)
	}
	return maskWith(v, m)
}

func maskWith(v any, secrets *interp.Mask) any {
	switch x := v.(type) {
	case string:
		return secrets.String(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = maskWith(e, secrets)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = maskWith(e, secrets)
		}
		return out
	}
	return v
}

// rememberSecrets records secret values used on a profile so browser_read
// masks them (the page may still show what a flow typed).
func (s *Server) rememberSecrets(profile string, values []string) {
	if len(values) == 0 {
		return
	}
	s.secretsMu.Lock()
	defer s.secretsMu.Unlock()
	cur := s.secrets[profile]
	for _, v := range values {
		if v != "" && !slices.Contains(cur, v) {
			cur = append(cur, v)
		}
	}
	if len(cur) > 64 { // keep the newest
		cur = cur[len(cur)-64:]
	}
	s.secrets[profile] = cur
}
