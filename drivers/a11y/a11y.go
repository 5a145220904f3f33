// Package a11y holds the in-page computation of whether an element is
// visible, of its accessible role and name (implicit ARIA roles by tag,
// aria-labelledby, aria-label, a control's labels, alt, title, placeholder,
// name from content: the parts of WAI-ARIA's accessible name computation
// that `role=` and `name=` selectors rely on, LANGUAGE.md "Selectors") and
// of whether it is enabled (native disabled state, inert, aria-disabled on
// it or an ancestor). It is one JS source spliced into drivers/rod's
// engine, which matches selectors, and into selectorgen's generator, which
// proposes them, so the two cannot drift apart.
package a11y

import (
	_ "embed"
	"strings"
)

// Source defines, inside a script's scope, visible(el) (the visibility
// rule of LANGUAGE.md's checks, one for the engine and the generator),
// role(el), accName(el), textOf(el), contentName(el), labelText(label,
// control) and disabledBy(el) (the enabled rule of LANGUAGE.md,
// "Enabled"). It expects that scope to define collapseKeepNbsp(s) and
// shadowOf(el).
//
//go:embed a11y.js
var Source string

// Marker is the comment a script holds where Source goes.
const Marker = "/*rpa:a11y*/"

// Splice returns script with its Marker replaced by Source. A script
// without exactly one Marker is a build mistake: Splice panics (at package
// initialisation, so every test of the package catches it).
func Splice(script string) string {
	if strings.Count(script, Marker) != 1 {
		panic("a11y: the script must hold " + Marker + " exactly once")
	}
	return strings.Replace(script, Marker, Source, 1)
}
