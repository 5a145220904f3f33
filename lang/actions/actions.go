// Package actions is the action table of the flow language as plain data:
// every action's name, aliases, positional params, options, result kind and
// doc (docs/spec/LANGUAGE.md, "Actions"). The checker, the runtime
// (stdlib binds one implementation per name), LANGUAGE.md's action table
// (TestSpecTable) and MCP schemas all read this one table. It knows
// nothing of browsers.
package actions

import "sort"

// Kind is what an argument or option value must be.
type Kind int

// Argument kinds. Checks are static where the value is a literal and at run
// time otherwise.
const (
	KindAny         Kind = iota // any value
	KindString                  // a string
	KindSelector                // a string or a list of strings (fallback list)
	KindDuration                // a duration literal (500ms, 1m30s)
	KindInt                     // an integer
	KindBool                    // true/false
	KindMap                     // a map
	KindFlowName                // a bare flow name (call)
	KindStrings                 // a string or a list of strings (upload paths)
	KindCommand                 // a list of strings (no shell) or one string (sh -c)
	KindIntOrString             // tab: "last", an index or a url pattern
	KindExpr                    // an expression re-evaluated on every poll (until:)
)

// String names the kind for diagnostics ("expects a duration").
func (k Kind) String() string {
	return [...]string{"any value", "string", "selector", "duration", "integer", "bool", "map",
		"flow name", "string or list of strings", "command", "integer or string", "expression"}[k]
}

// Result is the kind of value an action returns (LANGUAGE.md table, last
// column); the checker uses it as the static type of a bound name.
type Result int

// Result kinds.
const (
	ResultNone   Result = iota // returns null
	ResultString               // a string
	ResultAny                  // string or list of strings (text all:), table shapes, call outputs ...
	ResultMap                  // a map
	ResultList                 // a list
	ResultNumber               // a number
)

// Param is one positional parameter of an action.
type Param struct {
	Name     string
	Kind     Kind
	Optional bool
	Doc      string
}

// Option is one `KEY: VALUE` option an action accepts.
type Option struct {
	Name string
	Kind Kind
	// Enum lists the allowed string values, nil when free.
	Enum []string
	Doc  string
}

// Class says how the replay engine treats an action.
type Class int

// Action classes (LANGUAGE.md, "Action options and the replay engine").
const (
	// ClassPage acts on or reads the page: wait/retries/every/timeout apply.
	ClassPage Class = iota
	// ClassOnce is never retried (sleep, wait, ask, llm, exec, call, download,
	// dialog policy); its Bound says what bounds its single attempt.
	ClassOnce
)

// Bound says what bounds the single attempt of a ClassOnce action (the
// replay engine's `timeout:` of a ClassPage action bounds all its tries
// instead).
type Bound int

// Bounds of ClassOnce actions.
const (
	// BoundCancel: only cancellation of the run. sleep ends by itself, ask
	// applies its own answer timeout, exec's host applies an explicit
	// timeout:, call's callee has its own actions' bounds, dialog returns
	// at once.
	BoundCancel Bound = iota
	// BoundWait: the action's own timeout: when it gives one, else the
	// resolved wait: (the `wait` action).
	BoundWait
	// BoundTimeout: the resolved timeout: (action, defaults or built-in),
	// always (download).
	BoundTimeout
	// BoundTimeoutSet: the action's own timeout:, only when it gives one
	// (llm: a model may take long; the agent's client bounds it otherwise).
	BoundTimeoutSet
)

// Action is one row of the action table.
type Action struct {
	Name    string
	Aliases []string
	Params  []Param
	Options []Option
	Result  Result
	Class   Class
	// Bound bounds a ClassOnce action's attempt (BoundCancel for ClassPage
	// actions, where it is unused).
	Bound Bound
	// Popup is true when the action may open a tab (a click on a
	// target=_blank link, a key that submits into a new window ...): the
	// replay engine marks the current tab's popups before it so that
	// `tab "last"` waits for one it opened.
	Popup bool
	Doc   string
}

// FlowParam is the index of the positional param that is a bare flow name
// (KindFlowName: `call NAME`), or -1 when the action takes none.
func (a *Action) FlowParam() int {
	for i, p := range a.Params {
		if p.Kind == KindFlowName {
			return i
		}
	}
	return -1
}

// TakesFlow reports whether the action named name (or an alias) takes a
// flow name, i.e. runs another flow (`call`).
func TakesFlow(name string) bool {
	a := Lookup(name)
	return a != nil && a.FlowParam() >= 0
}

// IsFlowArg reports whether positional i of the action named name (or an
// alias) is a bare flow name: the front ends keep it as a string, the
// formatter writes it bare, the runtime does not evaluate it.
func IsFlowArg(name string, i int) bool {
	a := Lookup(name)
	return a != nil && a.FlowParam() == i
}

// MinArgs is the number of required positional arguments.
func (a *Action) MinArgs() int {
	n := 0
	for _, p := range a.Params {
		if !p.Optional {
			n++
		}
	}
	return n
}

// Option returns the option spec named n (own options first, then the
// common ones), or nil.
func (a *Action) Option(n string) *Option {
	if o := optionIn(a.Options, n); o != nil {
		return o
	}
	return CommonOption(n)
}

// CommonOption returns the common option named n (Common), or nil.
func CommonOption(n string) *Option { return optionIn(Common, n) }

// DefaultsKey returns the `defaults` key named n (DefaultsKeys), or nil.
func DefaultsKey(n string) *Option { return optionIn(DefaultsKeys, n) }

func optionIn(opts []Option, n string) *Option {
	for i := range opts {
		if opts[i].Name == n {
			return &opts[i]
		}
	}
	return nil
}

// Common are the replay-engine options every action accepts (and
// `defaults` too): wait, retries, every, timeout, optional.
var Common = []Option{
	{Name: "wait", Kind: KindDuration, Doc: "how long to wait for the element to be visible, enabled and not covered (default 10s)"},
	{Name: "retries", Kind: KindInt, Doc: "tries after the first (default 2: 3 attempts in all)"},
	{Name: "every", Kind: KindDuration, Doc: "pause between tries (default 1s)"},
	{Name: "timeout", Kind: KindDuration, Doc: "bound for one action with all its tries (default 30s)"},
	{Name: "optional", Kind: KindBool, Doc: "a failure after all tries is recorded and the flow goes on"},
}

// DefaultsKeys are the keys `defaults` accepts beyond Common minus
// `optional` (on_timeout, profile, max_loops, evidence).
var DefaultsKeys = []Option{
	{Name: "wait", Kind: KindDuration, Doc: Common[0].Doc},
	{Name: "retries", Kind: KindInt, Doc: Common[1].Doc},
	{Name: "every", Kind: KindDuration, Doc: Common[2].Doc},
	{Name: "timeout", Kind: KindDuration, Doc: Common[3].Doc},
	{Name: "on_timeout", Kind: KindString, Enum: []string{"fail", "skip"}, Doc: `"skip": an action still failing after its tries is recorded skipped and the flow goes on`},
	{Name: "profile", Kind: KindString, Doc: "the browser profile used when the caller names none"},
	{Name: "max_loops", Kind: KindInt, Doc: "bound on while iterations (default 1000)"},
	{Name: "evidence", Kind: KindString, Enum: []string{"default", "full"}, Doc: `what the run store records: "full" adds a screenshot after every page action (PROTOCOL.md, "Runs")`},
	{Name: "login", Kind: KindString, Doc: `the sign-in flow (a flow NAME of the folder) run when a step lands on a sign-in page or fails where logged_in does not match; the step is then tried once more`},
	{Name: "logged_in", Kind: KindSelector, Doc: "a selector that matches only while signed in (#logout): a failing step on a page without it signs in again"},
	{Name: "heal", Kind: KindString, Enum: []string{"off", "suggest", "auto", "ask-model"}, Doc: `what happens when no selector finds an element the flow found before: "suggest" (default) fails with the closest candidate, "auto" acts on a clearly matching one, "ask-model" lets the caller's model choose, "off" (docs/healing.md)`},
}

var sel = Param{Name: "selector", Kind: KindSelector, Doc: "CSS, xpath=, text=, aria/, pierce/ or a fallback list"}
var optSel = Param{Name: "selector", Kind: KindSelector, Optional: true, Doc: sel.Doc}

// Table is every action, in the order of the spec.
var Table = []*Action{
	{Name: "open", Popup: true, Aliases: []string{"navigate"}, Params: []Param{{Name: "url", Kind: KindString, Doc: "absolute URL"}}, Doc: "Open a URL in the current tab and wait for DOMContentLoaded."},
	{Name: "back", Doc: "Go back in history."},
	{Name: "forward", Doc: "Go forward in history."},
	{Name: "reload", Doc: "Reload the current page."},
	{Name: "click", Popup: true, Params: []Param{sel}, Options: []Option{
		{Name: "button", Kind: KindString, Enum: []string{"left", "right", "middle"}, Doc: "mouse button"},
		{Name: "count", Kind: KindInt, Doc: "click count (2 = double click)"},
		{Name: "force", Kind: KindBool, Doc: "skip the checks; the click goes to the element itself (events dispatched on it when something covers its centre)"},
	}, Doc: "Real mouse press and release at the centre of the element's visible box, after the checks (attached, visible, stable, enabled, receives the hit)."},
	{Name: "hover", Popup: true, Params: []Param{sel}, Doc: "Move the mouse over the element."},
	{Name: "fill", Popup: true, Aliases: []string{"input"}, Params: []Param{sel, {Name: "value", Kind: KindAny, Doc: "the new value"}}, Doc: "Replace the whole value as a person would (focus, select all, insert text, input and change events)."},
	{Name: "type", Popup: true, Params: []Param{sel, {Name: "value", Kind: KindAny, Doc: "text to type"}}, Options: []Option{
		{Name: "delay", Kind: KindDuration, Doc: "pause between keys"},
	}, Doc: "Send the text key by key, without clearing."},
	{Name: "press", Popup: true, Params: []Param{{Name: "key", Kind: KindString, Doc: `key or chord: "Enter", "Control+A"`}}, Options: []Option{
		{Name: "on", Kind: KindSelector, Doc: "focus this element through the DOM first"},
	}, Doc: "Press a key."},
	{Name: "select", Popup: true, Params: []Param{sel, {Name: "value", Kind: KindAny, Doc: "value, label or index"}}, Options: []Option{
		{Name: "by", Kind: KindString, Enum: []string{"value", "label", "index"}, Doc: "how to match the option (default: value, then label)"},
	}, Doc: "Choose an option of a <select>."},
	{Name: "check", Popup: true, Params: []Param{sel}, Doc: "Make a checkbox or radio checked (clicks it when it is not)."},
	{Name: "uncheck", Popup: true, Params: []Param{sel}, Doc: "Make a checkbox unchecked (clicks it when it is)."},
	{Name: "upload", Params: []Param{sel, {Name: "files", Kind: KindStrings, Doc: "path or list of paths"}}, Doc: "Set the files of a file input (hidden inputs too)."},
	{Name: "scroll", Params: []Param{{Name: "target", Kind: KindSelector, Doc: `selector, or "bottom"/"top" for the page`}}, Options: []Option{
		{Name: "to", Kind: KindString, Enum: []string{"bottom", "top"}, Doc: "scroll that element's own content"},
	}, Doc: "Scroll an element into view, the page, or an element's content."},
	{Name: "wait", Params: []Param{optSel}, Options: []Option{
		{Name: "state", Kind: KindString, Enum: []string{"visible", "hidden", "attached", "detached"}, Doc: "element state to wait for (default visible)"},
		{Name: "text", Kind: KindString, Doc: "the element's (or else the page's) text contains it"},
		{Name: "url", Kind: KindString, Doc: "substring of the URL, or re:REGEXP"},
		{Name: "idle", Kind: KindBool, Doc: "network quiet for 500ms"},
		{Name: "until", Kind: KindExpr, Doc: "expression re-evaluated until true"},
	}, Class: ClassOnce, Bound: BoundWait, Doc: "Wait for an element state, text, URL, network idle or a condition, up to timeout:/wait:."},
	{Name: "sleep", Params: []Param{{Name: "duration", Kind: KindDuration}}, Class: ClassOnce, Doc: "Pause."},
	{Name: "text", Params: []Param{sel}, Options: []Option{{Name: "all", Kind: KindBool, Doc: "every match, as a list"}}, Result: ResultAny, Doc: "Rendered text, whitespace collapsed, trimmed."},
	{Name: "attr", Params: []Param{sel, {Name: "name", Kind: KindString}}, Result: ResultString, Doc: "An attribute's value."},
	{Name: "value", Params: []Param{sel}, Result: ResultString, Doc: "The current value of a form control."},
	{Name: "html", Params: []Param{optSel}, Result: ResultString, Doc: "Outer HTML of the element, or the whole document."},
	{Name: "table", Params: []Param{sel}, Options: []Option{{Name: "header", Kind: KindString, Enum: []string{"auto", "grid", "none"}, Doc: "auto: list of maps; grid: {headers, rows}; none: list of lists"}}, Result: ResultAny, Doc: "Read a table (spans expanded, header rows joined, tfoot left out)."},
	{Name: "form", Params: []Param{optSel}, Result: ResultMap, Doc: "Map of field name to value (passwords read as ***)."},
	{Name: "url", Result: ResultString, Doc: "The current URL."},
	{Name: "title", Result: ResultString, Doc: "The current title."},
	{Name: "screenshot", Params: []Param{optSel}, Options: []Option{
		{Name: "path", Kind: KindString, Doc: "file to write"},
		{Name: "full", Kind: KindBool, Doc: "the full page"},
	}, Result: ResultString, Doc: "PNG screenshot; returns the file path."},
	{Name: "download", Popup: true, Params: []Param{{Name: "selector", Kind: KindSelector, Doc: "element to click"}}, Options: []Option{
		{Name: "to", Kind: KindString, Doc: "folder to save into"},
	}, Result: ResultMap, Class: ClassOnce, Bound: BoundTimeout, Doc: "Click and save the download: {path, name, size, sha256, mime}."},
	{Name: "tab", Params: []Param{{Name: "which", Kind: KindIntOrString, Doc: `"last", 0-based index, or URL pattern`}}, Doc: "Switch the current tab."},
	{Name: "close", Doc: "Close the current tab."},
	{Name: "dialog", Params: []Param{{Name: "policy", Kind: KindString, Doc: `"accept" or "dismiss"`}}, Options: []Option{
		{Name: "text", Kind: KindString, Doc: "answer for prompts"},
	}, Class: ClassOnce, Doc: "Policy for the next JS dialogs (default dismiss)."},
	{Name: "ask", Params: []Param{{Name: "title", Kind: KindString}}, Options: []Option{
		{Name: "message", Kind: KindString},
		{Name: "input", Kind: KindString, Enum: []string{"text", "password", "number"}},
		{Name: "timeout", Kind: KindDuration, Doc: "how long to wait for the answer (default 120s)"},
	}, Result: ResultAny, Class: ClassOnce, Doc: "Ask a person (MCP elicitation, desktop dialog or terminal)."},
	{Name: "llm", Params: []Param{{Name: "prompt", Kind: KindString}}, Options: []Option{
		{Name: "input", Kind: KindAny, Doc: "value serialised as JSON into the prompt"},
	}, Result: ResultString, Class: ClassOnce, Bound: BoundTimeoutSet, Doc: "Text from the calling agent's model (MCP sampling)."},
	{Name: "call", Params: []Param{{Name: "flow", Kind: KindFlowName}}, Options: []Option{
		{Name: "with", Kind: KindMap, Doc: "arguments"},
	}, Result: ResultAny, Class: ClassOnce, Doc: "Run another flow of the same folder; returns its outputs."},
	{Name: "exec", Params: []Param{{Name: "command", Kind: KindCommand}}, Result: ResultMap, Class: ClassOnce, Doc: "Run a command: {stdout, stderr, code, truncated}; refused unless the host enables it."},
}

var byName = func() map[string]*Action {
	m := map[string]*Action{}
	for _, a := range Table {
		m[a.Name] = a
		for _, al := range a.Aliases {
			m[al] = a
		}
	}
	return m
}()

// Lookup returns the action named n (an alias resolves to its action), or nil.
func Lookup(n string) *Action { return byName[n] }

// Names lists every action name and alias, sorted (for "did you mean").
func Names() []string {
	out := make([]string, 0, len(byName))
	for n := range byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Replay says in words how the replay engine runs the action: the
// `replay` column of LANGUAGE.md's action table (a test keeps the two
// equal).
func (a *Action) Replay() string {
	var s string
	switch {
	case a.Class == ClassPage:
		s = "retried"
	case a.Bound == BoundWait:
		s = "once, within its `timeout:` (or `wait:`)"
	case a.Bound == BoundTimeout:
		s = "once, within `timeout:`"
	case a.Bound == BoundTimeoutSet:
		s = "once, within `timeout:` when given"
	default:
		s = "once"
	}
	if a.Popup {
		s += "; may open a tab"
	}
	return s
}
