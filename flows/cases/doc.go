// Package cases holds flows for the hard pages of real bug reports against
// browser-automation tools (nested late iframes, late and disabled
// buttons, random ids, covering overlays, contenteditable editors, hidden
// file inputs, popups, JS dialog chains, hover menus, infinite scroll,
// framework-controlled inputs, non-ASCII text, a srcdoc frame rendered
// twice, a GBK legacy form), one flow per case,
// written from the case's plain-words description as a user would.
//
// Every flow takes a base_url param: the address where the case pages are
// served, each under NN-name/page.html. testdata/ holds the pages (see its
// README for the reports they come from), and the package test serves them
// and checks each flow's outputs against the case's expected end state in
// headless Chromium:
//
//	go test ./flows/cases/
//
// By hand: serve testdata (python3 -m http.server 8000 --bind 127.0.0.1
// --directory flows/cases/testdata) and
//
//	rpa run flows/cases/case11_js_dialogs.flow --arg base_url=http://127.0.0.1:8000
package cases

import "embed"

// FS holds the case flows (*.flow) at its root.
//
//go:embed *.flow
var FS embed.FS
