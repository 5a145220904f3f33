package mcpserver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/diag"
)

// flowEntry is one served flow.
type flowEntry struct {
	name    string
	path    string
	flow    *lang.Flow
	profile string   // `defaults profile:`, "" when absent
	secrets []string // names of the secret params
}

// fileState is what the registry knows of one file of the folder.
type fileState struct {
	mod  time.Time
	size int64
	flow *lang.Flow // nil when it did not load
}

// registry keeps the flows of the folder and the tools built from them.
// reload is serialised by mu.
type registry struct {
	s     *Server
	mu    sync.Mutex
	files map[string]*fileState // path → state
	// served maps tool name → entry, as last registered.
	served map[string]*flowEntry
	// byName is the current flow-name → entry map used by `call`.
	byNameMu sync.RWMutex
	byName   map[string]*flowEntry
	// vaultStamp is the vault file's size and time at the last reload:
	// when it changes, flows with credential params are built again (their
	// enums of account names, accounts.go).
	vaultStamp string
}

func newRegistry(s *Server) *registry {
	return &registry{s: s, files: map[string]*fileState{}, served: map[string]*flowEntry{}, byName: map[string]*flowEntry{}}
}

// lookup resolves `call NAME` against the flows served now.
func (r *registry) lookup(name string) (*lang.Flow, bool) {
	r.byNameMu.RLock()
	defer r.byNameMu.RUnlock()
	e, ok := r.byName[name]
	if !ok {
		return nil, false
	}
	return e.flow, true
}

// reload rescans the folder: files whose size or modification time
// changed are loaded again, deleted files dropped, and the tools updated
// in one batch. It reports whether the tool list changed.
func (r *registry) reload() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	dir := r.s.opts.FlowsDir
	entries, err := os.ReadDir(dir)
	if err != nil {
		r.s.log.Error("cannot read flows folder", "dir", dir, "error", err.Error())
		entries = nil
	}
	seen := map[string]bool{}
	for _, de := range entries {
		name := de.Name()
		if de.IsDir() || strings.HasPrefix(name, ".") || !lang.IsFlowFile(name) {
			continue
		}
		p := filepath.Join(dir, name)
		info, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		seen[p] = true
		old := r.files[p]
		if old != nil && old.mod.Equal(info.ModTime()) && old.size == info.Size() {
			continue
		}
		st := &fileState{mod: info.ModTime(), size: info.Size()}
		f, ds := lang.LoadFile(p)
		if ds.HasErrors() || f == nil {
			r.s.log.Error("flow not served: it does not load", "file", p, "error", oneLine(ds))
		} else {
			for _, d := range ds {
				r.s.log.Warn("flow warning", "file", p, "warning", d.OneLine())
			}
			st.flow = f
		}
		r.files[p] = st
	}
	for p := range r.files {
		if !seen[p] {
			delete(r.files, p)
		}
	}

	// Flow names → files; a name in two files is served by neither.
	paths := map[string][]string{}
	for p, st := range r.files {
		if st.flow != nil {
			paths[st.flow.File.Name] = append(paths[st.flow.File.Name], p)
		}
	}
	want := map[string]*flowEntry{}
	for name, ps := range paths {
		if len(ps) > 1 {
			sort.Strings(ps)
			r.s.log.Error("flow not served: two files declare the same flow name", "flow", name, "files", strings.Join(ps, ", "))
			continue
		}
		st := r.files[ps[0]]
		want[ToolName(name)] = newFlowEntry(ps[0], st.flow)
	}

	var add []*tool
	var remove []string
	accountsChanged := r.vaultChanged(want)
	for tn, e := range want {
		if old, ok := r.served[tn]; ok && old.flow == e.flow && !(accountsChanged && hasCredential(e.flow)) {
			want[tn] = old
			continue
		}
		t, err := r.s.flowTool(e)
		if err != nil {
			r.s.log.Error("flow not served", "file", e.path, "error", err.Error())
			delete(want, tn)
			continue
		}
		add = append(add, t)
	}
	for tn := range r.served {
		if _, ok := want[tn]; !ok {
			remove = append(remove, tn)
		}
	}
	sort.Strings(remove)
	sort.Slice(add, func(i, j int) bool { return add[i].def.Name < add[j].def.Name })
	r.served = want
	byName := make(map[string]*flowEntry, len(want))
	for _, e := range want {
		byName[e.name] = e
	}
	r.byNameMu.Lock()
	r.byName = byName
	r.byNameMu.Unlock()
	for _, t := range add {
		r.s.log.Info("serving flow", "tool", t.def.Name, "file", t.flow.path)
	}
	// A `call` to a flow that is not served fails at run time: say so now.
	for _, e := range want {
		for _, target := range actions.Callees(e.flow.File) {
			if _, ok := byName[target]; !ok {
				r.s.log.Warn("flow calls a flow that is not served", "flow", e.name, "calls", target, "file", e.path)
			}
		}
	}
	for _, tn := range remove {
		r.s.log.Info("flow removed", "tool", tn)
	}
	r.s.setTools(add, remove)
	return len(add) > 0 || len(remove) > 0
}

// vaultChanged reports whether the vault file changed since the last
// reload, when a flow of want has a credential param (else the vault is
// not looked at).
func (r *registry) vaultChanged(want map[string]*flowEntry) bool {
	any := false
	for _, e := range want {
		any = any || hasCredential(e.flow)
	}
	if !any {
		return false
	}
	stamp := "none"
	if info, err := os.Stat(r.s.vault().Path()); err == nil {
		stamp = fmt.Sprintf("%d %d", info.Size(), info.ModTime().UnixNano())
	}
	changed := r.vaultStamp != "" && stamp != r.vaultStamp
	r.vaultStamp = stamp
	return changed
}

func newFlowEntry(path string, f *lang.Flow) *flowEntry {
	e := &flowEntry{name: f.File.Name, path: path, flow: f, profile: f.Profile()}
	for _, p := range f.File.Params {
		if p.Type != nil && p.Type.Name == "secret" {
			e.secrets = append(e.secrets, p.Name)
		}
	}
	return e
}

func oneLine(ds diag.Diagnostics) string {
	if len(ds) == 0 {
		return "unknown error"
	}
	return ds.Error()
}

// FlowTool builds the MCP tool definition of a flow: name workflow_NAME,
// the flow's description, the inputSchema of its params and of the
// server's own arguments (flowHostArgs; lang.Flow.InputSchema) and the
// WorkflowExecutionResult outputSchema.
func FlowTool(f *lang.Flow) (*mcp.Tool, error) {
	if n := len(ToolName(f.Name())); n > 128 {
		return nil, fmt.Errorf("flow name %q is too long for an MCP tool name (%d characters with the workflow_ prefix, at most 128)", f.Name(), n)
	}
	sch, err := f.InputSchema(flowHostArgs...)
	if err != nil {
		return nil, err
	}
	desc := f.File.Description
	if desc == "" {
		desc = "Run the browser workflow " + f.Name() + "."
	}
	return &mcp.Tool{
		Name:         ToolName(f.Name()),
		Description:  desc,
		InputSchema:  sch,
		OutputSchema: OutputSchema,
	}, nil
}

func (s *Server) flowTool(e *flowEntry) (*tool, error) {
	def, err := FlowTool(e.flow)
	if err != nil {
		return nil, err
	}
	if sch, ok := def.InputSchema.(json.RawMessage); ok {
		def.InputSchema = s.credentialEnums(e.flow, sch) // accounts.go
	}
	return &tool{def: def, flow: e}, nil
}
