package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
)

// StepsProfile is the profile of `rpa serve --steps` when the caller
// names none.
const StepsProfile = "steps"

// stepTool is one top-level statement of the flow served step by step.
type stepTool struct {
	name   string   // step_03_click
	index  int      // 1-based
	source string   // the statement's text
	line   int      // its line in the file
	binds  []string // names it binds at the top level
	params []*ast.Param
}

// stepSession is what one profile's step calls share: the values of the
// params given so far and the names bound by earlier steps.
type stepSession struct {
	mu   sync.Mutex
	args map[string]any
	vars map[string]any
}

// stepsState is the flow served step by step.
type stepsState struct {
	flow     *lang.Flow
	src      []byte
	defaults []string // `defaults ...` lines
	mu       sync.Mutex
	sessions map[string]*stepSession
}

func (st *stepsState) session(profile string) *stepSession {
	st.mu.Lock()
	defer st.mu.Unlock()
	ss := st.sessions[profile]
	if ss == nil {
		ss = &stepSession{args: map[string]any{}, vars: map[string]any{}}
		st.sessions[profile] = ss
	}
	return ss
}

// ServeSteps serves the flow at path step by step (`rpa serve --steps
// FLOW`, for authoring and debugging): every top-level statement of its
// body is its own tool, step_NN_ACTION (step_03_click, step_08_table,
// step_09_if), taking the params that statement uses; all of them run on
// one session per profile ("steps" unless profileId says otherwise), so
// the page, the param values given so far and the names bound by earlier
// steps carry over from one call to the next. Each call answers with the
// statement's WorkflowExecutionResult, its outputs being the names it
// bound. A flow that does not check is an error.
func (s *Server) ServeSteps(path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	f, ds := lang.Load(path, src)
	if ds.HasErrors() {
		return fmt.Errorf("%s does not check:\n%s", path, ds.Error())
	}
	st := &stepsState{flow: f, src: src, sessions: map[string]*stepSession{}}
	for _, o := range f.File.Defaults {
		if o.Name == "profile" {
			continue
		}
		st.defaults = append(st.defaults, "defaults "+slice(src, o.Range))
	}
	var ts []*tool
	for i, stmt := range f.File.Body {
		step := &stepTool{index: i + 1, source: slice(src, stmt.Rng()), line: stmt.Rng().Start.Line}
		step.name = fmt.Sprintf("step_%02d_%s", i+1, stmtKind(stmt))
		switch x := stmt.(type) {
		case *ast.ActionStmt:
			if x.Target != "" {
				step.binds = []string{x.Target}
			}
		case *ast.AssignStmt:
			step.binds = []string{x.Name}
		}
		for _, p := range f.File.Params {
			if usesName(step.source, p.Name) {
				step.params = append(step.params, p)
			}
		}
		t, err := s.stepTool(st, step)
		if err != nil {
			return fmt.Errorf("%s: %w", step.name, err)
		}
		ts = append(ts, t)
	}
	s.setTools(ts, nil)
	return nil
}

// slice is the source text of r.
func slice(src []byte, r ast.Range) string {
	a, b := r.Start.Offset, r.End.Offset
	if a < 0 || b > len(src) || a > b {
		return ""
	}
	return strings.TrimSpace(string(src[a:b]))
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// stmtKind names a step by its statement's keyword (ast.Keyword; an action's name in lower
// case with _ for anything not a letter or digit), "step" for none.
func stmtKind(s ast.Stmt) string {
	k := ast.Keyword(s)
	if _, ok := s.(*ast.ActionStmt); ok {
		return nonWord.ReplaceAllString(strings.ToLower(k), "_")
	}
	if k == "" {
		return "step"
	}
	return k
}

// usesName reports whether the statement's text mentions name as a word.
func usesName(src, name string) bool {
	re := regexp.MustCompile(`(^|[^A-Za-z0-9_.])` + regexp.QuoteMeta(name) + `($|[^A-Za-z0-9_])`)
	return re.MatchString(src)
}

func (s *Server) stepTool(st *stepsState, step *stepTool) (*tool, error) {
	root := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}, Required: []string{}}
	for _, p := range step.params {
		ps, err := paramSchema(p)
		if err != nil {
			return nil, err
		}
		root.Properties[p.Name] = ps
		root.PropertyOrder = append(root.PropertyOrder, p.Name)
	}
	root.Properties[ProfileArg] = &jsonschema.Schema{Type: "string", Description: "Browser profile of the step session (default \"steps\")"}
	root.PropertyOrder = append(root.PropertyOrder, ProfileArg)
	sch := &Schema{props: map[string]*jsonschema.Resolved{}}
	if err := sch.compile(root); err != nil {
		return nil, err
	}
	desc := fmt.Sprintf("Step %d of flow %s (line %d): %s", step.index, st.flow.File.Name, step.line, firstLine(step.source))
	if len(step.params) > 0 {
		desc += ". Params given once are remembered for the next steps"
	}
	return &tool{def: &mcp.Tool{Name: step.name, Description: desc, InputSchema: sch.JSON, OutputSchema: OutputSchema},
		schema: sch, fn: func(ctx context.Context, req *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, error) {
			return s.runStep(ctx, req, st, step, args)
		}}, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// runStep runs one statement as a flow of its own: the flow's params
// (values remembered from earlier calls), the names earlier steps bound
// as params of their type, the statement, and a return of what it binds.
func (s *Server) runStep(ctx context.Context, req *mcp.CallToolRequest, st *stepsState, step *stepTool, args map[string]any) (*mcp.CallToolResult, error) {
	profile := str(args, ProfileArg)
	delete(args, ProfileArg)
	if profile == "" {
		profile = StepsProfile
	}
	if err := profiles.ValidID(profile); err != nil {
		return nil, argError(&ArgError{Field: ProfileArg, Msg: err.Error()})
	}
	ss := st.session(profile)
	l, err := s.acquire(ctx, profile)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for k, v := range args {
		ss.args[k] = v
	}
	// the step's own flow
	var b strings.Builder
	fmt.Fprintf(&b, "flow %s\n\n", st.flow.File.Name)
	given := map[string]any{}
	for _, p := range st.flow.File.Params {
		if !usesName(step.source, p.Name) {
			continue
		}
		b.WriteString(slice(st.src, p.Range) + "\n")
		if v, ok := ss.args[p.Name]; ok {
			given[p.Name] = v
		}
	}
	var names []string
	for k := range ss.vars {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !usesName(step.source, k) || isParam(st.flow.File, k) {
			continue
		}
		typ := valueType(ss.vars[k])
		if typ == "" {
			fmt.Fprintf(&b, "param %s: list = null\n", k) // null: any type will do
		} else {
			fmt.Fprintf(&b, "param %s: %s\n", k, typ)
		}
		given[k] = ss.vars[k]
	}
	for _, d := range st.defaults {
		b.WriteString(d + "\n")
	}
	b.WriteString("\n" + step.source + "\n")
	if len(step.binds) > 0 {
		parts := make([]string, len(step.binds))
		for i, n := range step.binds {
			parts[i] = strconv.Quote(n) + ": " + n
		}
		b.WriteString("return { " + strings.Join(parts, ", ") + " }\n")
	}
	f, ds := lang.Load(st.flow.File.Name+".flow", []byte(b.String()))
	if ds.HasErrors() {
		return toolError(fmt.Sprintf("%s: cannot run this step alone: %s", step.name, ds.Error())), nil
	}
	typed, err := f.CheckArgs(given)
	if err != nil {
		return toolError(fmt.Sprintf("%s: %v (pass the value of the param; values given once are remembered)", step.name, err)), nil
	}
	secrets := typed.Secrets()
	s.rememberSecrets(profile, secrets)
	res, page := interp.Run(ctx, f, interp.Options{Args: typed, Browser: l.Browser(), Page: l.Page(), Flows: s.reg.lookup, Host: s.hostFor(req, profile, callMode{})})
	l.SetPage(page)
	if res == nil {
		return nil, rpcError(CodeBuiltinFailed, "the interpreter returned no result", nil)
	}
	if res.Error != nil && res.Error.Kind == core.KindBrowser {
		l.MarkBroken()
	}
	if out, ok := res.Outputs.(map[string]any); ok && res.Success {
		for k, v := range out {
			ss.vars[k] = plainJSON(v)
		}
	}
	return flowResult(res, secrets)
}

func isParam(f *ast.File, name string) bool {
	for _, p := range f.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

// valueType is the param type of a value an earlier step bound.
func valueType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case int, int64:
		return "int"
	case float64, json.Number:
		return "number"
	case []any:
		return "list"
	case map[string]any:
		return "map"
	}
	if v == nil {
		return ""
	}
	// other shapes (a list of maps from table): through JSON
	raw, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	var a any
	if json.Unmarshal(raw, &a) == nil {
		return valueType(a)
	}
	return ""
}

// plainJSON turns a value into its JSON-decoded form ([]any, map[string]any,
// float64...), the shapes CheckArgs takes.
func plainJSON(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(raw, &out) != nil {
		return v
	}
	return out
}
