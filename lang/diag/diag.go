// Package diag holds the diagnostics of loading and checking flows: one
// Diagnostic type (hashicorp/hcl's hcl.Diagnostic shape), a list type that is
// an error, and the two renderers every caller uses: the compiler form with
// source line and caret (CLI) and the one-line form (logs, MCP).
package diag

import (
	"fmt"
	"sort"

	"github.com/rpa-dev/rpa/lang/ast"
)

// Severity of a diagnostic.
type Severity int

// Severities. Errors fail `rpa check`; warnings are printed only.
const (
	Error Severity = iota
	Warning
)

// String is "error" or "warning".
func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Diagnostic is one problem found in a flow.
type Diagnostic struct {
	Severity Severity
	// Summary is terse, lower-case, no trailing period: `unknown action "clik"`.
	Summary string
	// Detail is an optional longer hint: `did you mean "click"?`.
	Detail string
	// Subject is the exact culprit; the caret/underline goes under it.
	Subject ast.Range
	// Context, when set, is the enclosing construct the Subject sits in
	// (the step call or block statement around it; hcl.Diagnostic's
	// Context). It contains Subject. Format shows the context's first line
	// above the subject's line when they differ, so an error deep in a
	// block still names the block. Nil: no context.
	Context *ast.Range
}

// Diagnostics is an ordered list of diagnostics; it implements error.
type Diagnostics []*Diagnostic

// Error renders the first error in one-line form and counts the rest.
func (ds Diagnostics) Error() string {
	if len(ds) == 0 {
		return "no diagnostics"
	}
	first := ds[0]
	for _, d := range ds {
		if d.Severity == Error {
			first = d
			break
		}
	}
	s := first.OneLine()
	if len(ds) > 1 {
		s += fmt.Sprintf(" (and %d more)", len(ds)-1)
	}
	return s
}

// HasErrors reports whether any diagnostic is an Error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Errorf appends an error at r.
func (ds *Diagnostics) Errorf(r ast.Range, format string, args ...any) *Diagnostic {
	d := &Diagnostic{Severity: Error, Summary: fmt.Sprintf(format, args...), Subject: r}
	*ds = append(*ds, d)
	return d
}

// Warnf appends a warning at r.
func (ds *Diagnostics) Warnf(r ast.Range, format string, args ...any) *Diagnostic {
	d := &Diagnostic{Severity: Warning, Summary: fmt.Sprintf(format, args...), Subject: r}
	*ds = append(*ds, d)
	return d
}

// Sort puts errors first, then warnings, each in source order (file, offset),
// stable for equal positions. This is the order every renderer prints.
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.Severity != b.Severity {
			return a.Severity < b.Severity
		}
		if a.Subject.File != b.Subject.File {
			return a.Subject.File < b.Subject.File
		}
		return a.Subject.Start.Offset < b.Subject.Start.Offset
	})
}

// OneLine renders `file:line:col: error: summary` (plus `; detail` when
// set) for logs and MCP.
func (d *Diagnostic) OneLine() string {
	s := fmt.Sprintf("%s: %s: %s", d.Subject.String(), d.Severity, d.Summary)
	if d.Detail != "" {
		s += "; " + d.Detail
	}
	return s
}

// Item is a Diagnostic as JSON (`rpa check --json`): the file, the start
// of the culprit (1-based line and column in runes), the severity
// ("error" or "warning"), the summary and the detail.
type Item struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail,omitempty"`
}

// Items is ds as JSON items, in ds's order (never nil).
func (ds Diagnostics) Items() []Item {
	out := make([]Item, 0, len(ds))
	for _, d := range ds {
		out = append(out, Item{File: d.Subject.File, Line: d.Subject.Start.Line, Col: d.Subject.Start.Col,
			Severity: d.Severity.String(), Summary: d.Summary, Detail: d.Detail})
	}
	return out
}
