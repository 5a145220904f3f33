// Package importer turns recordings made by other tools into flows: Chrome
// DevTools Recorder JSON (what @puppeteer/replay reads), Selenium IDE
// `.side` projects (one flow per test), and the neutral JSON flow format of
// rpa2mcp (navigate/input/click/extract/loop/llm steps).
//
// Import returns *ast.File values; lang/format prints them as .flow text.
// Whatever a recording holds that a flow cannot express is reported as a
// diagnostic positioned at the step in the input file (line:col) and
// naming it — never dropped silently. Such diagnostics are warnings, or
// errors with Options.Strict. Input that cannot be read at all (bad JSON,
// a step without its required fields, a member of the wrong kind such as
// "width": "abc" or "target": 123) is always an error, naming the step or
// command and the member; a value is never read as 0, false or "" instead.
//
// Passwords: a value typed into a field whose type, name, id or label says
// "password" is never written into the flow. The flow gets a required
// `secret` param named after the field (see secretName) and the value is
// dropped with a warning.
//
// Not kept on purpose (rpa's own semantics): Chrome Recorder click offsets
// (rpa clicks an element's centre) and the titles of asserted navigations.
//
// Names: the first page's origin (Chrome) or the project URL (Selenium)
// becomes a `base_url` param, so a flow replays against another host.
// Other windows are reached with `tab "last"` right after the step that
// opened them and found again by URL (a variable set with `url`), never by
// index. Values never bound in the recording (`${var}`, `{{var}}`,
// `{$var}`) become required params.
//
// FromRecording builds a flow from what `rpa record` (package recorder)
// saw, with the same rules for passwords, names and tabs.
package importer

import (
	"bytes"
	"encoding/json"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/diag"
)

// Format is an input format.
type Format string

// Input formats.
const (
	FormatChrome   Format = "chrome-recorder" // Chrome DevTools Recorder / @puppeteer/replay JSON
	FormatSide     Format = "selenium-ide"    // Selenium IDE .side project
	FormatJSONFlow Format = "json-flow"       // rpa2mcp's neutral JSON flow
)

// Options tune an import.
type Options struct {
	// Strict turns every "cannot be expressed" warning into an error.
	Strict bool
	// Format forces the input format; "" detects it (Detect).
	Format Format
}

// Flow is one imported flow.
type Flow struct {
	// Name is the flow NAME (also File.Name); for a .side project it is the
	// test's name made an identifier, unique within the project.
	Name string
	// Source names what it came from: the recording's title, or the
	// Selenium test's name.
	Source string
	File   *ast.File
}

// Detect tells the format of an input: a `.side` file, or a JSON object
// with "tests" and "version" is Selenium IDE; a JSON object whose steps use
// "attrs" is the JSON flow format; other JSON objects with "steps" are
// Chrome Recorder recordings. ok=false when none fits.
func Detect(filename string, src []byte) (Format, bool) {
	root, err := parseRecording(src)
	if err != nil {
		if strings.EqualFold(filepath.Ext(filename), ".side") {
			return FormatSide, true
		}
		if looksJSONFlow(src) {
			return FormatJSONFlow, true
		}
		return FormatChrome, strings.HasPrefix(strings.TrimSpace(string(src)), "{")
	}
	return detect(filename, root)
}

func looksJSONFlow(src []byte) bool { return bytes.Contains(src, []byte(`"attrs"`)) }

func detect(filename string, root *jnode) (Format, bool) {
	if strings.EqualFold(filepath.Ext(filename), ".side") || (root.has("tests") && root.has("version")) {
		return FormatSide, true
	}
	steps := root.get("steps")
	if steps == nil || steps.kind != jArray {
		return "", false
	}
	if steps.flowSteps {
		return FormatJSONFlow, true
	}
	for _, s := range steps.elems { // a lazy array has none: flowSteps says
		if s.has("attrs") || s.has("body") {
			return FormatJSONFlow, true
		}
	}
	return FormatChrome, true
}

// MaxInput is the largest input Import reads: 32 MiB, a recording of
// some 700,000 steps, far more than a recorder makes in a session.
// Importing takes some 60 times its input in memory at the peak (most of
// it loading the flow text back: Texts), so a larger input is an error
// saying so, not a machine out of memory.
const MaxInput = 32 << 20

// Import reads one input file and returns its flows (one, or one per test
// of a .side project) with every diagnostic, positioned in filename. The
// flows are usable (they pass lang.Load) when the diagnostics have no
// errors.
func Import(filename string, src []byte, opts Options) ([]*Flow, diag.Diagnostics) {
	flows, diags, _ := importSource(filename, src, opts)
	return flows, diags
}

// Redact returns src as it may be shown (the source lines a renderer
// quotes under Import's diagnostics): every recorded password value that
// Import drops is replaced by "***": a JSON string equal to it as a whole,
// and, for a value of at least 4 characters, also its spellings inside
// longer strings (JSON-escaped, URL-escaped or as encodeURIComponent
// writes it: a navigation URL that carried it). src itself is not modified; without such values src is returned.
func Redact(filename string, src []byte, opts Options) []byte {
	_, _, s := importSource(filename, src, opts)
	if len(s.dropped) == 0 {
		return src
	}
	var pairs []string
	seen := map[string]bool{}
	add := func(from, to string) {
		if from != "" && !seen[from] {
			seen[from] = true
			pairs = append(pairs, from, to)
		}
	}
	var long []string
	for _, v := range s.dropped {
		raw, _ := json.Marshal(v) // "p\u0026ss"
		add(string(raw), `"***"`)
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if enc.Encode(v) == nil {
			add(string(bytes.TrimSpace(buf.Bytes())), `"***"`)
		}
		if utf8.RuneCountInString(v) >= 4 {
			long = append(long, string(raw[1:len(raw)-1]), strings.Trim(strings.TrimSpace(buf.String()), `"`),
				url.QueryEscape(v), url.PathEscape(v), uriComponent(v))
		}
	}
	sort.SliceStable(long, func(i, j int) bool { return len(long[i]) > len(long[j]) })
	for _, l := range long {
		add(l, "***")
	}
	// Whole tokens first (strings.Replacer prefers earlier pairs at a
	// position), then the longer spellings inside strings.
	return []byte(strings.NewReplacer(pairs...).Replace(string(src)))
}

// uriComponent is JavaScript's encodeURIComponent(v).
func uriComponent(v string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func importSource(filename string, src []byte, opts Options) ([]*Flow, diag.Diagnostics, *source) {
	var diags diag.Diagnostics
	if len(src) > MaxInput {
		s := &source{name: filename, src: src, lines: []int{0}}
		p := s.pos(0)
		diags.Errorf(ast.Range{File: filename, Start: p, End: p}, "the input is over %d MB, the most the importer reads (a recording of some 700,000 steps): split it", MaxInput>>20)
		return nil, diags, s
	}
	s := newSource(filename, src)
	root, err := parseRecording(src) // its steps are parsed one at a time, as they are imported
	if err != nil {
		off := 0
		if je, ok := err.(*jsonError); ok {
			off = je.off
		}
		p := s.pos(off)
		diags.Errorf(ast.Range{File: filename, Start: p, End: p}, "invalid JSON: %v", err)
		return nil, diags, s
	}
	if root.kind != jObject {
		diags.Errorf(s.rng(root), "expected a JSON object at the top level, found %s", root.kind)
		return nil, diags, s
	}
	format := opts.Format
	if format == "" {
		var ok bool
		if format, ok = detect(filename, root); !ok {
			diags.Errorf(s.rng(root), `unknown recording format: expected a Chrome Recorder recording ("steps"), a Selenium IDE project ("tests") or a JSON flow (steps with "attrs")`)
			return nil, diags, s
		}
	}
	var flows []*Flow
	switch format {
	case FormatChrome:
		b := newBuilder(s, &diags, opts.Strict)
		c := &chrome{builder: b}
		c.run(root)
		title := root.getStr("title")
		name := nameFor(title, filename)
		flows = append(flows, &Flow{Name: name, Source: title, File: b.finish(name, title)})
	case FormatSide:
		flows = importSide(s, root, opts, &diags)
	case FormatJSONFlow:
		b := newBuilder(s, &diags, opts.Strict)
		j := &jsonFlow{builder: b, renames: map[string]string{}}
		j.run(root)
		title := root.getStr("name")
		name := nameFor(title, filename)
		flows = append(flows, &Flow{Name: name, Source: title, File: b.finish(name, firstNonEmpty(root.getStr("description"), title))})
	default:
		diags.Errorf(s.rng(root), "unknown import format %q", format)
	}
	diags.Sort()
	return flows, diags, s
}

// nameFor is the flow NAME from a title, else from the file name, else
// "imported".
func nameFor(title, filename string) string {
	if n := flowName(title); n != "" && !strings.HasPrefix(n, "recording_") {
		return n
	}
	base := strings.TrimSuffix(filepath.Base(filename), filepath.Ext(filename))
	if n := flowName(base); n != "" {
		return n
	}
	if n := flowName(title); n != "" {
		return n
	}
	return "imported"
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// FlowName turns a title or file name into a flow NAME ([a-z][a-z0-9_]*),
// "" when nothing usable is left.
func FlowName(s string) string { return flowName(s) }
