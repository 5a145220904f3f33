package ui

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/diag"
)

// FlowInfo is one flow file of the folder as the console shows it.
type FlowInfo struct {
	// File is the file name in the folder ("login.flow").
	File string
	// Path is the file's path.
	Path string
	// Name is the flow NAME ("" when the file does not parse that far).
	Name string
	// Tool is the MCP tool name, workflow_NAME ("" without a Name).
	Tool string
	// Description is the header's description.
	Description string
	// Params are the flow's params in declaration order.
	Params []ParamInfo
	// Loads is true when the flow loads in its folder without errors (then it is a tool when
	// the folder is served).
	Loads bool
	// Published is true when the served folder has this flow as a tool: this very file when the
	// console shows the served folder, else a file of the served folder declaring Name.
	Published bool
	// Diags are the file's diagnostics, errors first.
	Diags []DiagView
	// Errors and Warnings count Diags by severity.
	Errors, Warnings int
	// Draft is true when the folder holds a draft of the flow that differs from its file
	// (drafts.go); New when there is only the draft (the file is made when it is published).
	// The other fields then describe the draft for a New flow, the file otherwise.
	Draft, New bool
}

// ParamInfo is one param of a flow.
type ParamInfo struct {
	// Name is the param's name.
	Name string
	// Type is its type name (string, secret, int, number, bool, list, map, enum).
	Type string
	// Enum holds an enum's values.
	Enum []string
	// Default is the default literal as written in the flow ("" when required).
	Default string
	// Required is true without a default.
	Required bool
	// Secret is true for a secret param.
	Secret bool
	// Description is the param's description.
	Description string
}

// DiagView is one diagnostic as the console shows and sends it (JSON for the editor).
type DiagView struct {
	// Severity is "error" or "warning".
	Severity string `json:"severity"`
	// Line and Col are 1-based (0 when unknown).
	Line int `json:"line"`
	Col  int `json:"col"`
	// Summary is the terse message.
	Summary string `json:"summary"`
	// Text is the compiler form with the source line and a caret (lang/diag's renderer), file
	// named by its base name.
	Text string `json:"text"`
}

// diagViews renders ds (all of one file whose source is src).
func diagViews(ds diag.Diagnostics, src []byte) []DiagView {
	out := make([]DiagView, 0, len(ds))
	for _, d := range ds {
		dd := *d
		dd.Subject.File = filepath.Base(d.Subject.File)
		out = append(out, DiagView{Severity: d.Severity.String(), Line: d.Subject.Start.Line, Col: d.Subject.Start.Col, Summary: d.Summary, Text: dd.Format(src)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Severity == "error" && out[j].Severity != "error" })
	return out
}

// paramInfos describes f's params.
func paramInfos(f *ast.File, src []byte) []ParamInfo {
	var out []ParamInfo
	for _, p := range f.Params {
		pi := ParamInfo{Name: p.Name, Description: p.Description, Required: p.Default == nil}
		if p.Type != nil {
			pi.Type, pi.Enum = p.Type.Name, p.Type.Values
		}
		pi.Secret = pi.Type == "secret"
		if p.Default != nil {
			pi.Default = literalText(p.Default, src)
		}
		out = append(out, pi)
	}
	return out
}

// literalText is a default literal as a person types it in a form: a string's value, else the
// literal's source text (JSON-like for lists and maps).
func literalText(e ast.Expr, src []byte) string {
	if v, err := lang.Literal(e); err == nil {
		if s, ok := v.(string); ok {
			return s
		}
	}
	r := e.Rng()
	if r.Start.Offset >= 0 && r.End.Offset <= len(src) && r.Start.Offset < r.End.Offset {
		return string(src[r.Start.Offset:r.End.Offset])
	}
	if v, err := lang.Literal(e); err == nil {
		return lang.Stringify(v)
	}
	return ""
}

// fileStamp identifies a file's version cheaply.
type fileStamp struct {
	size int64
	mod  time.Time
}

// folderScan is one look at a folder: every flow file's info by file name.
type folderScan struct {
	stamps map[string]fileStamp
	flows  []*FlowInfo
	byName map[string]*FlowInfo  // loaded flows by NAME
	srcs   map[string][]byte     // file name → source
	loaded map[string]*lang.Flow // clean flows by NAME
}

// folderCache rescans a folder only when a file was added, removed or changed (by size or
// modification time), so a page with 500 flows answers from memory.
type folderCache struct {
	mu   sync.Mutex
	dir  string
	last *folderScan
}

// stampsOf stats dir's flow files.
func stampsOf(dir string) (map[string]fileStamp, []string) {
	files, _ := lang.FlowFiles(dir)
	st := make(map[string]fileStamp, len(files))
	for _, p := range files {
		if fi, err := os.Stat(p); err == nil {
			st[filepath.Base(p)] = fileStamp{fi.Size(), fi.ModTime()}
		}
	}
	return st, files
}

func sameStamps(a, b map[string]fileStamp) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w.size != v.size || !w.mod.Equal(v.mod) {
			return false
		}
	}
	return true
}

// scan returns the folder's flows, loading them again when the folder changed: only the changed
// files (and the files that call flows) when the same files are there and the changed ones keep
// their NAME (an editor's save), else the whole folder (lang.LoadDir).
func (c *folderCache) scan() *folderScan {
	c.mu.Lock()
	defer c.mu.Unlock()
	stamps, files := stampsOf(c.dir)
	if c.last != nil && sameStamps(stamps, c.last.stamps) {
		return c.last
	}
	if sc := c.rescan(stamps, files); sc != nil {
		c.last = sc
		return sc
	}
	sc := &folderScan{stamps: stamps, byName: map[string]*FlowInfo{}, srcs: map[string][]byte{}}
	loaded, ds := lang.LoadDir(c.dir)
	sc.loaded = loaded
	byFile := map[string]diag.Diagnostics{}
	for _, d := range ds {
		b := filepath.Base(d.Subject.File)
		byFile[b] = append(byFile[b], d)
	}
	clean := map[string]*lang.Flow{}
	for _, f := range loaded {
		clean[filepath.Base(f.Path)] = f
	}
	for _, p := range files {
		base := filepath.Base(p)
		src, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		sc.add(flowInfo(p, src, clean[base], byFile[base]), src, clean[base])
	}
	return c.keep(sc)
}

func (c *folderCache) keep(sc *folderScan) *folderScan {
	c.last = sc
	return sc
}

// add appends fi (whose source is src, f its loaded flow or nil) to the scan.
func (sc *folderScan) add(fi *FlowInfo, src []byte, f *lang.Flow) {
	sc.srcs[fi.File] = src
	if fi.Loads {
		sc.byName[fi.Name] = fi
		sc.loaded[fi.Name] = f
	}
	sc.flows = append(sc.flows, fi)
}

// maxRescan is how many changed files are loaded one by one before the whole folder is.
const maxRescan = 20

// rescan loads only what changed since c.last (nil when the whole folder must be loaded).
func (c *folderCache) rescan(stamps map[string]fileStamp, files []string) *folderScan {
	last := c.last
	if last == nil || len(stamps) != len(last.stamps) {
		return nil
	}
	var changed int
	for k, v := range stamps {
		w, ok := last.stamps[k]
		if !ok {
			return nil
		}
		if w.size != v.size || !w.mod.Equal(v.mod) {
			changed++
		}
	}
	if changed > maxRescan {
		return nil
	}
	old := map[string]*FlowInfo{}
	names := map[string]int{}
	for _, f := range last.flows {
		old[f.File] = f
		names[f.Name]++
	}
	sc := &folderScan{stamps: stamps, byName: map[string]*FlowInfo{}, srcs: map[string][]byte{}, loaded: map[string]*lang.Flow{}}
	for _, p := range files {
		base := filepath.Base(p)
		prev := old[base]
		st, w := stamps[base], last.stamps[base]
		src := last.srcs[base]
		same := st.size == w.size && st.mod.Equal(w.mod)
		if !same {
			var err error
			if src, err = os.ReadFile(p); err != nil {
				return nil
			}
		}
		// It may call a changed flow unless its last load (the same bytes)
		// calls none.
		callsOthers := true
		if prev != nil && last.loaded[prev.Name] != nil {
			callsOthers = len(actions.Callees(last.loaded[prev.Name].File)) > 0
		}
		if same && !callsOthers && prev != nil {
			sc.add(prev, src, last.loaded[prev.Name])
			continue
		}
		// Changed, or it may call a changed flow: check it again in its folder.
		f, ds := lang.LoadAt(p, src)
		if f != nil && ds.HasErrors() {
			f = nil
		}
		fi := flowInfo(p, src, f, ds)
		if prev == nil || fi.Name != prev.Name || names[fi.Name] > 1 {
			return nil // a NAME changed or is declared twice: that needs the whole folder
		}
		sc.add(fi, src, f)
	}
	return sc
}

// flowInfo describes the flow file at path (source src; f its loaded flow, nil when it does
// not load; ds its diagnostics).
func flowInfo(path string, src []byte, f *lang.Flow, ds diag.Diagnostics) *FlowInfo {
	fi := &FlowInfo{File: filepath.Base(path), Path: path}
	var file *ast.File
	if f != nil {
		file, fi.Loads = f.File, true
	} else if pf, _ := lang.Parse(path, src); pf != nil {
		file = pf
	}
	if file != nil && file.Name != "" {
		fi.Name, fi.Tool, fi.Description = file.Name, mcpserver.ToolName(file.Name), file.Description
		fi.Params = paramInfos(file, src)
	}
	fi.Diags = diagViews(ds, src)
	for _, d := range fi.Diags {
		if d.Severity == "error" {
			fi.Errors++
		} else {
			fi.Warnings++
		}
	}
	if fi.Errors > 0 {
		fi.Loads = false
	}
	return fi
}

// hashOf is the hex SHA-256 of b (the editor's "changed on disk" check).
func hashOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

type flowsKey struct{}
type servedKey struct{}

// flows is the console folder's cache.
func (s *Server) flowsCache() *folderCache {
	return s.Value(flowsKey{}, func() any { return &folderCache{dir: s.FlowsDir()} }).(*folderCache)
}

// servedSame reports whether the console shows the served folder itself.
func (s *Server) servedSame() bool {
	a, _ := filepath.Abs(s.FlowsDir())
	b, _ := filepath.Abs(s.ServedDir())
	return a == b
}

// ServedDir is the folder flows are published to: Options.ServedDir, else $RPA_HOME/flows
// (Options.Home), else FlowsDir.
func (s *Server) ServedDir() string {
	switch {
	case s.opts.ServedDir != "":
		return s.opts.ServedDir
	case s.opts.Home != "":
		return filepath.Join(s.opts.Home, "flows")
	}
	return s.FlowsDir()
}

// FlowList lists the console folder's flows in file-name order (new flows that are only drafts
// too: FlowInfo.New), with their diagnostics and whether each is published (copies: the caller may keep them; Params and Diags are shared and
// must not be changed).
func (s *Server) FlowList() []FlowInfo {
	l, _ := s.flowList()
	return l
}

// flowList is FlowList with the scans it comes from (same scans, same list).
func (s *Server) flowList() ([]FlowInfo, [3]*folderScan) {
	sc := s.flowsCache().scan()
	drafts := s.draftsCache().scan()
	var served *folderScan
	if !s.servedSame() {
		served = s.Value(servedKey{}, func() any { return &folderCache{dir: s.ServedDir()} }).(*folderCache).scan()
	}
	out := make([]FlowInfo, len(sc.flows))
	for i, f := range sc.flows {
		out[i] = *f
		if served == nil {
			out[i].Published = f.Loads
		} else {
			_, out[i].Published = served.byName[f.Name]
		}
	}
	out = s.withDrafts(out, sc, drafts)
	sort.SliceStable(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out, [3]*folderScan{sc, served, drafts}
}

// FlowFile returns the info and the source of the file named file in the console folder;
// ok is false when there is no such flow file (a path, a dot file, another extension, a new
// flow that is only a draft).
func (s *Server) FlowFile(file string) (fi FlowInfo, src []byte, ok bool) {
	if file == "" || filepath.Base(file) != file || strings.HasPrefix(file, ".") || !lang.IsFlowFile(file) {
		return fi, nil, false
	}
	for _, f := range s.FlowList() {
		if f.File == file && !f.New {
			return f, s.flowsCache().scan().srcs[file], true
		}
	}
	return fi, nil, false
}

// sameBase reports whether two paths name one file of one folder (by clean path, else by
// base name when one of them is relative).
func sameBase(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	return filepath.Base(a) == filepath.Base(b) && (!filepath.IsAbs(a) || !filepath.IsAbs(b))
}

type locksKey struct{}

// lockFile serialises the console's writes of one file (save, publish); it returns the unlock.
func (s *Server) lockFile(path string) func() {
	m := s.Value(locksKey{}, func() any { return &sync.Map{} }).(*sync.Map)
	v, _ := m.LoadOrStore(filepath.Clean(path), &sync.Mutex{})
	mu := v.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}
