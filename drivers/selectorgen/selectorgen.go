// Package selectorgen computes, for one element of a page, the fallback
// list of selectors a flow replays it with (LANGUAGE.md, "Selectors"):
// best first, each checked to match exactly that element of its document
// at the moment it is computed. `rpa record` (package recorder) and the
// authoring tools of the MCP server (package authoring) both use it, so a
// recorded flow and an agent-written one name elements the same way.
//
// The generator is JavaScript run in the page (Script): it defines
// globalThis.__rpaSelGen in a document. The candidates, in order:
//
//   - a stable id: `#id` (ids that look generated, such as `react-123`,
//     `:r1:` or long hex, are skipped);
//   - a test id: `[data-testid="..."]` (or data-test, data-qa, data-cy);
//   - a form control's name: `input[name="q"]` (radios and checkboxes
//     add their value when the name is shared);
//   - the accessible role and name: `aria/Name[role="button"]` (Chrome
//     Recorder's aria/ form, with the role as rpa's engine matches it);
//   - the exact rendered text of a button, link, tab, menu item or option:
//     `text="Query"`;
//   - a short CSS path, anchored at the nearest stable id;
//   - an XPath: `xpath=//*[@id='main']/div[2]/button`, or from /html.
//
// Elements inside open shadow roots get `pierce/` CSS candidates only
// (aria/, text= and XPath do not cross shadow roots in rpa's engine).
// Role, accessible name and rendered text are computed as drivers/rod's
// engine does, so a candidate that was unique in the page is found by
// replay; the package tests check every candidate against the engine on
// the project's hard pages.
package selectorgen

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/a11y"
)

// Script returns the generator (made at its first call, then kept: a
// process that records or drives no browser does not hold it; issue 24).
// Evaluating it in a document defines
// globalThis.__rpaSelGen (once; evaluating it again changes nothing), an
// object with:
//
//	selectors(el, max) → []string   // the fallback list, best first (max ≤ 0: all)
//	framePath(el, max) → [][]string // selector lists of the iframes around el's document, outermost first; null across origins
//	describe(el) → string           // `role "name"` for people
//	target(el, max) → Target        // all of the above as one object (see Target)
//
// The role and name computation is drivers/rod's engine's own
// (drivers/a11y), spliced in.
var Script = sync.OnceValue(func() string { return a11y.Splice(script) })

//go:embed selectorgen.js
var script string

// DefaultMax is how many selectors callers keep by default (the recorder
// and authoring): enough for a fallback list, short enough to read.
const DefaultMax = 5

// Target is what the generator reports about one element (its JSON form
// is target()'s result).
type Target struct {
	// Selectors is the fallback list, best first; each matched exactly
	// this element when computed.
	Selectors []string `json:"selectors"`
	// Frames lists the selector lists of the iframes around the element's
	// document, outermost first (empty in the top document). Nil when an
	// ancestor document is of another origin: the caller must resolve the
	// frames itself (the recorder asks each parent document).
	Frames [][]string `json:"frames"`
	// Desc names the element for people: `button "Query"`.
	Desc string `json:"desc"`
	// Role and Name are the accessible role and name as rpa's engine
	// computes them.
	Role string `json:"role"`
	Name string `json:"name"`
	// Tag is the element's local name; Type an input's type ("" for other
	// elements).
	Tag  string `json:"tag"`
	Type string `json:"type"`
	// ID and FieldName are its id and name attributes.
	ID        string `json:"id"`
	FieldName string `json:"fieldName"`
	// Table is the target of the table or grid around the element (the
	// nearest <table>, or element of role grid, treegrid or table, in the
	// element's document): what a `table` read of a picked cell reads. Set
	// by At and Inspect only; nil when the element is in none (or is one).
	Table *Target `json:"table,omitempty"`
	// Rel is a Table's border box relative to the picked element's
	// (x and y from the element's top left corner; CSS pixels of their
	// document): the picker adds it to the element's box in the viewport
	// to outline the table. Set on Table only.
	Rel *drivers.Box `json:"rel,omitempty"`
	// Apart says the element is an iframe whose document the picker could
	// not look into (drivers.Picked.Apart). Set by At and Inspect only.
	Apart bool `json:"apart,omitempty"`
}

// Func returns the source of a JS function for drivers.Frame.Eval that
// installs the generator and returns target(el, max) for the element the
// JS expression find yields (nil when it yields none). find sees the
// Eval arguments as the array a: `document.querySelector(a[0])`.
func Func(find string, max int) string {
	return fmt.Sprintf("(...a) => {\n%s\nconst el = (%s);\nif (!el || el.nodeType !== 1) return null;\nreturn globalThis.__rpaSelGen.target(el, %d);\n}", Script(), find, max)
}

// notInstalled is what the short call answers in a document without the
// generator.
const notInstalled = "__rpa_selgen_missing__"

// Of returns target(el, max) for the element find yields in f (see Func),
// installing the generator in that document on first use. It returns
// (nil, nil) when find yields no element.
func Of(ctx context.Context, f drivers.Frame, find string, max int, args ...any) (*Target, error) {
	// the generator is sent once per document; later calls send only the call
	v, err := f.Eval(ctx, fmt.Sprintf("(...a) => {\nif (!globalThis.__rpaSelGen) return %q;\nconst el = (%s);\nif (!el || el.nodeType !== 1) return null;\nreturn globalThis.__rpaSelGen.target(el, %d);\n}", notInstalled, find, max), args...)
	if err == nil && v == notInstalled {
		v, err = f.Eval(ctx, Func(find, max), args...)
	}
	if err != nil {
		return nil, err
	}
	return decode(v)
}

// decode reads target()'s JSON-decoded result (nil: no element).
func decode(v any) (*Target, error) {
	if v == nil {
		return nil, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var t Target
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("selectorgen: bad result: %w", err)
	}
	return &t, nil
}

// onElement is the generator as a function run on an element (this),
// for drivers.ElementPicker: its target, with the target of the table
// around it (Target.Table).
func onElement(max int) string {
	return fmt.Sprintf(`function () {
%s
const g = globalThis.__rpaSelGen, t = g.target(this, %[2]d);
const tb = this.parentElement && this.parentElement.closest('table, [role=grid], [role=treegrid], [role=table]');
if (tb) {
  t.table = g.target(tb, %[2]d);
  const r = this.getBoundingClientRect(), tr = tb.getBoundingClientRect();
  t.table.rel = {x: tr.left - r.left, y: tr.top - r.top, w: tr.width, h: tr.height};
}
return t;
}`, Script(), max)
}

// At returns target(el, max) for the element at (x, y) of p's viewport,
// in CSS pixels (drivers.ElementPicker.EvalAt: the element painted on top
// there), with its border box in the viewport. Its Frames are the
// selector lists of the iframes around it, outermost first, also across
// origins (each computed in its iframe's parent document). It returns a
// nil Target when no element is there. The console's element picker
// calls it with the point a person clicked on the page's picture.
func At(ctx context.Context, p drivers.ElementPicker, x, y float64, max int) (*Target, drivers.Box, error) {
	pk, err := p.EvalAt(ctx, x, y, onElement(max))
	if err != nil || !pk.Found {
		return nil, pk.Box, err
	}
	t, err := picked(pk)
	return t, pk.Box, err
}

// Inspect waits for the person to click an element in p's visible window
// (drivers.ElementPicker.Inspect: the browser highlights the element under
// the pointer) and returns its target(el, max) (Frames as At has them)
// and border box.
func Inspect(ctx context.Context, p drivers.ElementPicker, max int) (*Target, drivers.Box, error) {
	pk, err := p.Inspect(ctx, onElement(max))
	if err != nil {
		return nil, pk.Box, err
	}
	t, err := picked(pk)
	if err == nil && t == nil {
		err = fmt.Errorf("selectorgen: the element clicked has no selectors")
	}
	return t, pk.Box, err
}

// picked is the Target of what an ElementPicker found with onElement:
// its frames' selectors from the frame elements' targets.
func picked(pk drivers.Picked) (*Target, error) {
	t, err := decode(pk.V)
	if err != nil || t == nil {
		return t, err
	}
	t.Apart = pk.Apart
	t.Frames = [][]string{}
	for _, fv := range pk.Frames {
		ft, err := decode(fv)
		if err != nil {
			return nil, err
		}
		if ft == nil || len(ft.Selectors) == 0 {
			return nil, fmt.Errorf("selectorgen: an iframe around the element has no selectors")
		}
		t.Frames = append(t.Frames, ft.Selectors)
	}
	return t, nil
}

// Positional reports whether sel names its element by where it stands
// rather than by what it is: an XPath from the root or with a position
// (`xpath=/html/body/div[1]/button`, `//form/input[2]`), or CSS that
// counts siblings (`:nth-of-type(2)`, `:nth-child(3)`). The generator puts
// such selectors last; a page that adds one wrapper breaks them, so a
// flow should not lean on them first (package heal keeps them last too).
func Positional(sel string) bool {
	s := strings.TrimSpace(sel)
	if x, ok := strings.CutPrefix(s, "xpath="); ok || strings.HasPrefix(s, "//") {
		if !ok {
			x = s
		}
		return strings.HasPrefix(x, "/html") || xpathIndex.MatchString(x)
	}
	s = strings.TrimPrefix(s, "pierce/")
	return strings.Contains(s, ":nth-of-type(") || strings.Contains(s, ":nth-child(") || strings.Contains(s, ":nth-last-")
}

// xpathIndex is a step with a numeric position: `div[2]`.
var xpathIndex = regexp.MustCompile(`\[\s*\d+\s*\]`)
