// Package fake is an in-memory drivers.Browser for interpreter unit tests:
// pages hold elements keyed by selector, each with scripted state (when it
// appears, whether it is visible, enabled or covered, its text, value,
// table grid) and click side effects. Every call is recorded in the
// browser's Log, so tests can assert what ran in which order. It honours
// contexts like a real driver: waiting calls poll until their condition
// holds or ctx ends, then report what was last missing.
//
// It knows no CSS: a selector matches exactly the element registered under
// that string. Real selector semantics are tested against Chromium in
// drivers/rod and stdlib.
package fake

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// Poll is how often waiting calls look again.
const Poll = 2 * time.Millisecond

// Browser is a fake drivers.Browser.
type Browser struct {
	mu     sync.Mutex
	pages  []*Page
	log    []string
	closed bool
	// OnNewPage, when set, prepares every new page (add elements by URL).
	OnNewPage func(p *Page)
}

// New returns an empty browser.
func New() *Browser { return &Browser{} }

// Log returns the calls recorded so far ("click #a", "fill #u alice", ...).
func (b *Browser) Log() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.log...)
}

func (b *Browser) record(format string, args ...any) {
	b.mu.Lock()
	b.log = append(b.log, fmt.Sprintf(format, args...))
	b.mu.Unlock()
}

// NewPage opens a tab at url.
func (b *Browser) NewPage(ctx context.Context, url string) (drivers.Page, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := b.AddPage(url)
	b.record("newpage %s", url)
	return p, nil
}

// AddPage adds a tab at url without recording a call (test setup).
func (b *Browser) AddPage(url string) *Page {
	p := &Page{b: b, url: url, title: url}
	p.Doc = newFrame(p)
	b.mu.Lock()
	b.pages = append(b.pages, p)
	hook := b.OnNewPage
	b.mu.Unlock()
	if hook != nil {
		hook(p)
	}
	return p
}

// Pages lists the open tabs, oldest first.
func (b *Browser) Pages(ctx context.Context) ([]drivers.Page, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]drivers.Page, 0, len(b.pages))
	for _, p := range b.pages {
		out = append(out, p)
	}
	return out, nil
}

// Alive reports whether Close was not called.
func (b *Browser) Alive() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.closed
}

// Close marks the browser closed.
func (b *Browser) Close() error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	return nil
}

// Doc is a fake document: elements and child frames by selector.
type Doc struct {
	page    *Page
	mu      sync.Mutex
	els     map[string]*Element
	frames  map[string]*Doc
	locates atomic.Int64
	// Name is used in the log for actions inside this frame ("" = top).
	Name string
	// State, when set, is what the page has settled into (drivers/rod's
	// fail fast): a verdict ends a Locate that finds nothing at once
	// (final), a PageSettled one is in the chain of a Locate that runs out.
	State *drivers.PageState
}

// Locates is how many times Locate was called on this document (one per
// attempt of an action that waits for an element).
func (f *Doc) Locates() int { return int(f.locates.Load()) }

func newFrame(p *Page) *Doc {
	return &Doc{page: p, els: map[string]*Element{}, frames: map[string]*Doc{}}
}

// Add registers el under sel and returns it.
func (f *Doc) Add(sel string, el *Element) *Element {
	f.mu.Lock()
	defer f.mu.Unlock()
	el.frame = f
	if el.Name == "" {
		el.Name = sel
	}
	if el.since.IsZero() {
		el.since = time.Now()
	}
	f.els[sel] = el
	return el
}

// Remove unregisters sel.
func (f *Doc) Remove(sel string) {
	f.mu.Lock()
	delete(f.els, sel)
	f.mu.Unlock()
}

// AddFrame registers a child document under the iframe selector sel.
func (f *Doc) AddFrame(sel, name string) *Doc {
	c := newFrame(f.page)
	c.Name = name
	f.mu.Lock()
	f.frames[sel] = c
	f.mu.Unlock()
	return c
}

func (f *Doc) el(sel string) *Element {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.els[sel]
}

func (f *Doc) prefix() string {
	if f.Name == "" {
		return ""
	}
	return f.Name + ":"
}

// Element is a fake element with scripted state.
type Element struct {
	frame *Doc
	mu    sync.Mutex
	since time.Time

	Name string // Describe's answer; defaults to the selector
	// After delays the element: it is not attached until After has passed
	// since it was added.
	After time.Duration
	// Hidden, Disabled, ReadOnly make the matching checks fail;
	// CoveredBy names a cover that makes the Receives check fail.
	Hidden, Disabled, ReadOnly bool
	CoveredBy                  string
	// Until, when set, is asked on every look: a non-nil error means the
	// element is not ready (use core.Errorf with the driver kinds).
	Until func() error

	Txt       string // Text's answer
	Val       string // Value's answer
	Attrs     map[string]string
	IsChecked bool
	Password  bool
	Markup    string // HTML's answer
	Grid      *drivers.Grid
	Fields    map[string]any
	Files     []string
	// Options of a select: value → label.
	Options map[string]string
	// OnClick runs on every click (side effects: popups, navigation ...);
	// an error fails the click.
	OnClick func(p *Page) error
	// Clicks counts clicks.
	Clicks int
	// Toggle makes a click flip IsChecked (checkboxes).
	Toggle bool
	// Fails makes the next N actions on the element fail with a browser error.
	Fails int
}

// check returns nil when el passes want now.
func (el *Element) check(want drivers.Checks) error {
	el.mu.Lock()
	defer el.mu.Unlock()
	if time.Since(el.since) < el.After {
		return core.Errorf(core.KindNotFound, "no element matches %q", el.Name)
	}
	if el.Until != nil {
		if err := el.Until(); err != nil {
			return err
		}
	}
	if want&drivers.Visible != 0 && el.Hidden {
		return core.Errorf(core.KindNotVisible, "%s is not visible", el.Name)
	}
	if want&drivers.Enabled != 0 && el.Disabled {
		return core.Errorf(core.KindDisabled, "%s is disabled", el.Name)
	}
	if want&drivers.Editable != 0 && el.ReadOnly {
		return core.Errorf(core.KindDisabled, "%s is read-only", el.Name)
	}
	if want&drivers.Receives != 0 && el.CoveredBy != "" {
		return core.Errorf(core.KindCovered, "%s is covered by %s", el.Name, el.CoveredBy)
	}
	return nil
}

// Set changes the element under its lock (tests that mutate it while a run waits).
func (el *Element) Set(fn func(el *Element)) {
	el.mu.Lock()
	defer el.mu.Unlock()
	fn(el)
}

// Locate polls until one of sels passes want; earliest selector wins.
func (f *Doc) Locate(ctx context.Context, sels []string, want drivers.Checks) (drivers.Element, int, error) {
	f.locates.Add(1)
	var last error
	f.mu.Lock()
	st := f.State
	f.mu.Unlock()
	for {
		for i, s := range sels {
			el := f.el(s)
			if el == nil {
				if last == nil || core.KindOf(last) == core.KindNotFound {
					last = core.Errorf(core.KindNotFound, "no element matches %q", s)
				}
				continue
			}
			if err := el.check(want); err != nil {
				if last == nil || core.KindOf(err) != core.KindNotFound {
					last = err
				}
				continue
			}
			return el, i, nil
		}
		if st.Verdict() && core.KindOf(last) == core.KindNotFound {
			return nil, -1, &core.Error{Kind: core.KindNotFound, Msg: last.Error() + ": " + st.Text, Final: true, Err: st}
		}
		if err := sleep(ctx, Poll); err != nil {
			if last == nil {
				last = core.Errorf(core.KindNotFound, "no element matches %q", strings.Join(sels, ", "))
			}
			if st != nil && st.Kind == drivers.PageSettled && core.KindOf(last) == core.KindNotFound {
				return nil, -1, &core.Error{Kind: core.KindNotFound, Msg: last.Error() + "; " + st.Text, Err: &drivers.PageState{Kind: st.Kind, Text: st.Text, Err: err}}
			}
			return nil, -1, last
		}
		last = nil
	}
}

// LocateAll returns the element of sel (fake frames hold one per selector),
// after waiting for it.
func (f *Doc) LocateAll(ctx context.Context, sel string) ([]drivers.Element, error) {
	el, _, err := f.Locate(ctx, []string{sel}, drivers.Attached)
	if err != nil {
		return nil, err
	}
	out := []drivers.Element{el}
	for i := 2; ; i++ {
		more := f.el(fmt.Sprintf("%s#%d", sel, i))
		if more == nil {
			return out, nil
		}
		out = append(out, more)
	}
}

// Exists looks once.
func (f *Doc) Exists(ctx context.Context, sel string) (bool, error) {
	el := f.el(sel)
	return el != nil && el.check(drivers.Attached) == nil, nil
}

// Count looks once (0 or 1, plus "SEL#2"... siblings).
func (f *Doc) Count(ctx context.Context, sel string) (int, error) {
	if ok, _ := f.Exists(ctx, sel); !ok {
		return 0, nil
	}
	n := 1
	for f.el(fmt.Sprintf("%s#%d", sel, n+1)) != nil {
		n++
	}
	return n, nil
}

// WaitState waits for the first of sels to reach st.
func (f *Doc) WaitState(ctx context.Context, sels []string, st drivers.State) (int, error) {
	for {
		for i, s := range sels {
			el := f.el(s)
			var ok bool
			switch st {
			case drivers.StateVisible:
				ok = el != nil && el.check(drivers.Attached|drivers.Visible) == nil
			case drivers.StateAttached:
				ok = el != nil && el.check(drivers.Attached) == nil
			case drivers.StateHidden:
				ok = el == nil || el.check(drivers.Attached|drivers.Visible) != nil
			case drivers.StateDetached:
				ok = el == nil || el.check(drivers.Attached) != nil
			}
			if ok {
				return i, nil
			}
		}
		if err := sleep(ctx, Poll); err != nil {
			return -1, core.Errorf(core.KindTimeout, "%q did not become %s", sels, st)
		}
	}
}

// WaitText waits until some element's Text contains s.
func (f *Doc) WaitText(ctx context.Context, s string) error {
	for {
		t, _ := f.Text(ctx)
		if strings.Contains(t, s) {
			return nil
		}
		if err := sleep(ctx, Poll); err != nil {
			return core.Errorf(core.KindTimeout, "text %q did not appear", s)
		}
	}
}

// HTML joins the elements' HTML.
func (f *Doc) HTML(ctx context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b strings.Builder
	for _, el := range f.els {
		b.WriteString(el.Markup)
	}
	return "<html>" + b.String() + "</html>", nil
}

// Text joins the attached elements' texts (in no particular order).
func (f *Doc) Text(ctx context.Context) (string, error) {
	f.mu.Lock()
	els := make([]*Element, 0, len(f.els))
	for _, el := range f.els {
		els = append(els, el)
	}
	f.mu.Unlock()
	var parts []string
	for _, el := range els {
		if el.check(drivers.Attached) == nil {
			el.mu.Lock()
			parts = append(parts, el.Txt)
			el.mu.Unlock()
		}
	}
	return strings.Join(parts, "\n"), nil
}

// Form returns the Fields of every element merged.
func (f *Doc) Form(ctx context.Context) (map[string]any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]any{}
	for _, el := range f.els {
		for k, v := range el.Fields {
			out[k] = v
		}
	}
	return out, nil
}

// Frame waits for the child document registered under one of sels.
func (f *Doc) Frame(ctx context.Context, sels []string) (drivers.Frame, error) {
	for {
		f.mu.Lock()
		for _, s := range sels {
			if c := f.frames[s]; c != nil {
				f.mu.Unlock()
				return c, nil
			}
		}
		f.mu.Unlock()
		if err := sleep(ctx, Poll); err != nil {
			return nil, core.Errorf(core.KindNotFound, "no iframe matches %q", sels)
		}
	}
}

// Eval records the script; it returns nil.
func (f *Doc) Eval(ctx context.Context, js string, args ...any) (any, error) {
	f.page.b.record("%seval %s", f.prefix(), js)
	return nil, ctx.Err()
}

// Page is a fake tab.
type Page struct {
	*Doc
	b       *Browser
	mu      sync.Mutex
	url     string
	title   string
	history []string
	accept  bool
	prompt  string
	dialogs []drivers.Dialog
	popups  []*Page
	mark    int
	closed  bool
	// NextDownload is what Download returns after the click.
	NextDownload *drivers.Download
	// NavErr, when set, fails every Navigate with a navigation error.
	NavErr string
	// PNG is what Screenshot returns.
	PNG []byte
}

// Navigate sets the URL.
func (p *Page) Navigate(ctx context.Context, url string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p.b.record("open %s", url)
	if p.NavErr != "" {
		return core.Errorf(core.KindNavigation, "%s", p.NavErr)
	}
	p.mu.Lock()
	p.history = append(p.history, p.url)
	p.url, p.title = url, url
	p.mu.Unlock()
	return nil
}

// Back records the call and returns to the previous URL.
func (p *Page) Back(ctx context.Context) error {
	p.b.record("back")
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.history); n > 0 {
		p.url, p.history = p.history[n-1], p.history[:n-1]
	}
	return nil
}

// Forward records the call.
func (p *Page) Forward(ctx context.Context) error { p.b.record("forward"); return nil }

// Reload records the call.
func (p *Page) Reload(ctx context.Context) error { p.b.record("reload"); return nil }

// URL is the current URL.
func (p *Page) URL(ctx context.Context) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.url, nil
}

// SetURL changes the URL (a simulated navigation).
func (p *Page) SetURL(u string) {
	p.mu.Lock()
	p.url = u
	p.mu.Unlock()
}

// SetTitle changes the title.
func (p *Page) SetTitle(t string) {
	p.mu.Lock()
	p.title = t
	p.mu.Unlock()
}

// Title is the current title.
func (p *Page) Title(ctx context.Context) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.title, nil
}

// WaitURL polls the URL: substring, or regexp after "re:".
func (p *Page) WaitURL(ctx context.Context, pattern string) error {
	match := func(u string) bool { return strings.Contains(u, pattern) }
	if rest, ok := strings.CutPrefix(pattern, "re:"); ok {
		re, err := regexp.Compile(rest)
		if err != nil {
			return err
		}
		match = re.MatchString
	}
	for {
		u, _ := p.URL(ctx)
		if match(u) {
			return nil
		}
		if err := sleep(ctx, Poll); err != nil {
			return core.Errorf(core.KindTimeout, "URL %q does not match %q", u, pattern)
		}
	}
}

// WaitIdle returns at once.
func (p *Page) WaitIdle(ctx context.Context, quiet time.Duration) error {
	p.b.record("idle")
	return ctx.Err()
}

// Press records the key.
func (p *Page) Press(ctx context.Context, key string) error {
	p.b.record("press %s", key)
	return ctx.Err()
}

// Screenshot returns PNG (a 1-byte stand-in when unset).
func (p *Page) Screenshot(ctx context.Context, full bool) ([]byte, error) {
	p.b.record("screenshot full=%v", full)
	if p.PNG == nil {
		return []byte{0x89}, nil
	}
	return p.PNG, nil
}

// SetDialogPolicy records the policy.
func (p *Page) SetDialogPolicy(accept bool, text string) {
	p.mu.Lock()
	p.accept, p.prompt = accept, text
	p.mu.Unlock()
	p.b.record("dialog accept=%v", accept)
}

// Dialog simulates a JS dialog and returns whether it was accepted and the
// prompt answer, per the policy.
func (p *Page) Dialog(typ, msg string) (bool, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dialogs = append(p.dialogs, drivers.Dialog{Type: typ, Message: msg})
	return p.accept, p.prompt
}

// Dialogs lists the dialogs seen.
func (p *Page) Dialogs() []drivers.Dialog {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]drivers.Dialog(nil), p.dialogs...)
}

// OpenPopup simulates window.open from this page.
func (p *Page) OpenPopup(url string) *Page {
	np := p.b.AddPage(url)
	p.mu.Lock()
	p.popups = append(p.popups, np)
	p.mu.Unlock()
	return np
}

// WaitPopup waits for a popup opened since the last MarkPopups.
func (p *Page) WaitPopup(ctx context.Context) (drivers.Page, error) {
	for {
		p.mu.Lock()
		if len(p.popups) > p.mark {
			np := p.popups[len(p.popups)-1]
			p.mark = len(p.popups)
			p.mu.Unlock()
			return np, nil
		}
		p.mu.Unlock()
		if err := sleep(ctx, Poll); err != nil {
			return nil, core.Errorf(core.KindTimeout, "no popup opened")
		}
	}
}

// MarkPopups forgets the popups seen so far.
func (p *Page) MarkPopups() {
	p.mu.Lock()
	p.mark = len(p.popups)
	p.mu.Unlock()
}

// Download runs click and returns NextDownload.
func (p *Page) Download(ctx context.Context, dir string, click func(context.Context) error) (*drivers.Download, error) {
	if err := click(ctx); err != nil {
		return nil, err
	}
	if p.NextDownload == nil {
		<-ctx.Done()
		return nil, core.Errorf(core.KindTimeout, "no download started")
	}
	d := *p.NextDownload
	d.Path = dir + "/" + d.Name
	return &d, nil
}

// Close closes the tab.
func (p *Page) Close() error {
	p.b.record("close %s", p.url)
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	for i, q := range p.b.pages {
		if q == p {
			p.b.pages = append(p.b.pages[:i], p.b.pages[i+1:]...)
			break
		}
	}
	p.closed = true
	return nil
}

func (el *Element) act(ctx context.Context, format string, args ...any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	el.frame.page.b.record(el.frame.prefix()+format, args...)
	el.mu.Lock()
	defer el.mu.Unlock()
	if el.Fails > 0 {
		el.Fails--
		return core.Errorf(core.KindBrowser, "%s: scripted failure", el.Name)
	}
	return nil
}

// Click records the click, flips Checked when Toggle, runs OnClick.
func (el *Element) Click(ctx context.Context, button string, count int) error {
	if err := el.act(ctx, "click %s %s %d", el.Name, button, count); err != nil {
		return err
	}
	el.mu.Lock()
	el.Clicks++
	if el.Toggle {
		el.IsChecked = !el.IsChecked
	}
	on := el.OnClick
	el.mu.Unlock()
	if on != nil {
		return on(el.frame.page)
	}
	return nil
}

// Hover records the call.
func (el *Element) Hover(ctx context.Context) error { return el.act(ctx, "hover %s", el.Name) }

// Fill sets Value.
func (el *Element) Fill(ctx context.Context, value string) error {
	if err := el.act(ctx, "fill %s %s", el.Name, value); err != nil {
		return err
	}
	el.Set(func(el *Element) { el.Val = value })
	return nil
}

// Type appends to Value.
func (el *Element) Type(ctx context.Context, value string, delay time.Duration) error {
	if err := el.act(ctx, "type %s %s %s", el.Name, value, delay); err != nil {
		return err
	}
	el.Set(func(el *Element) { el.Val += value })
	return nil
}

// Focus records the call.
func (el *Element) Focus(ctx context.Context) error { return el.act(ctx, "focus %s", el.Name) }

// Select picks an option by value, label or index (Options).
func (el *Element) Select(ctx context.Context, value, by string) error {
	if err := el.act(ctx, "select %s %s %s", el.Name, value, by); err != nil {
		return err
	}
	el.mu.Lock()
	defer el.mu.Unlock()
	if el.Options == nil {
		el.Val = value
		return nil
	}
	for v, label := range el.Options {
		if (by == "" || by == "value") && v == value || (by == "" || by == "label") && label == value {
			el.Val = v
			return nil
		}
	}
	return core.Errorf(core.KindNotFound, "%s has no option %q", el.Name, value)
}

// Checked returns Checked.
func (el *Element) Checked(ctx context.Context) (bool, error) {
	el.mu.Lock()
	defer el.mu.Unlock()
	return el.IsChecked, nil
}

// SetFiles sets Files.
func (el *Element) SetFiles(ctx context.Context, paths []string) error {
	if err := el.act(ctx, "upload %s %s", el.Name, strings.Join(paths, ",")); err != nil {
		return err
	}
	el.Set(func(el *Element) { el.Files = paths })
	return nil
}

// ScrollIntoView records the call.
func (el *Element) ScrollIntoView(ctx context.Context) error {
	return el.act(ctx, "scrollintoview %s", el.Name)
}

// ScrollContent records the call.
func (el *Element) ScrollContent(ctx context.Context, to string) error {
	return el.act(ctx, "scrollcontent %s %s", el.Name, to)
}

// Text returns Text.
func (el *Element) Text(ctx context.Context) (string, error) {
	el.mu.Lock()
	defer el.mu.Unlock()
	return el.Txt, ctx.Err()
}

// Attr returns Attrs[name].
func (el *Element) Attr(ctx context.Context, name string) (string, bool, error) {
	el.mu.Lock()
	defer el.mu.Unlock()
	v, ok := el.Attrs[name]
	return v, ok, nil
}

// Value returns Value.
func (el *Element) Value(ctx context.Context) (string, error) {
	el.mu.Lock()
	defer el.mu.Unlock()
	return el.Val, nil
}

// IsPassword returns Password.
func (el *Element) IsPassword(ctx context.Context) (bool, error) {
	el.mu.Lock()
	defer el.mu.Unlock()
	return el.Password, nil
}

// HTML returns HTML, with a password Value masked.
func (el *Element) HTML(ctx context.Context) (string, error) {
	el.mu.Lock()
	defer el.mu.Unlock()
	return el.Markup, nil
}

// Table returns Grid.
func (el *Element) Table(ctx context.Context) (*drivers.Grid, error) {
	el.mu.Lock()
	defer el.mu.Unlock()
	if el.Grid == nil {
		return nil, core.Errorf(core.KindBrowser, "%s is not a table", el.Name)
	}
	return el.Grid, nil
}

// Form returns Fields.
func (el *Element) Form(ctx context.Context) (map[string]any, error) {
	el.mu.Lock()
	defer el.mu.Unlock()
	out := map[string]any{}
	for k, v := range el.Fields {
		out[k] = v
	}
	return out, nil
}

// Screenshot returns one byte.
func (el *Element) Screenshot(ctx context.Context) ([]byte, error) { return []byte{0x89}, nil }

// Describe returns Name.
func (el *Element) Describe(ctx context.Context) string { return el.Name }

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

var (
	_ drivers.Browser = (*Browser)(nil)
	_ drivers.Page    = (*Page)(nil)
	_ drivers.Element = (*Element)(nil)
)
