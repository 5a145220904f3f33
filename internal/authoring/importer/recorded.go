package importer

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/diag"
)

// Field describes the form field a recorded step acts on (for naming
// params).
type Field struct {
	Type  string // the input's type ("password", "text", "file" ...), or the tag (select, textarea)
	Name  string // name attribute
	ID    string // id attribute
	Label string // accessible label
}

// key is what names the field: its name, else its id, else its label.
func (f Field) key() string { return firstNonEmpty(f.Name, f.ID, f.Label) }

// RecordedStep is one thing `rpa record` saw a person do.
type RecordedStep struct {
	// Kind is one of: nav (a top-level navigation the person asked for:
	// address bar, start URL), pagenav (one the page asked for: a link, a
	// form, a script), click, dblclick, fill, select, check, uncheck,
	// press, upload, close (a tab closed), newtab (a tab the person opened,
	// not the page).
	Kind string
	// Time orders steps across tabs (ms since the epoch).
	Time int64
	// Target names the tab: "" or the first tab's id is the first tab;
	// any other value is another tab (a popup).
	Target string
	// URL is the document's URL when the step happened (nav: the new URL).
	URL string
	// Selectors is the element's fallback list, best first.
	Selectors []string
	// Frames are the selector lists of the iframes the element is in,
	// outermost first (nil: the top document).
	Frames [][]string
	// Value is the field's final value (fill), the option's value
	// (select), file names (upload, joined by "\n"); never a password's.
	Value string
	// Key is the key pressed (press).
	Key string
	// Secret marks a password field: Value is empty and the flow takes a
	// secret param named after Field.
	Secret bool
	// Param, when set, makes the value the param of that name (--param).
	Param string
	Field Field
	// Desc says what the element is, for the comment above the step
	// (`button "Sign in"`).
	Desc string
}

// Recording is a whole session of `rpa record`.
type Recording struct {
	Name      string // flow NAME
	StartURL  string
	MainTab   string // the first tab's id
	Steps     []RecordedStep
	Generated string // "Recorded from URL" description; "" → from StartURL
}

// FromRecording turns a recording into a flow: the start URL's origin
// becomes the base_url param, password fields become required secret
// params (named as secretName says), --param fields become string params
// defaulting to the recorded value, other tabs are reached with `tab
// "last"` and the first tab again by its URL, frames become `frame`
// blocks, a navigation the page asked for becomes `wait url:` (one the
// person asked for, `open`), and each step gets a comment saying what was
// done.
func FromRecording(r *Recording) (*ast.File, diag.Diagnostics) {
	var ds diag.Diagnostics
	b := newBuilder(newSource(r.Name+".flow", nil), &ds, false)
	steps := append([]RecordedStep(nil), r.Steps...)
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].Time < steps[j].Time })
	rb := &recBuilder{builder: b, rec: r, seen: map[string]bool{"": true}, firstNav: map[string]bool{}, alias: map[string]string{}, opener: map[string]string{}, tabURL: map[string]string{}}
	if u, err := url.Parse(r.StartURL); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		rb.origin = u.Scheme + "://" + u.Host
		b.param("base_url", "string", lit(rb.origin), "Address of the site (origin of the recorded pages)")
	}
	steps = mergeDoubleClicks(steps)
	for i := range steps {
		rb.step(&steps[i])
	}
	rb.closeFrames()
	desc := r.Generated
	if desc == "" {
		desc = "Recorded from " + r.StartURL
	}
	return b.finish(r.Name, desc), ds
}

// mergeDoubleClicks folds click, click, dblclick on one element into one
// dblclick.
func mergeDoubleClicks(in []RecordedStep) []RecordedStep {
	var out []RecordedStep
	for _, s := range in {
		if s.Kind == "dblclick" {
			n := 0
			for k := len(out) - 1; k >= 0 && n < 2; k-- {
				if out[k].Kind == "click" && strings.Join(out[k].Selectors, "\x00") == strings.Join(s.Selectors, "\x00") && s.Time-out[k].Time < 1000 {
					out = append(out[:k], out[k+1:]...)
					n++
					continue
				}
				break
			}
		}
		out = append(out, s)
	}
	return out
}

type recBuilder struct {
	*builder
	rec     *Recording
	origin  string
	target  string
	seen    map[string]bool
	mainVar string
	frames  [][]string // selectors of the open frame blocks
	// firstNav marks tabs whose first navigation was seen
	firstNav map[string]bool
	// alias maps a tab the person opened (not the page) to the tab the
	// flow stays in
	alias map[string]string
	// opener is the tab that was current when a tab was first switched to
	opener map[string]string
	// tabURL is each tab's last known URL (to find it again)
	tabURL map[string]string
}

func (rb *recBuilder) tabOf(s *RecordedStep) string {
	t := s.Target
	if a, ok := rb.alias[t]; ok {
		t = a
	}
	if t == rb.rec.MainTab {
		return ""
	}
	return t
}

func (rb *recBuilder) closeFrames() {
	for range rb.frames {
		rb.pop()
	}
	rb.frames = nil
}

// switchTo moves to the step's tab and frames.
func (rb *recBuilder) switchTo(s *RecordedStep) {
	tab := rb.tabOf(s)
	if tab != rb.target {
		rb.closeFrames()
		if rb.target == "" {
			if rb.mainVar == "" {
				rb.mainVar = rb.uniq("main_tab")
			}
			rb.bind(rb.mainVar)
			a := act("url")
			a.Target = rb.mainVar
			rb.emit(a)
		}
		switch {
		case tab == "":
			rb.comment("back to the first tab")
			rb.emit(act("tab", src(rb.mainVar)))
		case !rb.seen[tab]:
			rb.comment("the tab the previous step opened")
			rb.emit(act("tab", lit("last")))
			rb.opener[tab] = rb.target
		default:
			u := rb.tabURL[tab]
			rb.comment("back to the tab at " + u)
			rb.emit(act("tab", urlExpr(rb.origin, u)))
		}
		rb.seen[tab] = true
		rb.target = tab
	}
	if s.Kind == "nav" || s.Kind == "pagenav" || s.Kind == "close" {
		return
	}
	common := 0
	for common < len(s.Frames) && common < len(rb.frames) && strings.Join(s.Frames[common], "\x00") == strings.Join(rb.frames[common], "\x00") {
		common++
	}
	for len(rb.frames) > common {
		rb.pop()
		rb.frames = rb.frames[:len(rb.frames)-1]
	}
	for _, f := range s.Frames[common:] {
		fs := &ast.FrameStmt{Selector: selExpr(f)}
		rb.emit(fs)
		rb.push(&fs.Body)
		rb.frames = append(rb.frames, f)
	}
}

func (rb *recBuilder) valueOf(s *RecordedStep) ast.Expr {
	switch {
	case s.Secret:
		field := s.Field.key()
		if field == "" {
			field = "password"
		}
		name, ok := rb.secretFields[field]
		if !ok {
			name = rb.uniq(secretName(field))
			rb.secretFields[field] = name
			rb.param(name, "secret", nil, "Password for the "+field+" field")
		}
		return src(name)
	case s.Param != "":
		name := varName(s.Param)
		if rb.byParam[name] == nil {
			rb.param(name, "string", lit(s.Value), "Value of the "+firstNonEmpty(s.Field.key(), strings.Join(s.Selectors, " "))+" field")
		}
		return src(name)
	}
	return lit(s.Value)
}

func (rb *recBuilder) step(s *RecordedStep) {
	tab := rb.tabOf(s)
	if s.URL != "" && s.Kind != "newtab" && s.Kind != "close" {
		defer func() { rb.tabURL[tab] = s.URL }()
	}
	switch s.Kind {
	case "nav", "pagenav":
		if strings.HasPrefix(s.URL, "about:") || strings.HasPrefix(s.URL, "chrome") || strings.HasPrefix(s.URL, "devtools:") {
			return
		}
		first := !rb.firstNav[tab]
		rb.firstNav[tab] = true
		if tab != "" && first {
			return // a new tab's first page: the step before opened it
		}
		if s.Kind == "pagenav" {
			// the page navigated itself (a link, a form, a script): wait
			// for it where we are; elsewhere there is nothing to wait for
			if tab != rb.target {
				return
			}
			rb.closeFrames()
			// the path only: a query may carry what a form sent (a
			// password in a GET form) and changes from run to run
			u := s.URL
			if i := strings.IndexAny(u, "?#"); i >= 0 {
				u = u[:i]
			}
			rb.emit(opt(act("wait"), "url", urlExpr(rb.origin, u)))
			return
		}
		rb.switchTo(s)
		rb.closeFrames()
		rb.comment("go to " + s.URL)
		rb.emit(act("open", urlExpr(rb.origin, s.URL)))
		return
	case "newtab":
		// a tab the person opened (Ctrl+T): a flow cannot open a tab, so
		// what happens there happens in the current tab
		cur := rb.target
		if cur == "" {
			cur = rb.rec.MainTab
		}
		rb.alias[s.Target] = cur
		rb.diags.Warnf(ast.Range{File: rb.src.name}, "a tab opened by hand (at %s) has no equivalent; its steps run in the current tab", time.UnixMilli(s.Time).UTC().Format("15:04:05"))
		return
	case "close":
		if !rb.seen[tab] {
			return // a tab the flow never used
		}
		rb.switchTo(s)
		rb.closeFrames()
		rb.comment("close this tab")
		rb.emit(act("close"))
		rb.target = rb.opener[tab] // where the runtime goes after close
		return
	}
	rb.switchTo(s)
	sel := selExpr(s.Selectors)
	var a *ast.ActionStmt
	switch s.Kind {
	case "click":
		rb.comment("click " + s.Desc)
		a = act("click", sel)
	case "dblclick":
		rb.comment("double-click " + s.Desc)
		a = opt(act("click", sel), "count", num(2))
	case "fill":
		rb.comment("fill " + s.Desc)
		a = act("fill", sel, rb.valueOf(s))
	case "select":
		rb.comment("select in " + s.Desc)
		a = act("select", sel, rb.valueOf(s))
	case "check", "uncheck":
		rb.comment(s.Kind + " " + s.Desc)
		a = act(s.Kind, sel)
	case "press":
		rb.comment("press " + s.Key)
		a = act("press", lit(s.Key))
	case "upload":
		rb.comment("upload into " + s.Desc)
		files := strings.Split(s.Value, "\n")
		name := varName(firstNonEmpty(s.Field.key(), "file") + "_file")
		if rb.byParam[name] == nil {
			name = rb.uniq(name)
			rb.param(name, "string", lit(files[0]), "Path of the file to upload (recorded: "+strings.Join(files, ", ")+")")
		}
		a = act("upload", sel, src(name))
	default:
		rb.comment(fmt.Sprintf("not recorded: %s", s.Kind))
		return
	}
	rb.emit(a)
}
