// Package drivers is the one seam between rpa and a browser: small,
// error-returning interfaces for a browser, its tabs (Page), documents
// (Frame) and elements. interp and stdlib use only these; drivers/rod
// implements them with go-rod over the Chrome DevTools protocol, and
// interp's unit tests use a fake.
//
// Failures are *core.Error values whose Kind is one of core's kinds
// (KindTimeout, KindNotFound, KindNotVisible, KindCovered, KindDisabled,
// KindNavigation, KindBrowser); Msg is user-facing and names the culprit.
//
// Every method takes a context: cancellation and deadlines come only from it
// (a per-action timeout is a context deadline). Waiting methods wait until
// their condition holds or ctx ends; non-waiting ones (Exists, Count) look
// once.
//
// Selectors are passed verbatim as the flow wrote them (LANGUAGE.md,
// "Selectors"): CSS, `xpath=` or a leading `//`, `text=` / `text="..."`,
// `aria/Name[role="r"]`, `pierce/CSS`. Fallback lists are []string raced on
// each poll, earliest in the list winning.
package drivers

import (
	"context"
	"time"
)

// Checks is the set of conditions Locate waits for before returning an
// element (LANGUAGE.md, "Checks before acting").
type Checks uint16

// Individual checks.
const (
	Attached Checks = 1 << iota // in the document
	Visible                     // has a non-empty box, not visibility:hidden/display:none
	Stable                      // same box on two animation frames, or a size change around a fixed centre (LANGUAGE.md "Stable")
	Enabled                     // not disabled: LANGUAGE.md "Enabled" (fieldset, inert, aria-disabled on it or an ancestor)
	Editable                    // not readonly; input, textarea, select or contenteditable
	Receives                    // the element or a descendant receives the hit at its centre
	// Aim and PrepFill are hints, not checks: the Element.Click of a
	// single left click (Aim) or the Element.Fill (PrepFill) follows this
	// Locate and nothing else does, so the driver may prepare that action
	// in the same look (drivers/rod, in the locate's evaluation: the
	// click's aim, scroll, hit test and interception, once the page's due
	// tasks ran and the element still stands where it was found stable;
	// the fill's focus and selection). They never weaken a check: the
	// click is still verified to have reached the element.
	Aim
	PrepFill
	// TakeFingerprint is a hint too: the caller will ask Healer.Fingerprint
	// of the element found (a healing hook), so the driver may take the
	// fingerprint in the same look and keep it with the element, before
	// a fill's preparation; Fingerprint then answers without asking the
	// page again.
	TakeFingerprint
	// ReadTable is a hint too: the element's Element.Table follows this
	// Locate and nothing else does, so the driver may read the table in
	// the same look (drivers/rod: once the page's due tasks ran, as a
	// separate call a round trip later would see it); Table then answers
	// with that reading.
	ReadTable
)

// Hints are the Checks that are no checks but say what the caller does
// next (Aim, PrepFill, TakeFingerprint, ReadTable).
const Hints = Aim | PrepFill | TakeFingerprint | ReadTable

// Preset check sets per action family.
const (
	ForPointer = Attached | Visible | Stable | Enabled | Receives // click, hover, check, uncheck
	ForInput   = Attached | Visible | Enabled | Editable          // fill, type, select
	ForRead    = Attached                                         // text, attr, ..., upload, frame
)

// State is an element state for Frame.WaitState.
type State string

// States of `wait SEL state:`.
const (
	StateVisible  State = "visible"
	StateHidden   State = "hidden"
	StateAttached State = "attached"
	StateDetached State = "detached"
)

// LaunchOptions configures a browser (PROTOCOL.md, "Browser profiles and
// silent mode").
type LaunchOptions struct {
	// Bin is the Chromium binary; "" finds ROD_BROWSER, then /usr/bin/chromium
	// and friends on PATH. Never downloaded: a missing binary is an error
	// that says `apt-get install -y chromium`.
	Bin string
	// UserDataDir is the profile folder; required when launching.
	UserDataDir string
	// Show opens a visible window instead of headless.
	Show bool
	// Remote, when set (ws://HOST:PORT/...), attaches to a running DevTools
	// endpoint instead of launching.
	Remote string
	// Flags are extra command-line flags (name → value, "" for bare).
	Flags map[string]string
	// OnExit, when set, is called once when the launched browser process
	// has exited (its helpers ended with it), or before Launch returns an
	// error when no process was started; never for Remote. A caller that
	// holds the profile folder while its browser runs
	// (internal/host/profiles.Claim) releases it here.
	OnExit func()
}

// Driver starts browsers.
type Driver interface {
	Launch(ctx context.Context, opts LaunchOptions) (Browser, error)
}

// Browser is one running browser (one profile).
type Browser interface {
	// NewPage opens a tab (viewport 1280x720) at url ("" = about:blank),
	// waiting for DOMContentLoaded.
	NewPage(ctx context.Context, url string) (Page, error)
	// Pages lists the open tabs, oldest first.
	Pages(ctx context.Context) ([]Page, error)
	// Alive reports whether the browser process/connection is still usable.
	Alive() bool
	// Close ends the browser (or detaches from a remote one).
	Close() error
}

// Frame is one document: the top document of a tab, or an iframe's.
type Frame interface {
	// Locate waits until one of sels matches an element that passes want,
	// and returns it with the index of the selector that matched. When ctx
	// ends first it returns a *core.Error whose Kind says what was last missing
	// (not_found, not_visible, covered with the cover named, disabled).
	Locate(ctx context.Context, sels []string, want Checks) (Element, int, error)
	// LocateAll returns every element matching sel now (may be empty),
	// after waiting for at least one to be attached.
	LocateAll(ctx context.Context, sel string) ([]Element, error)
	// Exists and Count look once, without waiting (page.exists/page.count).
	Exists(ctx context.Context, sel string) (bool, error)
	Count(ctx context.Context, sel string) (int, error)
	// WaitState waits for the first match of sels to reach st; when ctx
	// ends first, the error's chain holds a SeenError saying what the
	// matches showed.
	WaitState(ctx context.Context, sels []string, st State) (int, error)
	// WaitText waits until the document's rendered text contains s.
	WaitText(ctx context.Context, s string) error
	// HTML is the document's outer HTML (password values masked as ***).
	HTML(ctx context.Context) (string, error)
	// Text is the document body's rendered text.
	Text(ctx context.Context) (string, error)
	// Form reads the fields of the whole document (see Element.Form).
	Form(ctx context.Context) (map[string]any, error)
	// Frame waits for the iframe matching sels and its document, and returns
	// that document.
	Frame(ctx context.Context, sels []string) (Frame, error)
	// Eval evaluates the JS function source js (`(a, b) => ...`) in the
	// document with args and returns its JSON-decoded result (for
	// page.* helpers, diagnostics and tests).
	Eval(ctx context.Context, js string, args ...any) (any, error)
}

// Dialog is one JS dialog seen by a page (`dialogs()`).
type Dialog struct {
	Type    string `json:"type"` // alert, confirm, prompt, beforeunload
	Message string `json:"message"`
}

// Download is a finished download.
type Download struct {
	Path   string `json:"path"`
	Name   string `json:"name"` // the suggested file name, kept
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	MIME   string `json:"mime"`
}

// Page is one tab; its embedded Frame is the top document.
type Page interface {
	Frame
	// Navigate opens url and waits for the new document's DOMContentLoaded.
	Navigate(ctx context.Context, url string) error
	Back(ctx context.Context) error
	Forward(ctx context.Context) error
	Reload(ctx context.Context) error
	URL(ctx context.Context) (string, error)
	Title(ctx context.Context) (string, error)
	// WaitURL waits until the URL matches (substring, or regexp after "re:")
	// and that document reached DOMContentLoaded.
	WaitURL(ctx context.Context, pattern string) error
	// WaitIdle waits until no request has been in flight for quiet.
	WaitIdle(ctx context.Context, quiet time.Duration) error
	// Press sends a key or chord ("Enter", "Control+A") to the focused element.
	Press(ctx context.Context, key string) error
	// Screenshot returns a PNG of the viewport, or the full page.
	Screenshot(ctx context.Context, full bool) ([]byte, error)
	// SetDialogPolicy sets how the next JS dialogs are answered; text answers
	// prompts. The default policy is dismiss. Every dialog is recorded.
	SetDialogPolicy(accept bool, text string)
	// Dialogs lists the dialogs seen on this page so far.
	Dialogs() []Dialog
	// WaitPopup waits for a tab opened by this page since the last call to
	// MarkPopups (or since the page was created) and returns it.
	WaitPopup(ctx context.Context) (Page, error)
	// MarkPopups forgets popups seen so far, so WaitPopup waits for a new one.
	MarkPopups()
	// Download runs click (which should start a download), waits for the
	// file, moves it into dir under its suggested name and describes it.
	// data: and blob: downloads are included.
	Download(ctx context.Context, dir string, click func(context.Context) error) (*Download, error)
	// Close closes the tab.
	Close() error
}

// Cell is one cell of an extracted table grid.
type Cell struct {
	Text    string `json:"text"`
	Header  bool   `json:"header"`            // a th
	Spanned bool   `json:"spanned,omitempty"` // a copy made by colspan/rowspan
}

// Grid is a table with colspan/rowspan expanded (a spanned cell's text
// repeats). Head are the header rows (thead's, or leading all-th rows), Body
// the tbody rows (and bare tr rows), Foot the tfoot rows; the caption and
// nested tables' structure are left out (a nested table's text stays in
// its cell).
type Grid struct {
	Head [][]Cell `json:"head"`
	Body [][]Cell `json:"body"`
	Foot [][]Cell `json:"foot"`
}

// Element is one element handle, valid while its document lives.
type Element interface {
	// Click presses and releases button ("left", "right", "middle") count
	// times at the centre of the visible box, scrolling it into view first.
	Click(ctx context.Context, button string, count int) error
	Hover(ctx context.Context) error
	// Fill replaces the whole value the way a person would: focus, select
	// all, insert text, with the input and change events of a real edit
	// (framework-controlled inputs end with exactly value). On
	// contenteditable it replaces the text. It returns nil only when the
	// element holds value afterwards and no text went to another element
	// (LANGUAGE.md, "The value lands where the flow says").
	Fill(ctx context.Context, value string) error
	// Type sends value key by key, delay apart, without clearing; no key
	// goes to an element the page moved the focus to from outside the
	// keys' own handling.
	Type(ctx context.Context, value string, delay time.Duration) error
	// Focus focuses through the DOM (no pointer, no hit test).
	Focus(ctx context.Context) error
	// Select picks the option matching value by "value", "label", "index"
	// or, for by == "", value then label; it fails when the page does not
	// keep the choice.
	Select(ctx context.Context, value string, by string) error
	// Checked reports a checkbox/radio state.
	Checked(ctx context.Context) (bool, error)
	// SetFiles sets a file input's files (works on hidden inputs).
	SetFiles(ctx context.Context, paths []string) error
	// ScrollIntoView scrolls the element into view; ScrollContent scrolls the
	// element's own content to "top" or "bottom".
	ScrollIntoView(ctx context.Context) error
	ScrollContent(ctx context.Context, to string) error
	// Text is the rendered text (innerText), whitespace collapsed, trimmed.
	Text(ctx context.Context) (string, error)
	// Attr returns an attribute; ok is false when absent.
	Attr(ctx context.Context, name string) (value string, ok bool, err error)
	// Value is the current value of a form control (contenteditable: text).
	Value(ctx context.Context) (string, error)
	// IsPassword reports whether the element is a password input.
	IsPassword(ctx context.Context) (bool, error)
	// HTML is the outer HTML, password values masked as ***.
	HTML(ctx context.Context) (string, error)
	// Table extracts the grid of a <table>, or of a grid whose header,
	// body and fixed-column copies are separate tables inside this element
	// (LANGUAGE.md, "A grid"; see Grid).
	Table(ctx context.Context) (*Grid, error)
	// Form reads the named fields inside the element: name → value;
	// checkboxes bool (or list of checked values when several share a name),
	// radios the checked value, selects the selected value (list when
	// multiple), password fields "***".
	Form(ctx context.Context) (map[string]any, error)
	// Screenshot is a PNG of the element's box.
	Screenshot(ctx context.Context) ([]byte, error)
	// Describe names the element for messages: tag#id.class.
	Describe(ctx context.Context) string
}
