// Package snapshot takes a compact accessibility snapshot of a page, in
// the text form agents know from Playwright MCP: one node per line, nested
// by two-space indentation, `- role "accessible name" [state] [ref=e12]:
// value`, for example
//
//   - textbox "Username" [ref=e3]
//   - combobox "Region 区域" [ref=e7]: 北京 Beijing (110000)
//   - option "北京 Beijing" (value "110000") [selected]
//   - button "Query 查询" [ref=e9]
//   - table (50 rows) [ref=e12]
//   - row (header): "Date | Region | kWh"
//   - row: "2024-01-01 | 110000 | 123.4"
//
// Roles, accessible names and visibility are computed as rpa's selector
// engine does (package selectorgen shares them). Every actionable node,
// table, heading and dialog has a ref; a ref stays with its element across
// snapshots of one document, so two snapshots diff line by line (Diff).
// Frames are entered (same-origin ones from the page, other-origin ones
// through the driver's Frame), open shadow roots too. Long tables and
// option lists are cut to a few rows with a line saying how many more
// there are; Render cuts the whole text to a token budget (characters /
// 4) and says what was left out and how to ask for it.
//
// Everything goes through drivers.Frame.Eval, so any driver can take a
// snapshot; it runs in the page and never changes the document (refs live
// in a Map and a WeakMap of the page's window).
package snapshot

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/selectorgen"
)

//go:embed snapshot.js
var snapshotJS string

// callJS runs the installed snapshot function (null when this document
// has none yet); installJS (made at first use) installs it (with the selector generator, whose
// role and name it uses) and runs it.
const callJS = `(o) => (typeof globalThis.__rpaSnapshot === 'function' ? globalThis.__rpaSnapshot(o) : null)`

var installJS = sync.OnceValue(func() string {
	return "(o) => {\n" + selectorgen.Script() + "\nglobalThis.__rpaSnapshot = (" + snapshotJS + ");\nreturn globalThis.__rpaSnapshot(o);\n}"
})

// DefaultMaxTokens is the default budget of a snapshot (characters / 4).
const DefaultMaxTokens = 2000

// Options configure Take.
type Options struct {
	// Scope limits the snapshot to one element's subtree: a ref of an
	// earlier snapshot ("e12") or a CSS selector. "" is the whole page.
	Scope string
	// Start is the next ref number to hand out (refs already given keep
	// theirs); 0 means 1. A session passes Snapshot.Next of its last
	// snapshot so refs never repeat across documents.
	Start int
	// MaxRows and MaxOptions cut tables and option lists (defaults 10
	// and 25).
	MaxRows, MaxOptions int
	// Around, when set (and Scope is ""), limits the snapshot to the
	// region of the first element matching one of these selectors (tried
	// in order, in the forms of LANGUAGE.md "Selectors", without waiting;
	// closed shadow roots are not searched): its nearest landmark, form,
	// fieldset, section or dialog ancestor, across open shadow roots. That
	// element's line is marked [target] and gets a ref (a bare container
	// shows as `- generic`). When nothing matches, or the element has no
	// such ancestor, the whole document is taken. The failure packet and
	// healing's prompt use it.
	Around []string
	// Frames, when set, numbers the frames of other origins for a series
	// of snapshots (a session), so a frame keeps its ref prefix ("f1e")
	// from one snapshot to the next. Nil numbers them per snapshot.
	Frames *FrameIDs
}

// FrameIDs numbers frames of other origins by their path (the selector
// lists of the iframes leading to them). Safe for concurrent use.
type FrameIDs struct {
	mu     sync.Mutex
	byPath map[string]string
	paths  map[string][][]string
}

// prefix returns the ref prefix of the frame at path, giving it the next
// number when it is new.
func (ids *FrameIDs) prefix(path [][]string) string {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	if ids.byPath == nil {
		ids.byPath, ids.paths = map[string]string{}, map[string][][]string{}
	}
	raw, _ := json.Marshal(path)
	if p, ok := ids.byPath[string(raw)]; ok {
		return p
	}
	p := fmt.Sprintf("f%de", len(ids.byPath)+1)
	ids.byPath[string(raw)] = p
	ids.paths[p] = path
	return p
}

// Path is the frame path of a ref prefix ("f1e"), nil when unknown.
func (ids *FrameIDs) Path(prefix string) [][]string {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	return ids.paths[prefix]
}

// Line is one node of a snapshot. Text is always one line: every text it
// quotes from the page is escaped (Take checks it once more).
type Line struct {
	Depth int    `json:"d"`
	Text  string `json:"t"`
	Ref   string `json:"r,omitempty"`
	// Name is the full accessible name of a line with a Ref: what the ref
	// was bound to when the snapshot saw it (Text may cut it short).
	Name string `json:"n,omitempty"`
}

// oneLine escapes what could break a line of the text form: line breaks
// and separators a page put into a text the script did not escape.
var oneLine = strings.NewReplacer("\n", `\n`, "\r", `\r`, "\u0085", `\u0085`, "\u2028", `\u2028`, "\u2029", `\u2029`, "\v", `\v`, "\f", `\f`)

// Snapshot is one page's tree.
type Snapshot struct {
	URL, Title string
	Lines      []Line
	// Next is the next free ref number.
	Next int
	// Frames maps the ref prefix of each other-origin frame ("f1e") to
	// the selector lists of the iframes leading to it from the top
	// document, outermost first. Refs of the top document (and of the
	// same-origin frames inside it) start with "e".
	Frames map[string][][]string
	// Target is the ref of the Around element ("" when none was shown).
	Target string
}

type jsResult struct {
	Lines  []Line `json:"lines"`
	Next   int    `json:"next"`
	Frames []struct {
		At   int        `json:"at"`
		D    int        `json:"d"`
		Path [][]string `json:"path"`
	} `json:"frames"`
	URL    string `json:"url"`
	Title  string `json:"title"`
	Target string `json:"target"`
	Error  string `json:"error"`
}

// ScopeError reports a Scope that matches nothing or is not a selector.
type ScopeError struct{ Msg string }

// Error says what the scope did not match.
func (e *ScopeError) Error() string { return "snapshot: " + e.Msg }

// frameWait bounds entering one other-origin frame.
const frameWait = 3 * time.Second

// Take snapshots the document of f (a page's top document, usually).
func Take(ctx context.Context, f drivers.Frame, opts Options) (*Snapshot, error) {
	if opts.Start <= 0 {
		opts.Start = 1
	}
	s := &Snapshot{Frames: map[string][][]string{}}
	r, err := take(ctx, f, opts, "e", nil, s, 0)
	if err != nil {
		return nil, err
	}
	s.URL, s.Title, s.Lines, s.Target = r.URL, r.Title, r.lines, r.target
	// as in Playwright's aria snapshots, a node with children ends in ':'
	for i := 0; i+1 < len(s.Lines); i++ {
		if s.Lines[i+1].Depth > s.Lines[i].Depth && !hasValue(s.Lines[i].Text) {
			s.Lines[i].Text += ":"
		}
	}
	return s, nil
}

type taken struct {
	URL, Title string
	lines      []Line
	target     string
}

func take(ctx context.Context, f drivers.Frame, opts Options, prefix string, path [][]string, s *Snapshot, depth int) (*taken, error) {
	arg := map[string]any{"start": opts.Start, "scope": opts.Scope, "maxRows": opts.MaxRows, "maxOptions": opts.MaxOptions, "refPrefix": prefix}
	if len(opts.Around) > 0 && opts.Scope == "" {
		arg["around"] = opts.Around
	}
	if s.Next > opts.Start {
		arg["start"] = s.Next
	}
	// the function is installed once per document; later snapshots send
	// only a call
	v, err := f.Eval(ctx, callJS, arg)
	if err == nil && v == nil {
		v, err = f.Eval(ctx, installJS(), arg)
	}
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var r jsResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("snapshot: bad result: %w", err)
	}
	if r.Error != "" {
		return nil, &ScopeError{r.Error}
	}
	s.Next = max(s.Next, r.Next)
	lines := r.Lines
	for i := range lines {
		lines[i].Text = oneLine.Replace(lines[i].Text)
	}
	// other-origin frames, last first so the indexes hold
	for i := len(r.Frames) - 1; i >= 0; i-- {
		fr := r.Frames[i]
		var inner []Line
		if depth < 4 {
			fctx, cancel := context.WithTimeout(ctx, frameWait)
			child, err := enter(fctx, f, fr.Path)
			cancel()
			if err == nil {
				cpath := append(append([][]string{}, path...), fr.Path...)
				ids := opts.Frames
				if ids == nil {
					ids = &FrameIDs{}
					opts.Frames = ids
				}
				p := ids.prefix(cpath)
				s.Frames[p] = cpath
				copts := opts
				copts.Scope, copts.Around = "", nil
				if t, err := take(ctx, child, copts, p, cpath, s, depth+1); err == nil {
					inner = t.lines
				}
			}
		}
		if inner == nil {
			inner = []Line{{Text: `- text: "(frame not reachable)"`}}
		}
		for j := range inner {
			inner[j].Depth += fr.D
		}
		at := min(max(fr.At, 0), len(lines))
		lines = append(lines[:at], append(inner, lines[at:]...)...)
	}
	return &taken{URL: r.URL, Title: r.Title, lines: lines, target: r.Target}, nil
}

// enter goes down a frame path from f.
func enter(ctx context.Context, f drivers.Frame, path [][]string) (drivers.Frame, error) {
	for _, sels := range path {
		child, err := f.Frame(ctx, sels)
		if err != nil {
			return nil, err
		}
		f = child
	}
	return f, nil
}

// Enter goes down a frame path (Snapshot.Frames) from a page's top
// document, waiting for each frame within ctx.
func Enter(ctx context.Context, pg drivers.Frame, path [][]string) (drivers.Frame, error) {
	return enter(ctx, pg, path)
}

// hasValue reports whether a line already ends in `: value`.
func hasValue(t string) bool {
	if i := strings.LastIndex(t, "]"); i >= 0 {
		t = t[i:]
	} else if strings.HasPrefix(t, "- text:") {
		return true
	}
	return strings.Contains(t, ": ") || strings.HasSuffix(t, ":")
}

// Tokens estimates the tokens of a text: characters / 4, rounded up.
func Tokens(s string) int { return (len([]rune(s)) + 3) / 4 }

// String is the line with its indentation (two spaces per level).
func (l Line) String() string { return strings.Repeat("  ", l.Depth) + l.Text }

// Render writes the snapshot within maxTokens (DefaultMaxTokens when ≤ 0).
// When lines are left out, the last line says how many, and names the
// refs of sections that were cut so the caller can ask for one of them
// (`selector`) or for a larger budget. The header line (page title and
// URL) counts against the budget.
func (s *Snapshot) Render(maxTokens int) string {
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	var b strings.Builder
	fmt.Fprintf(&b, "page: %q %s\n", s.Title, s.URL)
	budget := maxTokens*4 - 440 // room for the note
	if maxTokens < 200 {
		budget = maxTokens*4 - 100 // a short note
	}
	used := len([]rune(b.String()))
	n := 0
	for ; n < len(s.Lines); n++ {
		ln := s.Lines[n].String()
		c := len([]rune(ln)) + 1
		if used+c > budget && n > 0 {
			break
		}
		used += c
		b.WriteString(ln)
		b.WriteByte('\n')
	}
	if n == len(s.Lines) {
		return b.String()
	}
	// drop lines until the note fits (a short one when the budget is small)
	text := b.String()
	for {
		if maxTokens >= 200 {
			if out := text + cutNote(s.Lines[n:], maxTokens); Tokens(out) <= maxTokens {
				return out
			}
		}
		short := text + fmt.Sprintf("[cut: %d more lines; call browser_snapshot with a larger maxTokens or a selector]\n", len(s.Lines)-n)
		if Tokens(short) <= maxTokens || n == 0 {
			return short
		}
		n--
		text = text[:strings.LastIndex(strings.TrimSuffix(text, "\n"), "\n")+1]
	}
}

// cutNote says what Render left out.
func cutNote(rest []Line, maxTokens int) string {
	refs := 0
	var sections []string
	minDepth := rest[0].Depth
	for _, l := range rest {
		minDepth = min(minDepth, l.Depth)
	}
	for _, depth := range []int{minDepth, minDepth + 1} {
		for _, l := range rest {
			if l.Ref != "" && l.Depth == depth && len(sections) < 5 {
				sections = append(sections, l.Ref+" ("+headOf(l.Text)+")")
			}
		}
		if len(sections) >= 3 {
			break
		}
	}
	for _, l := range rest {
		if l.Ref != "" {
			refs++
		}
	}
	tokens := 0
	for _, l := range rest {
		tokens += Tokens(l.String()) + 1
	}
	note := fmt.Sprintf("[cut: %d more lines (%d refs, about %d tokens) left out at maxTokens %d; call browser_snapshot with maxTokens: %d",
		len(rest), refs, tokens, maxTokens, maxTokens+tokens+100)
	if len(sections) > 0 {
		note += ", or with selector: one of " + strings.Join(sections, ", ")
	}
	return note + "]\n"
}

var refRE = regexp.MustCompile(` \[ref=[^\]]+\]`)

// headOf is a line's `role "name"` without state and value, cut short.
func headOf(t string) string {
	t = strings.TrimSuffix(strings.TrimPrefix(refRE.ReplaceAllString(t, ""), "- "), ":")
	if i := strings.Index(t, ": "); i > 0 {
		t = t[:i]
	}
	if len([]rune(t)) > 40 {
		t = string([]rune(t)[:39]) + "…"
	}
	return t
}

// Appeared returns the lines of cur, in order, whose element old shows
// nowhere: no line of old has the same role and accessible name (Head),
// whatever their states and values. It compares across documents too
// (where every ref is new).
func Appeared(old, cur *Snapshot) []Line {
	seen := map[string]bool{}
	for _, l := range old.Lines {
		seen[l.Head()] = true
	}
	var out []Line
	for _, l := range cur.Lines {
		if !seen[l.Head()] {
			out = append(out, l)
		}
	}
	return out
}

// Head is the line's role and accessible name as the line writes them,
// `link "Log Out"`, without states, ref and value (the role alone for a
// node without a name).
func (l Line) Head() string {
	t := strings.TrimPrefix(l.Text, "- ")
	role, rest, ok := strings.Cut(t, " ")
	if !ok || !strings.HasPrefix(rest, `"`) || strings.HasSuffix(role, ":") {
		return strings.TrimSuffix(role, ":")
	}
	for i := 1; i < len(rest); i++ {
		switch rest[i] {
		case '\\':
			i++
		case '"':
			return role + " " + rest[:i+1]
		}
	}
	return t
}

// Diff describes what changed from old to cur within maxTokens: the
// lines added ("+ ") and removed ("- "), each with its indentation,
// nearest first. An empty string means nothing changed. Another document
// (URL changed) is not diffed: callers render the new snapshot instead.
func Diff(old, cur *Snapshot, maxTokens int) string {
	if maxTokens <= 0 {
		maxTokens = 300
	}
	a, b := old.Lines, cur.Lines
	if len(a)*len(b) > 4_000_000 {
		return cur.Render(maxTokens)
	}
	// longest common subsequence of the line texts
	n, m := len(a), len(b)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			out = append(out, "+ "+b[j].String())
			j++
		default:
			out = append(out, "- "+a[i].String())
			i++
		}
	}
	if len(out) == 0 {
		return ""
	}
	var sb strings.Builder
	budget := maxTokens * 4
	for k, l := range out {
		if sb.Len()+len(l)+1 > budget && k > 0 {
			fmt.Fprintf(&sb, "[cut: %d more changed lines; call browser_snapshot for the page]\n", len(out)-k)
			break
		}
		sb.WriteString(l)
		sb.WriteByte('\n')
	}
	return sb.String()
}
