package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/snapshot"
	"github.com/rpa-dev/rpa/internal/atomicfile"
	"github.com/rpa-dev/rpa/internal/authoring"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/stdlib"
)

// AuthoringProfile is the profile of the authoring tools when the caller
// names none (`rpa serve --authoring`).
const AuthoringProfile = "authoring"

// Names of the authoring tools (PROTOCOL.md, "Authoring tools").
const (
	ToolBrowserOpen     = "browser_open"
	ToolBrowserSnapshot = "browser_snapshot"
	ToolBrowserClick    = "browser_click"
	ToolBrowserFill     = "browser_fill"
	ToolBrowserSelect   = "browser_select"
	ToolBrowserCheck    = "browser_check"
	ToolBrowserPress    = "browser_press"
	ToolBrowserHover    = "browser_hover"
	ToolBrowserWait     = "browser_wait"
	ToolBrowserTab      = "browser_tab"
	ToolBrowserBack     = "browser_back"
	ToolFlowSave        = "flow_save"
	ToolFlowPreview     = "flow_preview"
	ToolFlowReset       = "flow_reset"
)

// actionTimeout bounds one authoring action (waiting for its element
// included); waitTimeout is browser_wait's default.
const (
	actionTimeout = 15 * time.Second
	waitTimeout   = 10 * time.Second
	maxWait       = 120 * time.Second // browser_wait's largest timeout (its schema's maximum)
)

const profileProp = `"profileId": {"type": "string", "pattern": "^[A-Za-z0-9_-][A-Za-z0-9_.-]*$", "maxLength": 64, "description": "Browser profile of the authoring session (default \"authoring\")"}`

// nameBounds are the JSON Schema bounds of a flow NAME (ast.IsFlowName)
// and of a param or output name (authoring.ParamName), as the tools
// check them.
var flowNameBounds = `"pattern": "^[a-z][a-z0-9_]*$", "maxLength": ` + strconv.Itoa(ast.MaxFlowName)

const paramNameBounds = `"pattern": "^[A-Za-z_][A-Za-z0-9_]*$"`

func authSchema(props string, required ...string) *Schema {
	req := "[]"
	if len(required) > 0 {
		req = `["` + strings.Join(required, `", "`) + `"]`
	}
	sep := ""
	if strings.TrimSpace(props) != "" {
		sep = ", "
	}
	return schemaOf(`{"type": "object", "properties": {` + props + sep + profileProp + `}, "required": ` + req + `, "additionalProperties": false}`)
}

const refProp = `"ref": {"type": "string", "description": "the element's ref from the last browser_snapshot (e12, f1e7)"}`

const paramsProp = `"params": {"type": "array", "description": "params of the flow: values the agent did not mark at the action (step), types, defaults, descriptions",
  "items": {"type": "object", "properties": {
    "name": {"type": "string", ` + paramNameBounds + `}, "description": {"type": "string"},
    "type": {"type": "string", "enum": ["string", "secret", "int", "number", "bool", "list", "map"]},
    "default": {}, "step": {"type": "integer", "minimum": 1, "description": "the step (of a fill or select) whose value becomes this param; or an open step: then default is the part of its address this param stands for (in every address the flow opens or waits for)"}},
    "required": ["name"], "additionalProperties": false}},
  "returns": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1},
    "description": "outputs of the flow: key → the step of a browser_read (reads named with as are outputs already)"}`

// authoringSchemas are the authoring tools' inputSchemas.
type authoringSchemas struct{ open, snapshot, click, fill, selectOpt, check, press, hover, wait, tab, back, save, preview, reset, read *Schema }

// authSchemas compiles the authoring tools' inputSchemas once, when
// EnableAuthoring first adds the tools: a server without --authoring never
// uses them, and compiling them at start cost every rpa process about 1 MB
// of allocations and 160 kB kept (issue 24, BenchmarkServeRSS).
var authSchemas = sync.OnceValue(func() (s authoringSchemas) {
	s.open = authSchema(`"url": {"type": "string", "description": "address to open (http, https)"}`, "url")
	s.snapshot = authSchema(`"maxTokens": {"type": "integer", "minimum": 100, "maximum": 50000, "description": "budget of the answer in tokens (characters / 4); default 2000"},
  "selector": {"type": "string", "description": "only this part of the page: a ref or a CSS selector"}`)
	s.click = authSchema(refProp, "ref")
	s.fill = authSchema(refProp+`, "value": {"type": "string", "description": "the text to put in the field (replaces what is there)"},
  "param": {"type": "string", `+paramNameBounds+`, "description": "name of the flow param this value becomes (its default is the value)"},
  "secret": {"type": "boolean", "description": "the value is a secret: a secret param, never written, never shown (password fields always are)"}`, "ref", "value")
	s.selectOpt = authSchema(refProp+`, "option": {"type": "string", "description": "the option's value or label"},
  "param": {"type": "string", `+paramNameBounds+`, "description": "name of the flow param this option becomes"}`, "ref", "option")
	s.check = authSchema(refProp+`, "checked": {"type": "boolean", "description": "the state to set"}`, "ref", "checked")
	s.press = authSchema(`"key": {"type": "string", "description": "key or chord: Enter, Tab, Escape, Control+A"}, `+
		`"ref": {"type": "string", "description": "element to focus first (optional)"}`, "key")
	s.hover = authSchema(refProp, "ref")
	s.wait = authSchema(`"text": {"type": "string", "description": "wait until the page shows this text"},
  "url": {"type": "string", "description": "wait until the address contains this (re: prefix for a regexp)"},
  "ref": {"type": "string", "description": "wait until this element is visible"},
  "timeout": {"type": "number", "minimum": 1, "maximum": 120, "description": "seconds (default 10)"}`)
	s.tab = authSchema(`"index": {"type": "integer", "minimum": 0, "description": "0-based tab index"},
  "url": {"type": "string", "description": "switch to the first tab whose address contains this"}`)
	s.back = authSchema(``)
	s.save = authSchema(`"name": {"type": "string", `+flowNameBounds+`, "description": "flow NAME ([a-z][a-z0-9_]*, at most `+strconv.Itoa(ast.MaxFlowName)+` characters); the tool becomes workflow_NAME"},
  "description": {"type": "string", "description": "what the flow does (the tool's description)"},
  "overwrite": {"type": "boolean", "description": "replace an existing flow file of that name"}, `+paramsProp, "name")
	s.preview = authSchema(`"name": {"type": "string", ` + flowNameBounds + `}, "description": {"type": "string"}, ` + paramsProp)
	s.reset = authSchema(``)
	s.read = schemaOf(`{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["text", "table", "form", "html", "url", "screenshot"],
      "description": "what to read: text, table ({headers, rows}), form (field → value), html, url, or screenshot (PNG image)"},
    "selector": {"type": "string", "description": "element to read (table: default the first table; others: default the whole page)"},
    "ref": {"type": "string", "description": "element to read, by its ref from browser_snapshot (instead of selector)"},
    "as": {"type": "string", ` + paramNameBounds + `, "description": "name this read: it becomes an output of the flow flow_save writes"},
    "profileId": {"type": "string", "pattern": "^[A-Za-z0-9_-][A-Za-z0-9_.-]*$", "maxLength": 64, "description": "Browser profile ID (optional override; default \"authoring\")"}
  },
  "required": ["action"],
  "additionalProperties": false
}`)
	return s
})

// authoringState holds the sessions, one per profile.
type authoringState struct {
	mu       sync.Mutex
	sessions map[string]*authoring.Session
}

func (a *authoringState) session(profile string) *authoring.Session {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[profile]
	if s == nil {
		s = authoring.NewSession()
		a.sessions[profile] = s
	}
	return s
}

// EnableAuthoring adds the authoring tools (`rpa serve --authoring`): the
// primitive browser tools that work on an authoring session (one per
// profile, "authoring" unless profileId says otherwise), flow_save,
// flow_preview and flow_reset, and browser_read with ref and as.
// tools/list_changed follows.
func (s *Server) EnableAuthoring() {
	sc := authSchemas()
	st := &authoringState{sessions: map[string]*authoring.Session{}}
	def := func(name, desc string, sch *Schema, fn callFunc, ann *mcp.ToolAnnotations) *tool {
		return &tool{def: &mcp.Tool{Name: name, Description: desc, InputSchema: sch.JSON, Annotations: ann}, schema: sch, fn: fn}
	}
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	ts := []*tool{
		def(ToolBrowserOpen, "Open an address in the authoring session's browser (logged as a step). Answers with a small snapshot of the page.", sc.open, s.authOpen(st), nil),
		def(ToolBrowserSnapshot, "The page as an accessibility tree, one node per line (`- role \"name\" [state] [ref=e12]`); act on elements by their ref. "+
			"Bounded by maxTokens (default 2000); when cut it says what was left out and how to ask for it (selector, maxTokens).", sc.snapshot, s.authSnapshot(st), ro),
		def(ToolBrowserClick, "Click an element by its ref (logged as a step). Answers with what changed on the page.", sc.click, s.authClick(st), nil),
		def(ToolBrowserFill, "Fill a field by its ref (logged as a step). param names the flow param the value becomes; secret makes it a secret param (never written or shown; password fields always are).", sc.fill, s.authFill(st), nil),
		def(ToolBrowserSelect, "Choose an option of a select by its ref (logged as a step); param names the flow param it becomes.", sc.selectOpt, s.authSelect(st), nil),
		def(ToolBrowserCheck, "Check or uncheck a checkbox or radio by its ref (logged as a step).", sc.check, s.authCheck(st), nil),
		def(ToolBrowserPress, "Press a key, on an element (ref) or the focused one (logged as a step).", sc.press, s.authPress(st), nil),
		def(ToolBrowserHover, "Move the mouse over an element by its ref (logged as a step).", sc.hover, s.authHover(st), nil),
		def(ToolBrowserWait, "Wait for a text, an address or an element (logged as a step: the flow waits there too).", sc.wait, s.authWait(st), nil),
		def(ToolBrowserTab, "Switch to another tab by index or address (logged as a step).", sc.tab, s.authTab(st), nil),
		def(ToolBrowserBack, "Go back one page. Going back from a page reached by a step drops that detour from the flow.", sc.back, s.authBack(st), nil),
		def(ToolBrowserRead, "Read the current page of a browser profile (default the authoring session's): its text, a table as {headers, rows}, a form's fields, HTML, URL, "+
			"or a screenshot; of one element by ref or selector. as names the read: it becomes an output of the saved flow. Password and secret values read as ***.", sc.read, s.authRead(st), ro),
		def(ToolFlowSave, "Compile the authoring session's steps into a checked, parameterised flow, write it to the served folder and publish it as workflow_NAME. "+
			"Answers with the flow text and its diagnostics.", sc.save, s.authSave(st, true), nil),
		def(ToolFlowPreview, "The flow flow_save would write, without saving it.", sc.preview, s.authSave(st, false), ro),
		def(ToolFlowReset, "Start the authoring session's log again (the page stays as it is).", sc.reset, s.authReset(st), nil),
	}
	s.setTools(ts, nil)
}

// authCall is the common shape of an authoring tool: take the profile,
// its current page, and run fn on the session.
type authFn func(ctx context.Context, sess *authoring.Session, l leaseLike, pg drivers.Page, args map[string]any) (*mcp.CallToolResult, error)

// leaseLike is what the tools use of a profiles.Lease.
type leaseLike interface {
	ID() string
	Browser() drivers.Browser
	SetPage(drivers.Page)
	MarkBroken()
}

func authProfile(args map[string]any) string {
	if p := str(args, ProfileArg); p != "" {
		return p
	}
	return AuthoringProfile
}

// withSession acquires the profile (starting its browser) and runs fn on
// its session and current page (nil when none is open and needPage is
// false).
func (s *Server) withSession(st *authoringState, tool string, needPage bool, fn authFn) callFunc {
	return func(ctx context.Context, req *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, error) {
		profile := authProfile(args)
		l, err := s.acquire(ctx, profile)
		if err != nil {
			return nil, err
		}
		defer l.Release()
		pg, err := currentPage(ctx, l)
		if err != nil {
			l.MarkBroken()
			return nil, rpcError(CodeBrowser, tool+": "+err.Error(), nil)
		}
		if pg == nil && needPage {
			return toolError(tool + ": no page is open in this session: call browser_open first"), nil
		}
		timeout := actionTimeout
		if tool == ToolBrowserWait {
			timeout = maxWait + actionTimeout // its own timeout bounds the wait
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		res, err := fn(ctx, st.session(profile), l, pg, args)
		if err != nil {
			if core.KindOf(err) == core.KindBrowser && !isRefError(err) && ctx.Err() == nil {
				l.MarkBroken()
			}
			return toolError(tool + ": " + err.Error()), nil
		}
		if res != nil {
			if sec := st.session(profile).Secrets(); len(sec) > 0 {
				s.rememberSecrets(profile, sec)
			}
		}
		return res, nil
	}
}

func isRefError(err error) bool {
	var re *authoring.RefError
	return errors.As(err, &re)
}

// toolError is a failed action as a tool result the agent reads.
func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}, IsError: true}
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func authOutcome(o *authoring.Outcome, err error) (*mcp.CallToolResult, error) {
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: o.Text}},
		StructuredContent: map[string]any{"step": o.Step}}, nil
}

func (s *Server) authOpen(st *authoringState) callFunc {
	return s.withSession(st, ToolBrowserOpen, false, func(ctx context.Context, sess *authoring.Session, l leaseLike, pg drivers.Page, args map[string]any) (*mcp.CallToolResult, error) {
		u := str(args, "url")
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") && !(s.opts.AllowFiles && strings.HasPrefix(u, "file:")) {
			return nil, fmt.Errorf("open: %q is not an http(s) address", u)
		}
		before := ""
		if pg == nil {
			np, err := l.Browser().NewPage(ctx, u)
			if err != nil {
				return nil, err
			}
			pg = np
			l.SetPage(pg)
		} else {
			before, _ = pg.URL(ctx)
			if err := pg.Navigate(ctx, u); err != nil {
				return nil, err
			}
		}
		return authOutcome(sess.After(ctx, pg, before, authoring.Entry{Kind: authoring.KindOpen, URL: u}))
	})
}

func (s *Server) authSnapshot(st *authoringState) callFunc {
	return s.withSession(st, ToolBrowserSnapshot, true, func(ctx context.Context, sess *authoring.Session, l leaseLike, pg drivers.Page, args map[string]any) (*mcp.CallToolResult, error) {
		maxTokens := snapshot.DefaultMaxTokens
		if n, ok := args["maxTokens"].(float64); ok {
			maxTokens = int(n)
		}
		text, err := sess.Snapshot(ctx, pg, str(args, "selector"), maxTokens)
		if err != nil {
			return nil, err
		}
		return textResult(s.masker(l.ID())(text).(string)), nil
	})
}

func (s *Server) authClick(st *authoringState) callFunc {
	return s.withSession(st, ToolBrowserClick, true, func(ctx context.Context, sess *authoring.Session, l leaseLike, pg drivers.Page, args map[string]any) (*mcp.CallToolResult, error) {
		return authOutcome(sess.Do(ctx, pg, authoring.Action{Entry: authoring.Entry{Kind: authoring.KindClick}, Ref: str(args, "ref"), Checks: drivers.ForPointer,
			Run: func(ctx context.Context, el drivers.Element) error { return el.Click(ctx, "left", 1) }}))
	})
}

func (s *Server) authFill(st *authoringState) callFunc {
	return s.withSession(st, ToolBrowserFill, true, func(ctx context.Context, sess *authoring.Session, l leaseLike, pg drivers.Page, args map[string]any) (*mcp.CallToolResult, error) {
		value, param := str(args, "value"), str(args, "param")
		secret, _ := args["secret"].(bool)
		if param != "" {
			if err := authoring.ParamName(param); err != nil {
				return nil, err
			}
		}
		a := authoring.Action{Entry: authoring.Entry{Kind: authoring.KindFill, Value: value, Param: param, Secret: secret}, Ref: str(args, "ref"), Checks: drivers.ForInput,
			Run: func(ctx context.Context, el drivers.Element) error { return el.Fill(ctx, value) }}
		a.Prepare = func(ctx context.Context, el drivers.Element, a *authoring.Action) error {
			if pw, _ := el.IsPassword(ctx); pw {
				a.Entry.Secret = true
			}
			if a.Entry.Secret {
				name, _, _ := el.Attr(ctx, "name")
				if a.Entry.Param == "" {
					a.Entry.Param = sess.SecretParamName(name)
				}
				a.Entry.Value = ""
				a.Secret = value
				s.rememberSecrets(l.ID(), []string{value})
			}
			return nil
		}
		return authOutcome(sess.Do(ctx, pg, a))
	})
}

func (s *Server) authSelect(st *authoringState) callFunc {
	return s.withSession(st, ToolBrowserSelect, true, func(ctx context.Context, sess *authoring.Session, l leaseLike, pg drivers.Page, args map[string]any) (*mcp.CallToolResult, error) {
		option, param := str(args, "option"), str(args, "param")
		if param != "" {
			if err := authoring.ParamName(param); err != nil {
				return nil, err
			}
		}
		return authOutcome(sess.Do(ctx, pg, authoring.Action{Entry: authoring.Entry{Kind: authoring.KindSelect, Value: option, Param: param}, Ref: str(args, "ref"), Checks: drivers.ForInput,
			Run: func(ctx context.Context, el drivers.Element) error { return el.Select(ctx, option, "") }}))
	})
}

func (s *Server) authCheck(st *authoringState) callFunc {
	return s.withSession(st, ToolBrowserCheck, true, func(ctx context.Context, sess *authoring.Session, l leaseLike, pg drivers.Page, args map[string]any) (*mcp.CallToolResult, error) {
		want, _ := args["checked"].(bool)
		return authOutcome(sess.Do(ctx, pg, authoring.Action{Entry: authoring.Entry{Kind: authoring.KindCheck, Checked: want}, Ref: str(args, "ref"), Checks: drivers.ForPointer,
			Run: func(ctx context.Context, el drivers.Element) error {
				cur, err := el.Checked(ctx)
				if err != nil {
					return err
				}
				if cur == want {
					return nil
				}
				if err := el.Click(ctx, "left", 1); err != nil {
					return err
				}
				if now, err := el.Checked(ctx); err == nil && now != want {
					return fmt.Errorf("the element is still checked=%v after a click", now)
				}
				return nil
			}}))
	})
}

func (s *Server) authPress(st *authoringState) callFunc {
	return s.withSession(st, ToolBrowserPress, true, func(ctx context.Context, sess *authoring.Session, l leaseLike, pg drivers.Page, args map[string]any) (*mcp.CallToolResult, error) {
		key := str(args, "key")
		return authOutcome(sess.Do(ctx, pg, authoring.Action{Entry: authoring.Entry{Kind: authoring.KindPress, Key: key}, Ref: str(args, "ref"), Checks: drivers.Attached,
			Run: func(ctx context.Context, el drivers.Element) error {
				if el != nil {
					if err := el.Focus(ctx); err != nil {
						return err
					}
				}
				return pg.Press(ctx, key)
			}}))
	})
}

func (s *Server) authHover(st *authoringState) callFunc {
	return s.withSession(st, ToolBrowserHover, true, func(ctx context.Context, sess *authoring.Session, l leaseLike, pg drivers.Page, args map[string]any) (*mcp.CallToolResult, error) {
		return authOutcome(sess.Do(ctx, pg, authoring.Action{Entry: authoring.Entry{Kind: authoring.KindHover}, Ref: str(args, "ref"), Checks: drivers.ForPointer,
			Run: func(ctx context.Context, el drivers.Element) error { return el.Hover(ctx) }}))
	})
}

func (s *Server) authWait(st *authoringState) callFunc {
	return s.withSession(st, ToolBrowserWait, true, func(ctx context.Context, sess *authoring.Session, l leaseLike, pg drivers.Page, args map[string]any) (*mcp.CallToolResult, error) {
		text, u, ref := str(args, "text"), str(args, "url"), str(args, "ref")
		n := 0
		for _, v := range []string{text, u, ref} {
			if v != "" {
				n++
			}
		}
		if n != 1 {
			return nil, errors.New("give exactly one of text, url and ref")
		}
		d := waitTimeout
		if t, ok := args["timeout"].(float64); ok {
			d = time.Duration(t * float64(time.Second))
		}
		wctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		a := authoring.Action{Entry: authoring.Entry{Kind: authoring.KindWait, Text: text, URL: u}}
		switch {
		case ref != "":
			a.Ref, a.Checks = ref, drivers.Attached|drivers.Visible
			a.Run = func(context.Context, drivers.Element) error { return nil }
		case text != "":
			a.Run = func(context.Context, drivers.Element) error { return pg.WaitText(wctx, text) }
		default:
			a.Run = func(context.Context, drivers.Element) error { return pg.WaitURL(wctx, u) }
		}
		if ref != "" {
			return authOutcome(sess.Do(wctx, pg, a)) // the locate is the wait
		}
		return authOutcome(sess.Do(ctx, pg, a))
	})
}

func (s *Server) authTab(st *authoringState) callFunc {
	return s.withSession(st, ToolBrowserTab, true, func(ctx context.Context, sess *authoring.Session, l leaseLike, pg drivers.Page, args map[string]any) (*mcp.CallToolResult, error) {
		pages, err := l.Browser().Pages(ctx)
		if err != nil {
			return nil, err
		}
		e := authoring.Entry{Kind: authoring.KindTab}
		var to drivers.Page
		if u := str(args, "url"); u != "" {
			e.URL = u
			for _, p := range pages {
				if pu, _ := p.URL(ctx); strings.Contains(pu, u) {
					to = p
					break
				}
			}
		} else if i, ok := args["index"].(float64); ok {
			e.TabIndex = int(i)
			if int(i) < len(pages) {
				to = pages[int(i)]
			}
		} else {
			return nil, errors.New("give index or url")
		}
		if to == nil {
			return nil, fmt.Errorf("no such tab (%d open)", len(pages))
		}
		l.SetPage(to)
		before, _ := pg.URL(ctx)
		return authOutcome(sess.After(ctx, to, before, e))
	})
}

func (s *Server) authBack(st *authoringState) callFunc {
	return s.withSession(st, ToolBrowserBack, true, func(ctx context.Context, sess *authoring.Session, l leaseLike, pg drivers.Page, args map[string]any) (*mcp.CallToolResult, error) {
		return authOutcome(sess.Do(ctx, pg, authoring.Action{Entry: authoring.Entry{Kind: authoring.KindBack},
			Run: func(ctx context.Context, _ drivers.Element) error { return pg.Back(ctx) }}))
	})
}

// authRead is browser_read with ref and as; without them on a profile
// with no authoring session page it is the built-in.
func (s *Server) authRead(st *authoringState) callFunc {
	return func(ctx context.Context, req *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, error) {
		if str(args, ProfileArg) == "" {
			args[ProfileArg] = AuthoringProfile
		}
		ref, as, action := str(args, "ref"), str(args, "as"), str(args, "action")
		if ref == "" && as == "" {
			return s.browserRead(ctx, req, args)
		}
		if ref != "" && str(args, "selector") != "" {
			return nil, argError(&ArgError{Field: "ref", Msg: "give ref or selector, not both"})
		}
		if as != "" {
			if err := authoring.ParamName(as); err != nil {
				return nil, argError(&ArgError{Field: "as", Msg: err.Error()})
			}
			if action == "screenshot" {
				return nil, argError(&ArgError{Field: "as", Msg: "a screenshot cannot be a flow output"})
			}
		}
		return s.withSession(st, ToolBrowserRead, true, func(ctx context.Context, sess *authoring.Session, l leaseLike, pg drivers.Page, args map[string]any) (*mcp.CallToolResult, error) {
			var el drivers.Element
			var target *authoring.Element
			var err error
			switch sel := str(args, "selector"); {
			case ref != "":
				el, target, err = sess.Locate(ctx, pg, ref, drivers.ForRead)
			case sel != "" || action == "table":
				if sel == "" {
					sel = "table"
				}
				el, _, err = pg.Locate(ctx, []string{sel}, drivers.ForRead)
				target = &authoring.Element{Selectors: []string{sel}}
			}
			if err != nil {
				return nil, err
			}
			switch action {
			case "url":
				target = nil
			case "screenshot":
				// Password fields masked (drivers.Capture); the page's
				// viewport when no element was named.
				png, err := drivers.Capture(ctx, pg, el, false, nil)
				if err != nil {
					return nil, err
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: png, MIMEType: "image/png"}}}, nil
			}
			value, err := stdlib.Read(ctx, action, pg, el, readOpts) // as the read actions read
			if err != nil {
				return nil, err
			}
			step := sess.Add(authoring.Entry{Kind: authoring.KindRead, Read: action, Target: target, As: as})
			value = s.masker(l.ID())(value)
			note := fmt.Sprintf("step %d: read %s", step, action)
			if as != "" {
				note += " as " + as + " (an output of the flow)"
			}
			var text string
			if t, ok := value.(string); ok {
				text = sess.Mask(t)
				value = text
			} else {
				raw, err := json.Marshal(value)
				if err != nil {
					return nil, err
				}
				text = sess.Mask(string(raw))
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}, &mcp.TextContent{Text: note}},
				StructuredContent: map[string]any{"value": json.RawMessage(maskedJSON(value, sess)), "step": step}}, nil
		})(ctx, req, args)
	}
}

func maskedJSON(v any, sess *authoring.Session) string {
	raw, _ := json.Marshal(v)
	return sess.Mask(string(raw))
}

func (s *Server) authReset(st *authoringState) callFunc {
	return func(ctx context.Context, req *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, error) {
		sess := st.session(authProfile(args))
		n := sess.Log().Len()
		sess.Reset()
		return textResult(fmt.Sprintf("the log is empty again (%d steps dropped); the page stays where it is", n)), nil
	}
}

// authSave is flow_save (save true) and flow_preview.
func (s *Server) authSave(st *authoringState, save bool) callFunc {
	tool := ToolFlowPreview
	if save {
		tool = ToolFlowSave
	}
	return func(ctx context.Context, req *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, error) {
		sess := st.session(authProfile(args))
		m := authoring.Meta{Name: str(args, "name"), Description: str(args, "description")}
		if m.Name == "" {
			m.Name = "draft"
		}
		if ps, ok := args["params"].([]any); ok {
			for i, p := range ps {
				mp, _ := p.(map[string]any)
				par, err := authoring.ParamFromJSON(mp)
				if err != nil {
					var me *authoring.MetaError
					errors.As(err, &me)
					return nil, argError(&ArgError{Field: fmt.Sprintf("params[%d].%s", i, me.Field), Msg: me.Msg})
				}
				m.Params = append(m.Params, par)
			}
		}
		if rs, ok := args["returns"].(map[string]any); ok {
			m.Returns = map[string]int{}
			for k, v := range rs {
				n, _ := v.(float64)
				m.Returns[k] = int(n)
			}
		}
		log := sess.Log()
		if log.Len() == 0 {
			return toolError(tool + ": the session has no steps yet"), nil
		}
		out, err := authoring.Compile(log, m)
		if err != nil {
			var me *authoring.MetaError
			if errors.As(err, &me) {
				return nil, argError(&ArgError{Field: me.Field, Msg: me.Msg})
			}
			return nil, rpcError(CodeBuiltinFailed, tool+": "+err.Error(), nil)
		}
		diags := make([]string, 0, len(out.Diagnostics))
		for _, d := range out.Diagnostics {
			diags = append(diags, d.OneLine())
		}
		text := string(out.Text) // the log holds no secret value (Log.Add drops it)
		sc := map[string]any{"name": m.Name, "text": text, "diagnostics": diags, "params": out.Params, "secrets": out.Secrets, "dropped": out.Dropped}
		if out.Flow == nil {
			sc["saved"] = false
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tool + ": the flow does not check:\n" + strings.Join(diags, "\n") + "\n\n" + text}},
				StructuredContent: sc, IsError: true}, nil
		}
		head := "flow " + m.Name + " (not saved):"
		if save {
			path, err := s.saveFlow(m.Name, out.Text, args["overwrite"] == true)
			if err != nil {
				return toolError(tool + ": " + err.Error()), nil
			}
			s.Reload()
			sc["saved"], sc["path"], sc["tool"] = true, path, ToolName(m.Name)
			head = fmt.Sprintf("saved %s; served as the tool %s", filepath.Base(path), ToolName(m.Name))
		}
		if len(diags) > 0 {
			head += "\nwarnings:\n" + strings.Join(diags, "\n")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: head + "\n\n" + text}}, StructuredContent: sc}, nil
	}
}

// saveFlow writes NAME.flow in the flows folder (temp file + rename).
func (s *Server) saveFlow(name string, text []byte, overwrite bool) (string, error) {
	dir := s.opts.FlowsDir
	if dir == "" {
		return "", errors.New("this server serves no flows folder")
	}
	path := filepath.Join(dir, name+".flow")
	s.reg.byNameMu.RLock()
	other := s.reg.byName[name]
	s.reg.byNameMu.RUnlock()
	if other != nil && !sameFile(other.path, path) {
		return "", fmt.Errorf("the flow %s is already served from %s: choose another name", name, filepath.Base(other.path))
	}
	if _, err := os.Stat(path); err == nil && !overwrite {
		return "", fmt.Errorf("%s exists: pass overwrite: true to replace it", filepath.Base(path))
	}
	if err := atomicfile.Write(path, text, 0o600); err != nil {
		return "", err
	}
	return path, nil
}

func sameFile(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// AuthoringToolNames lists the tools EnableAuthoring adds (browser_read
// included, which it extends), sorted.
func AuthoringToolNames() []string {
	n := []string{ToolBrowserOpen, ToolBrowserSnapshot, ToolBrowserClick, ToolBrowserFill, ToolBrowserSelect, ToolBrowserCheck,
		ToolBrowserPress, ToolBrowserHover, ToolBrowserWait, ToolBrowserTab, ToolBrowserBack, ToolBrowserRead, ToolFlowSave, ToolFlowPreview, ToolFlowReset}
	sort.Strings(n)
	return n
}
