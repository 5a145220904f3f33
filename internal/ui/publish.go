package ui

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rpa-dev/rpa/internal/atomicfile"
	"github.com/rpa-dev/rpa/internal/msg"
	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
	"github.com/rpa-dev/rpa/internal/serve/publish"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/format"
	"github.com/rpa-dev/rpa/lang/yamlflow"
)

func init() {
	RegisterText(map[string]Text{
		"pub.title":       {En: "Publish %s", Zh: "发布 %s"},
		"pub.intro":       {En: "An agent sees the flow as a tool with this name, description and parameters.", Zh: "智能体会把这个流程看作一个工具，带有以下名称、描述和参数。"},
		"pub.name":        {En: "Tool name", Zh: "工具名称"},
		"pub.name_hint":   {En: "Lower-case letters, digits and _; the tool is workflow_NAME.", Zh: "小写字母、数字和 _；工具名为 workflow_名称。"},
		"pub.description": {En: "Tool description", Zh: "工具描述"},
		"pub.params":      {En: "Parameters", Zh: "参数"},
		"pub.noparams":    {En: "This flow has no parameters.", Zh: "这个流程没有参数。"},
		"pub.param":       {En: "Parameter %s (%s)", Zh: "参数 %s（%s）"},
		"pub.pdesc":       {En: "Description of %s", Zh: "%s 的描述"},
		"pub.pdefault":    {En: "Default of %s", Zh: "%s 的默认值"},
		"pub.prequired":   {En: "%s is required", Zh: "%s 为必填"},
		"pub.secret_hint": {En: "A secret has no default: it is asked for at every run.", Zh: "密文参数没有默认值：每次运行时都要输入。"},
		"pub.json_hint":   {En: "JSON, e.g. [\"a\", \"b\"] or {\"k\": \"v\"}", Zh: "JSON，例如 [\"a\", \"b\"] 或 {\"k\": \"v\"}"},
		"pub.submit":      {En: "Publish", Zh: "发布"},
		"pub.cancel":      {En: "Cancel", Zh: "取消"},
		"pub.save_first":  {En: "Save your changes before publishing.", Zh: "发布前请先保存修改。"},
		"pub.done":        {En: "Published %s.", Zh: "已发布 %s。"},
		"pub.badname":     {En: "Tool name %q: use lower-case letters, digits and _, starting with a letter.", Zh: "工具名称 %q：只能用小写字母、数字和 _，且以字母开头。"},
		"pub.longname":    {En: "Tool name: too long (%d characters; at most %d, so that workflow_NAME has at most MCP's 128).", Zh: "工具名称太长（%d 个字符；最多 %d 个，使 workflow_NAME 不超过 MCP 的 128 个字符）。"},
		"pub.noparam":     {En: "The flow has no parameter %q.", Zh: "流程没有参数 %q。"},
		"pub.needdefault": {En: "%s: give a default, or mark it required.", Zh: "%s：请填写默认值，或设为必填。"},
		"pub.baddefault":  {En: "Default of %s: %s", Zh: "%s 的默认值：%s"},
		"pub.secretdef":   {En: "%s is a secret: it cannot have a default.", Zh: "%s 是密文参数：不能有默认值。"},
		"pub.broken":      {En: "The flow has errors; fix them in the editor first.", Zh: "流程有错误；请先在编辑器中修正。"},
		"pub.refused":     {En: "Not published: %s", Zh: "未发布：%s"},
		"pub.yaml":        {En: "This flow is YAML: publishing writes it again as canonical YAML, so its comments and its layout are not kept. The published file is named after the tool name: publishing under a new name saves it as NAME%s.", Zh: "这是 YAML 流程：发布时会重新写成规范的 YAML，其中的注释和排版不会保留。发布后的文件以工具名称命名：用新名称发布会把它保存为 名称%s。"},
	})
	Handle("POST /api/publish", publishAPI)
}

// PublishRequest is the body of POST /api/publish: the dialog's fields.
type PublishRequest struct {
	// File is the flow file's name in the console folder.
	File string `json:"file"`
	// Hash is the hex SHA-256 of the file as the page loaded it (refused with 409 when the file
	// changed since).
	Hash string `json:"hash"`
	// Name is the flow NAME (the tool is workflow_NAME).
	Name string `json:"name"`
	// Description is the tool's description.
	Description string `json:"description"`
	// Params are the params' new descriptions and defaults, by name; a param left out keeps
	// what it has.
	Params []ParamEdit `json:"params"`
}

// ParamEdit is one param row of the publish dialog.
type ParamEdit struct {
	// Name names the param (params are not renamed here: the flow's body uses the name).
	Name string `json:"name"`
	// Description is the param's new description.
	Description string `json:"description"`
	// Default is the default as typed: a string param's value as is, a number, true/false, or
	// JSON for a list or a map. Ignored when Required.
	Default string `json:"default"`
	// Required drops the default: the caller must give the value.
	Required bool `json:"required"`
}

// fieldError is a refusal naming what to fix (400 with {"error", "field"}).
type fieldError struct {
	field, msg string
}

func (e *fieldError) Error() string { return e.msg }

// rewriteFlow applies the dialog's edits to the flow file src at path and returns the new text,
// printed by the formatter (a .flow keeps its comments) or as canonical YAML.
func rewriteFlow(lang string, path string, src []byte, req PublishRequest) ([]byte, error) {
	f, ds := parseFlow(path, src)
	if f == nil || ds.HasErrors() {
		return nil, &fieldError{"", Translate(lang, "pub.broken")}
	}
	if req.Name != "" {
		if len(req.Name) > ast.MaxFlowName {
			return nil, &fieldError{"name", Translate(lang, "pub.longname", len(req.Name), ast.MaxFlowName)}
		}
		if !ast.IsFlowName(req.Name) {
			return nil, &fieldError{"name", Translate(lang, "pub.badname", req.Name)}
		}
		f.Name = req.Name
	}
	f.Description = strings.TrimSpace(req.Description)
	byName := map[string]*ast.Param{}
	for _, p := range f.Params {
		byName[p.Name] = p
	}
	for _, pe := range req.Params {
		p := byName[pe.Name]
		if p == nil {
			return nil, &fieldError{"param." + pe.Name, Translate(lang, "pub.noparam", pe.Name)}
		}
		p.Description = strings.TrimSpace(pe.Description)
		typ := ""
		if p.Type != nil {
			typ = p.Type.Name
		}
		switch {
		case pe.Required:
			p.Default = nil
		case typ == "secret":
			if pe.Default != "" {
				return nil, &fieldError{"default." + pe.Name, Translate(lang, "pub.secretdef", pe.Name)}
			}
			p.Default = nil
		default:
			d, err := defaultLiteral(src, p, pe.Default)
			if err != nil {
				return nil, &fieldError{"default." + pe.Name, Translate(lang, "pub.baddefault", pe.Name, err.Error())}
			}
			if d == nil {
				return nil, &fieldError{"default." + pe.Name, Translate(lang, "pub.needdefault", pe.Name)}
			}
			p.Default = d
		}
	}
	var out []byte
	if strings.EqualFold(filepath.Ext(path), ".flow") {
		out = format.Flow(f)
	} else {
		out = yamlflow.Write(f)
	}
	return out, nil
}

// parseFlow parses a flow file keeping its comments (Load checks, Parse keeps what the
// formatter needs).
func parseFlow(path string, src []byte) (*ast.File, interface{ HasErrors() bool }) {
	if _, ds := lang.Load(path, src); ds.HasErrors() {
		return nil, ds
	}
	f, ds := lang.Parse(path, src)
	return f, ds
}

// defaultLiteral parses typed, a default as a person typed it, as a literal of p's type: a
// string or an enum value is taken as is, anything else as the DSL's literal syntax (numbers,
// true/false, JSON-like lists and maps). nil, nil means "nothing typed" for a type whose empty
// text is no value.
func defaultLiteral(src []byte, p *ast.Param, typed string) (ast.Expr, error) {
	typ, typText := "string", "string"
	if p.Type != nil {
		typ = p.Type.Name
		r := p.Type.Range
		if r.Start.Offset >= 0 && r.End.Offset <= len(src) && r.Start.Offset < r.End.Offset {
			typText = string(src[r.Start.Offset:r.End.Offset])
		} else {
			typText = typ
		}
	}
	var lit string
	switch typ {
	case "string", "enum":
		if strings.Contains(typed, "{{") {
			return nil, errors.New("a default cannot hold {{ }}")
		}
		lit = strconv.Quote(typed)
	default:
		lit = strings.TrimSpace(typed)
		if lit == "" {
			return nil, nil
		}
	}
	text := "flow x\n\nparam " + p.Name + ": " + typText + " = " + lit + "\n"
	f, ds := lang.Load("default.flow", []byte(text))
	if f == nil || ds.HasErrors() || len(f.File.Params) != 1 || f.File.Params[0].Default == nil {
		msg := "not a " + typ
		for _, d := range ds {
			msg = d.Summary
			break
		}
		return nil, errors.New(msg)
	}
	d := f.File.Params[0].Default
	if _, err := lang.Literal(d); err != nil {
		return nil, err
	}
	return d, nil
}

// publishAPI is the publish dialog's submit: rewrite the flow's header and params, then publish
// it as `rpa publish` does (publish.Source): into the served folder as NAME.ext, which is the
// file itself when the console shows the served folder (a renamed flow's old file is removed);
// else the console folder's file gets the new text too.
// Answers {"tool", "file", "dest"}; 409 when the file changed since the page loaded; 400 with
// {"error", "field"} for a field to fix; 422 with {"error", "diagnostics"} when the flow would
// not load in the served folder.
func publishAPI(s *Server, w http.ResponseWriter, r *http.Request) {
	var req PublishRequest
	if !s.readJSON(w, r, &req) {
		return
	}
	lg := s.Lang(r)
	e, ok := s.editableFor(w, r, req.File)
	if !ok {
		return
	}
	fi := e.Info
	unlock := s.lockFile(fi.Path)
	defer unlock()
	if e, ok = s.editableFor(w, r, req.File); !ok { // read again under the lock
		return
	}
	src := e.Src // the draft when there is one: publishing makes it the file
	if !isText(src) {
		s.apiErrorFor(w, r, http.StatusUnprocessableEntity, s.T(r, "edit.notutf8", fi.File))
		return
	}
	if hashOf(src) != req.Hash {
		s.apiErrorFor(w, r, http.StatusConflict, s.T(r, "edit.changed"))
		return
	}
	out, err := rewriteFlow(lg, fi.Path, src, req)
	if err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			s.JSON(w, http.StatusBadRequest, map[string]string{"error": msg.Localize(s.Lang(r), fe.msg), "field": fe.field})
			return
		}
		s.apiErrorFor(w, r, http.StatusBadRequest, err.Error())
		return
	}
	nf, ds := lang.Load(fi.Path, out)
	if nf == nil || ds.HasErrors() {
		s.JSON(w, http.StatusUnprocessableEntity, map[string]any{"error": s.T(r, "pub.broken"), "diagnostics": localDiags(s.Lang(r), diagViews(ds, out))})
		return
	}
	// What `rpa publish` does (package publish): into the served folder as NAME plus the
	// extension, loading there, breaking no flow there, its NAME not taken by another file.
	pub, err := publish.Source(fi.Path, out, publish.Options{Dir: s.ServedDir()})
	if err != nil {
		var rf *publish.Refusal
		if errors.As(err, &rf) {
			s.JSON(w, http.StatusUnprocessableEntity, map[string]any{"error": s.T(r, "pub.refused", rf.Msg), "diagnostics": localDiags(s.Lang(r), diagViews(rf.Diags, out))})
			return
		}
		s.apiErrorFor(w, r, http.StatusInternalServerError, s.T(r, "pub.refused", err.Error()))
		return
	}
	switch {
	case filepath.Clean(pub.Path) == filepath.Clean(fi.Path):
		// Published in place (the console shows the served folder).
	case s.servedSame():
		// Renamed in the served folder: the file follows its NAME, the old one goes (else the
		// old NAME would stay a tool). A new flow has no old file.
		if err := os.Remove(fi.Path); err != nil && (e.FileSrc != nil || !errors.Is(err, os.ErrNotExist)) {
			s.apiErrorFor(w, r, http.StatusInternalServerError, s.T(r, "edit.savefailed", err.Error()))
			return
		}
	default:
		// The console's folder keeps the dialog's edits too.
		if err := atomicfile.WriteLike(fi.Path, fi.Path, out); err != nil {
			s.apiErrorFor(w, r, http.StatusInternalServerError, s.T(r, "edit.savefailed", err.Error()))
			return
		}
	}
	if err := s.dropDraft(fi.File); err != nil {
		s.apiErrorFor(w, r, http.StatusInternalServerError, s.T(r, "edit.savefailed", err.Error()))
		return
	}
	if s.opts.Tools != nil {
		s.opts.Tools.Reload() // the tool list is current when the Run page opens
	}
	tool := mcpserver.ToolName(nf.File.Name)
	s.Logf("ui: published %s as %s", fi.File, tool)
	s.JSON(w, http.StatusOK, map[string]string{"tool": tool, "name": nf.File.Name, "file": filepath.Base(pub.Path), "dest": pub.Path, "message": s.T(r, "pub.done", tool)})
}
