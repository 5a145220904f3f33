package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/runs/heal"
	"github.com/rpa-dev/rpa/internal/serve/mrtr"
	"github.com/rpa-dev/rpa/lang"
)

// FlowURIPrefix starts the flow resources of healing:
// rpa://flows/{name}/heal.
const FlowURIPrefix = "rpa://flows/"

// healCtx returns ctx carrying the heal hook of one workflow call (mode:
// Options.Heal over the flow's `defaults heal:` over suggest; marks kept in
// the run store) and a func writing the call's marks, to call when the run
// ends. With mode off it returns ctx as it is.
func (s *Server) healCtx(ctx context.Context, e *flowEntry, rec *callRecord) (context.Context, func()) {
	var store heal.Store
	if st := s.runsOf(); st != nil {
		store = st
	}
	run := ""
	if rec != nil {
		run = rec.rec.ID()
	}
	ctx, flush := heal.Attach(ctx, s.opts.Heal, e.flow, store, run)
	return ctx, func() {
		if err := flush(); err != nil {
			s.log.Warn("healing marks not kept", "tool", "workflow_"+e.name, "err", err)
		}
	}
}

// HealProposals is the JSON of the resource rpa://flows/{name}/heal: the
// patch `rpa heal` would propose for the flow from its recorded runs.
type HealProposals struct {
	Flow      string          `json:"flow"`
	Proposals []heal.Proposal `json:"proposals"`
	// Diff is the unified diff of the patched flow ("" when nothing is
	// proposed); its file names are the flow's base name.
	Diff string `json:"diff"`
}

// addHealResources registers rpa://flows/{name}/heal (a no-op without a
// run store: the marks live there).
func (s *Server) addHealResources() {
	if s.runsOf() == nil {
		return
	}
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "flow-heal", Title: "Healing proposals of a flow",
		URITemplate: FlowURIPrefix + "{name}/heal", MIMEType: "application/json",
		Description: "The patch healing proposes for the flow from its recorded runs: {flow, proposals: [{line, kind: healed|reorder|stale, old, new, note}], diff} (docs/healing.md; `rpa heal` prints the same diff)."},
		s.readHeal)
}

// readHeal serves rpa://flows/{name}/heal.
func (s *Server) readHeal(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	rest, ok := strings.CutPrefix(uri, FlowURIPrefix)
	name, ok2 := strings.CutSuffix(rest, "/heal")
	if !ok || !ok2 || s.reg == nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	f, found := s.reg.lookup(name)
	if !found || f == nil || f.File == nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	hp, err := proposalsOf(s, f)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(hp)
	if err != nil {
		return nil, err
	}
	// The same for every caller (from every run of the flow): public.
	return &mcp.ReadResourceResult{Cacheable: mcp.Cacheable{CacheScope: mrtr.CachePublic},
		Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}

// proposalsOf computes the proposals and diff of f (its source read from
// its file; a flow without a file gets the proposals without a diff).
func proposalsOf(s *Server, f *lang.Flow) (*HealProposals, error) {
	marks, err := s.runsOf().Marks(f.File.Name, 0)
	if err != nil {
		return nil, err
	}
	hp := &HealProposals{Flow: f.File.Name, Proposals: heal.Propose(f.File, marks, 0)}
	if hp.Proposals == nil {
		hp.Proposals = []heal.Proposal{}
	}
	if len(hp.Proposals) == 0 || f.Path == "" {
		return hp, nil
	}
	src, err := os.ReadFile(f.Path)
	if err != nil {
		return hp, nil
	}
	base := filepath.Base(f.Path)
	g, ds := lang.Parse(base, src)
	if ds.HasErrors() {
		return hp, nil
	}
	out, err := heal.Apply(base, src, g, hp.Proposals)
	if err == nil {
		hp.Diff = heal.Diff(base, src, out)
	}
	return hp, nil
}
