// Package authoring turns what an agent did in a browser, one primitive
// action at a time (the MCP server's authoring tools: browser_open,
// browser_click, browser_fill, ...), into a checked, parameterised flow.
//
// Every action that succeeded is appended to a Log as an Entry holding
// what replay needs: the element's selector fallback list computed by
// package selectorgen at the moment of the action (the same generator
// `rpa record` uses), its frame path, the value and whether it is a param
// or a secret, and the navigation the action caused. Compile turns a Log
// into `.flow` text:
//
//   - the first page's origin becomes the param base_url, and every URL
//     of that origin is written "{{ base_url }}/path";
//   - values the agent marked with a param name become params with their
//     types and the seen value as default; secret values become `secret`
//     params, never written anywhere (the Log never holds them);
//   - what each action caused is recorded (a new document, a URL change
//     in the document, the requests it finished, the elements that
//     appeared), and the action is followed by the wait that makes the
//     next step safe on a fresh profile and a slow server: after a
//     navigation (also before an `open`), a `wait url:` whose pattern the
//     page before did not match, else a wait for an element that appeared
//     (a content wait), else `wait idle: true`; after requests that did
//     not change the URL, a content wait before a read;
//   - selectors that name an element by text a param supplies are left
//     out (its structure or role names it then), and params go into
//     URLs through urlquery/urlpath;
//   - reads named with `as` become the flow's `return` map;
//   - dead ends are dropped: a `back` removes the actions since the
//     navigation it undoes, and a field filled again keeps its last value;
//   - actions inside iframes are grouped in `frame` blocks.
//
// The package knows nothing of MCP; the tools live in package mcpserver
// (authoring.go there), the browser side in session.go here.
package authoring

import (
	"fmt"
	"strings"
)

// Kinds of Entry.
const (
	KindOpen   = "open"   // URL
	KindClick  = "click"  // Target
	KindFill   = "fill"   // Target, Value / Param / Secret
	KindSelect = "select" // Target, Value (the option) / Param
	KindCheck  = "check"  // Target, Checked
	KindPress  = "press"  // Key, Target (optional: the element focused first)
	KindHover  = "hover"  // Target
	KindWait   = "wait"   // one of Text, URL, Target
	KindTab    = "tab"    // TabIndex or URL
	KindBack   = "back"   //
	KindRead   = "read"   // Read, Target (optional), As
)

// Element is the element an action acted on, as the selector generator
// saw it at that moment.
type Element struct {
	// Selectors is the fallback list, best first (never empty).
	Selectors []string `json:"selectors"`
	// Frames lists the selector lists of the iframes around the element,
	// outermost first; empty in the top document.
	Frames [][]string `json:"frames,omitempty"`
	// Desc names the element for people: `button "Query"`.
	Desc string `json:"desc,omitempty"`
}

// Entry is one logged action. Step numbers (1-based positions in the Log)
// are what the tools report and what flow_save's params[].step and
// returns name.
type Entry struct {
	Kind   string   `json:"kind"`
	Target *Element `json:"target,omitempty"`
	// URL is the address opened (open), waited for (wait), or the tab's
	// URL pattern (tab).
	URL string `json:"url,omitempty"`
	// Value is the value filled or the option selected; always "" for a
	// secret.
	Value string `json:"value,omitempty"`
	// Param names the flow param the value becomes; Secret makes it a
	// secret param (and Value is never kept).
	Param  string `json:"param,omitempty"`
	Secret bool   `json:"secret,omitempty"`
	// Checked is the state a check action set.
	Checked bool `json:"checked,omitempty"`
	// Key is the key pressed (press): "Enter", "Control+A".
	Key string `json:"key,omitempty"`
	// Text is the text waited for (wait).
	Text string `json:"text,omitempty"`
	// TabIndex is the tab switched to (tab, when URL is "").
	TabIndex int `json:"tabIndex,omitempty"`
	// Read is what a read returned: text, table, form, html, url or title.
	Read string `json:"read,omitempty"`
	// As names a read: it becomes an output of the flow (the `return` map).
	As string `json:"as,omitempty"`
	// NavURL is the tab's URL after the action when the action caused a
	// navigation: a new document (a link, a form; also one at the same
	// URL, a form posted back to itself) or, with SameDoc, a change of
	// the URL within the document (history.pushState); "" when it did
	// not.
	NavURL  string `json:"navUrl,omitempty"`
	SameDoc bool   `json:"sameDoc,omitempty"`
	// From is the tab's URL before the action (set on actions that may
	// navigate: not open, back or tab): a `wait url:` after it must not
	// match From, or it would pass before the navigation happened.
	From string `json:"from,omitempty"`
	// Requests counts the fetch/XHR requests the document finished while
	// the action ran and the page settled (a new document's own since it
	// started).
	Requests int `json:"requests,omitempty"`
	// Appeared are up to three elements the page showed after the action
	// and not before, each with a selector list whose first entry is not
	// positional: what a content wait after the action can wait for.
	Appeared []Element `json:"appeared,omitempty"`
}

// Log is an authoring session's actions, in order.
type Log struct {
	Entries []Entry `json:"entries"`
}

// Add appends e and returns its step number (1-based). A secret's value is
// dropped here whatever the caller passed.
func (l *Log) Add(e Entry) int {
	if e.Secret {
		e.Value = ""
	}
	l.Entries = append(l.Entries, e)
	return len(l.Entries)
}

// Reset empties the log.
func (l *Log) Reset() { l.Entries = nil }

// Len is the number of entries.
func (l *Log) Len() int { return len(l.Entries) }

// Describe is a short line for one entry, for tool answers and errors:
// `3 fill textbox "Username" = username (param)`. Secrets show no value.
func (e *Entry) Describe() string {
	var b strings.Builder
	b.WriteString(e.Kind)
	if e.Target != nil {
		d := e.Target.Desc
		if d == "" && len(e.Target.Selectors) > 0 {
			d = e.Target.Selectors[0]
		}
		b.WriteString(" " + d)
	}
	switch e.Kind {
	case KindOpen:
		b.WriteString(" " + e.URL)
	case KindFill, KindSelect:
		switch {
		case e.Secret:
			fmt.Fprintf(&b, " = %s (secret param)", e.Param)
		case e.Param != "":
			fmt.Fprintf(&b, " = %q (param %s)", e.Value, e.Param)
		default:
			fmt.Fprintf(&b, " = %q", e.Value)
		}
	case KindCheck:
		fmt.Fprintf(&b, " %v", e.Checked)
	case KindPress:
		b.WriteString(" " + e.Key)
	case KindWait:
		switch {
		case e.Text != "":
			fmt.Fprintf(&b, " text %q", e.Text)
		case e.URL != "":
			fmt.Fprintf(&b, " url %q", e.URL)
		}
	case KindRead:
		b.WriteString(" " + e.Read)
		if e.As != "" {
			b.WriteString(" as " + e.As)
		}
	}
	if e.NavURL != "" {
		b.WriteString(" → " + e.NavURL)
	}
	return b.String()
}
