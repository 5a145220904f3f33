// Package lang is the façade of the flow language: it loads a flow from
// .flow or YAML source, checks it (lang/check) and keeps the compiled
// expression programs the interpreter runs. See expr_env.go for the exact
// run-time env contract.
//
// # A call's arguments
//
// A call's arguments take one path, and it starts here: a flow's params
// give its tool's JSON Schema (Flow.InputSchema) and the one check of the
// arguments: Flow.CheckArgs for JSON-decoded values (an MCP call, a `call`
// statement), Flow.ParseArgs for NAME=VALUE strings (`rpa run --arg`),
// Flow.ArgsFromJSON and Flow.ArgsFromFile for `--args`. The check returns
// Args, a type only it makes; interp.Run takes them as they are and never
// checks again. A host takes its own arguments (profileId, resumeRunId,
// resumeFrom, deviceId, ...) out of a call before the check: a name that is
// no param is refused. A host that turns a param's value into another
// before the run (an account name into that account's credentials from a
// vault) does it with Args.Resolve, which keeps the result an Args. Literal
// is the one evaluator of literals (defaults, `defaults` values).
package lang

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	exprast "github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"

	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/check"
	"github.com/rpa-dev/rpa/lang/diag"
	"github.com/rpa-dev/rpa/lang/parse"
	"github.com/rpa-dev/rpa/lang/yamlflow"
)

// Flow is a loaded and checked flow.
type Flow struct {
	// File is the checked AST.
	File *ast.File
	// Path is the file path ("" when loaded from memory without a name).
	Path  string
	progs map[*ast.ExprSrc]*vm.Program
}

// Program returns the compiled expr program of an ExprSrc of f.File
// (conditions, assignments, name paths, `{{ }}` parts, until:, list and map
// elements, ...). Every ExprSrc of File has one after a clean Load or
// Check; it returns nil for a node that is not part of File (and for every
// node of a Flow not made by them).
func (f *Flow) Program(e *ast.ExprSrc) *vm.Program {
	if f == nil || e == nil {
		return nil
	}
	return f.progs[e]
}

// Name is the flow's NAME from its header.
func (f *Flow) Name() string { return f.File.Name }

// Profile is the flow's `defaults profile: "ID"`: the browser profile its
// runs use unless the caller names one; "" when absent.
func (f *Flow) Profile() string {
	for _, o := range f.File.Defaults {
		if o.Name != "profile" {
			continue
		}
		if s, ok := o.Value.(*ast.StringLit); ok {
			v, _ := s.Value()
			return v
		}
	}
	return ""
}

// IsFlowFile reports whether name has an extension Load understands
// (.flow, .yaml, .yml).
func IsFlowFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".flow", ".yaml", ".yml":
		return true
	}
	return false
}

// Parse turns source into an AST by the file's extension (.flow, or
// .yaml/.yml) without checking it. Any other extension is an error.
func Parse(filename string, src []byte) (f *ast.File, ds diag.Diagnostics) {
	defer contain(filename, &ds, func() { f = nil })
	if bad := notUTF8(filename, src); bad != nil { // utf8.go
		return nil, bad
	}
	switch strings.ToLower(filepath.Ext(filename)) {
	case ".yaml", ".yml":
		return yamlflow.Parse(filename, src)
	case ".flow":
		return parseFlow(filename, src)
	}
	ds.Errorf(ast.Range{File: filename, Start: ast.Pos{Line: 1, Col: 1}, End: ast.Pos{Line: 1, Col: 1}},
		"unknown flow file extension %q", filepath.Ext(filename)).Detail = "want .flow, .yaml or .yml"
	return nil, ds
}

// Load parses and checks one flow by its file name's extension. The flow
// is returned (non-nil) only when the diagnostics hold no error; warnings
// come with a usable flow. A source's `call` targets are not resolved
// (LoadFile and LoadDir resolve them in the file's folder).
func Load(filename string, src []byte) (*Flow, diag.Diagnostics) {
	f, ds := Parse(filename, src)
	if ds.HasErrors() || f == nil {
		ds.Sort()
		return nil, ds
	}
	return checkFile(f, filename, ds, nil)
}

// Check checks a flow whose syntax tree was built in memory (a generator,
// a test) as Load checks a parsed one: the flow is returned (non-nil) only
// when the diagnostics hold no error, with every expression compiled. Its
// `call` targets are not resolved. path names the flow in diagnostics.
func Check(path string, f *ast.File) (*Flow, diag.Diagnostics) {
	if f == nil {
		var ds diag.Diagnostics
		ds.Errorf(ast.Range{File: path}, "no flow")
		return nil, ds
	}
	return checkFile(f, path, nil, nil)
}

func checkFile(f *ast.File, path string, ds diag.Diagnostics, folder map[string]*ast.File) (fl *Flow, out diag.Diagnostics) {
	defer contain(path, &out, func() { fl = nil })
	res, cds := check.File(f, &check.Options{Folder: folder})
	ds = append(ds, cds...)
	ds.Sort()
	if ds.HasErrors() {
		return nil, ds
	}
	return &Flow{File: f, Path: path, progs: res.Programs}, ds
}

// LoadFile reads and loads the flow at path. When the flow has a `call`,
// its targets are resolved among the flows of the file's folder (as
// LoadDir does): an unknown flow, bad `with:` keys or a call cycle are
// errors of this file. Other files' own problems are not reported (a
// sibling that does not parse is simply not a known flow).
func LoadFile(path string) (*Flow, diag.Diagnostics) {
	src, err := os.ReadFile(path)
	if err != nil {
		var ds diag.Diagnostics
		ds.Errorf(ast.Range{File: path}, "cannot read flow: %v", unwrapPath(err))
		return nil, ds
	}
	return LoadAt(path, src)
}

// LoadAt is LoadFile of src as the text of the file at path (an editor's
// buffer, a flow about to be published): its `call` targets are resolved
// among the other flow files of path's folder as they are on disk.
func LoadAt(path string, src []byte) (*Flow, diag.Diagnostics) {
	f, ds := Parse(path, src)
	if ds.HasErrors() || f == nil {
		ds.Sort()
		return nil, ds
	}
	var folder map[string]*ast.File
	if len(actions.Calls(f)) > 0 {
		folder = siblings(path, f)
	}
	return checkFile(f, path, ds, folder)
}

// siblings parses the other flow files of path's folder (not checked) and
// returns them by NAME with f under its own name. Files that cannot be read
// or parsed are left out; of two files with one NAME the first (by file
// name) is kept.
func siblings(path string, f *ast.File) map[string]*ast.File {
	dir := filepath.Dir(path)
	folder := map[string]*ast.File{}
	all, err := FlowFiles(dir)
	if err == nil {
		var paths []string
		for _, p := range all {
			if !sameFile(p, path) {
				paths = append(paths, p)
			}
		}
		parsed := make([]*ast.File, len(paths))
		parallel(len(paths), func(i int) {
			src, err := os.ReadFile(paths[i])
			if err != nil {
				return
			}
			if sf, ds := Parse(paths[i], src); !ds.HasErrors() {
				parsed[i] = sf
			}
		})
		for _, sf := range parsed {
			if sf == nil || sf.Name == "" {
				continue
			}
			if _, dup := folder[sf.Name]; !dup {
				folder[sf.Name] = sf
			}
		}
	}
	if f.Name != "" {
		folder[f.Name] = f
	}
	return folder
}

func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// LoadDir loads every .flow, .yaml and .yml file directly in dir (not in
// subfolders), checks each with the folder known (so `call` targets and
// their `with:` keys are resolved), and returns the clean flows by NAME.
// Two files with one NAME are an error on both and neither is returned; a
// file with errors is left out. The diagnostics cover every file, errors
// first, in file order.
func LoadDir(dir string) (map[string]*Flow, diag.Diagnostics) {
	var ds diag.Diagnostics
	flowPaths, err := FlowFiles(dir)
	if err != nil {
		ds.Errorf(ast.Range{File: dir}, "cannot read flow folder: %v", unwrapPath(err))
		return nil, ds
	}
	return loadFolder(flowPaths, os.ReadFile)
}

// LoadFS is LoadDir for the flow files at the root of fsys (an embedded
// folder, say); diagnostics name the files by their names in fsys.
func LoadFS(fsys fs.FS) (map[string]*Flow, diag.Diagnostics) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		var ds diag.Diagnostics
		ds.Errorf(ast.Range{}, "cannot read flow folder: %v", unwrapPath(err))
		return nil, ds
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && IsFlowFile(e.Name()) && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return loadFolder(names, func(name string) ([]byte, error) { return fs.ReadFile(fsys, name) })
}

// loadFolder loads the flow files at flowPaths (one folder) through read.
func loadFolder(flowPaths []string, read func(string) ([]byte, error)) (map[string]*Flow, diag.Diagnostics) {
	var ds diag.Diagnostics
	type loaded struct {
		path string
		file *ast.File
		ds   diag.Diagnostics
	}
	var files []*loaded
	for _, p := range flowPaths {
		files = append(files, &loaded{path: p})
	}
	// Parse, then check, each phase spread over the CPUs: files are
	// independent once the folder's names are known.
	parallel(len(files), func(i int) {
		l := files[i]
		src, err := read(l.path)
		if err != nil {
			l.ds.Errorf(ast.Range{File: l.path}, "cannot read flow: %v", unwrapPath(err))
			return
		}
		f, pds := Parse(l.path, src)
		l.ds = pds
		if !pds.HasErrors() {
			l.file = f
		}
	})
	for _, l := range files {
		ds = append(ds, l.ds...)
	}
	parsed := files[:0:0]
	for _, l := range files {
		if l.file != nil {
			parsed = append(parsed, l)
		}
	}
	files = parsed
	folder := map[string]*ast.File{}
	paths := map[string][]string{}
	for _, l := range files {
		if l.file.Name == "" {
			continue
		}
		if _, dup := folder[l.file.Name]; !dup {
			folder[l.file.Name] = l.file
		}
		paths[l.file.Name] = append(paths[l.file.Name], l.path)
	}
	out := map[string]*Flow{}
	checked := make([]*Flow, len(files))
	cds := make([]diag.Diagnostics, len(files))
	parallel(len(files), func(i int) {
		checked[i], cds[i] = checkFile(files[i].file, files[i].path, nil, folder)
	})
	for i, l := range files {
		fl, fds := checked[i], cds[i]
		ds = append(ds, fds...)
		if others := paths[l.file.Name]; len(others) > 1 {
			var rest []string
			for _, o := range others {
				if o != l.path {
					rest = append(rest, filepath.Base(o))
				}
			}
			ds.Errorf(l.file.NameRange, "flow %q is also defined in %s", l.file.Name, strings.Join(rest, ", ")).Detail =
				"two flows with one name in a folder: neither is served"
			continue
		}
		if fl != nil {
			out[l.file.Name] = fl
		}
	}
	ds.Sort()
	return out, ds
}

// parallel runs fn(0..n-1) on up to GOMAXPROCS goroutines.
func parallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// Names returns the sorted NAMEs of a LoadDir result.
func Names(flows map[string]*Flow) []string {
	out := make([]string, 0, len(flows))
	for n := range flows {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// contain turns a panic while reading one flow (a bug: reading never
// panics on purpose) into an error of that file, so one bad file never
// stops a process that reads many (rpa serve, rpa ui): it is reported and
// skipped. A nesting deep enough to overflow the stack, which no recover
// could catch, is refused before (parse.MaxBracketDepth, check.MaxExprDepth).
func contain(filename string, ds *diag.Diagnostics, drop func()) {
	if r := recover(); r != nil {
		drop()
		ds.Errorf(ast.Range{File: filename, Start: ast.Pos{Line: 1, Col: 1}, End: ast.Pos{Line: 1, Col: 1}},
			"internal error reading the flow: %v", r).Detail = "the file is skipped; please report it with the file"
	}
}

func parseFlow(filename string, src []byte) (*ast.File, diag.Diagnostics) {
	return parse.Flow(filename, src)
}

// Login is the flow's `defaults login: "FLOW"` (the sign-in flow run when
// a step lands on a sign-in page) and `logged_in: SELECTOR` (matches only
// while signed in); "" when absent (LANGUAGE.md, "Accounts and sign-in").
func (f *Flow) Login() (flow, loggedIn string) {
	for _, o := range f.File.Defaults {
		s, ok := o.Value.(*ast.StringLit)
		if !ok {
			continue
		}
		v, _ := s.Value()
		switch o.Name {
		case "login":
			flow = v
		case "logged_in":
			loggedIn = v
		}
	}
	return flow, loggedIn
}

// CredentialFields returns the fields the flow reads of its credential
// param name (`name.password`, `name["totp"]`), sorted: what an account
// must have to be used for it (the credential type is an interface: any
// account with these fields).
func (f *Flow) CredentialFields(name string) []string {
	seen := map[string]bool{}
	for _, prog := range f.progs {
		if prog == nil {
			continue
		}
		n := prog.Node()
		exprast.Walk(&n, fieldVisitor{param: name, seen: seen})
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// fieldVisitor collects the constant fields read of one name.
type fieldVisitor struct {
	param string
	seen  map[string]bool
}

func (v fieldVisitor) Visit(n *exprast.Node) {
	m, ok := (*n).(*exprast.MemberNode)
	if !ok {
		return
	}
	id, ok := m.Node.(*exprast.IdentifierNode)
	if !ok || id.Value != v.param {
		return
	}
	if s, ok := m.Property.(*exprast.StringNode); ok {
		v.seen[s.Value] = true
	}
}

// AccountFields is CredentialFields of param name in f and, when f names a
// sign-in flow (Login) that flows finds, in that flow's param of the same
// name (it gets the account by name): every field a run of f reads.
func (f *Flow) AccountFields(name string, flows func(string) (*Flow, bool)) []string {
	out := f.CredentialFields(name)
	if login, _ := f.Login(); login != "" && flows != nil {
		if lf, ok := flows(login); ok && lf != nil && lf != f {
			for _, x := range lf.CredentialFields(name) {
				if !slices.Contains(out, x) {
					out = append(out, x)
				}
			}
			sort.Strings(out)
		}
	}
	return out
}
