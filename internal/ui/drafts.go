package ui

import (
	"bytes"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/rpa-dev/rpa/internal/atomicfile"
	"github.com/rpa-dev/rpa/internal/runs/heal"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/format"
)

// Drafts and new flows. When the console shows the served folder, Save writes the editor's text
// as a draft, FOLDER/.drafts/FILE (a dot folder: no server loads it), and agents keep the
// published file until Publish (the publish dialog) makes the draft the file and removes it.
// The Flows page marks a flow whose draft differs from its file "changed since publish", with
// its changes (a diff of the file and the draft), and a flow that is only a draft (a new flow)
// "draft". New flow makes one from a template. With --publish-to (the console's folder is not
// the served one) Save writes the file, as its files are not served.

func init() {
	RegisterText(map[string]Text{
		"flows.new":          {En: "New flow", Zh: "新建流程"},
		"flows.draft":        {En: "draft, not published", Zh: "草稿，未发布"},
		"flows.changed":      {En: "changed since publish", Zh: "发布后有修改"},
		"flows.changes":      {En: "Changes of %s", Zh: "%s 的修改"},
		"act.changes":        {En: "Changes…", Zh: "修改…"},
		"new.title":          {En: "New flow", Zh: "新建流程"},
		"new.intro":          {En: "A new flow starts as a draft: agents see it once you publish it.", Zh: "新流程先保存为草稿：发布之后智能体才能看到它。"},
		"new.name":           {En: "Flow name", Zh: "流程名称"},
		"new.nameHint":       {En: "Lower-case letters, digits and _; the file is NAME.flow and the tool workflow_NAME.", Zh: "小写字母、数字和 _；文件为 NAME.flow，工具为 workflow_NAME。"},
		"new.description":    {En: "Description", Zh: "描述"},
		"new.template":       {En: "Start from", Zh: "起点"},
		"new.tplOpen":        {En: "A web page: the flow opens its address", Zh: "网页：流程打开它的地址"},
		"new.tplRecord":      {En: "A recording: record what you do in a browser window", Zh: "录制：录下你在浏览器窗口中的操作"},
		"new.url":            {En: "Address of the page", Zh: "页面地址"},
		"new.create":         {En: "Create the flow", Zh: "创建流程"},
		"new.badName":        {En: "The flow name must start with a lower-case letter and hold only lower-case letters, digits and _.", Zh: "流程名称必须以小写字母开头，只含小写字母、数字和 _。"},
		"new.longName":       {En: "The flow name is too long (%d characters; at most %d, so that its tool name workflow_NAME has at most MCP's 128).", Zh: "流程名称太长（%d 个字符；最多 %d 个，使工具名称 workflow_NAME 不超过 MCP 的 128 个字符）。"},
		"new.exists":         {En: "%s already exists in the folder; choose another name.", Zh: "文件夹中已有 %s；请换一个名称。"},
		"new.badURL":         {En: "The address must start with http:// or https://.", Zh: "地址必须以 http:// 或 https:// 开头。"},
		"new.failed":         {En: "The flow could not be created: %s", Zh: "无法创建流程：%s"},
		"new.urlParam":       {En: "Address of the site", Zh: "网站地址"},
		"draft.editing":      {En: "You are editing a draft: agents still get the published flow until you publish it.", Zh: "你正在编辑草稿：发布之前，智能体使用的仍是已发布的流程。"},
		"draft.editingNew":   {En: "This flow is a draft: agents see it once you publish it.", Zh: "此流程是草稿：发布之后智能体才能看到它。"},
		"draft.saved":        {En: "Saved as a draft.", Zh: "已保存为草稿。"},
		"draft.review":       {En: "Review the changes", Zh: "查看修改"},
		"draft.diff":         {En: "The published flow and the draft", Zh: "已发布的流程与草稿"},
		"draft.none":         {En: "%s has no draft: the editor's text is the published flow.", Zh: "%s 没有草稿：编辑器中的文本就是已发布的流程。"},
		"draft.publish":      {En: "Publish the draft…", Zh: "发布草稿…"},
		"draft.discard":      {En: "Discard the draft", Zh: "丢弃草稿"},
		"draft.discardHint":  {En: "Discarding keeps the published flow and removes the draft for good.", Zh: "丢弃后保留已发布的流程，草稿将被永久删除。"},
		"draft.discarded":    {En: "The draft of %s was discarded.", Zh: "已丢弃 %s 的草稿。"},
		"draft.newDiscarded": {En: "The draft of %s was discarded; it was never published.", Zh: "已丢弃 %s 的草稿；它从未发布。"},
	})
	Handle("GET /flows/new", newFlowPage)
	Handle("POST /flows/new", newFlowCreate)
	Handle("GET /flows/{file}/changes", changesPage)
	Handle("POST /flows/{file}/discard", discardDraft)
}

// draftsDir is the drafts' folder inside the console's folder.
const draftsDir = ".drafts"

// draftPath is where file's draft lives.
func (s *Server) draftPath(file string) string {
	return filepath.Join(s.FlowsDir(), draftsDir, file)
}

// drafting reports whether Save writes drafts: the console shows the served folder.
func (s *Server) drafting() bool { return s.servedSame() }

// validFile reports whether file may name a flow file of the folder (no path, no dot file, a
// flow extension).
func validFile(file string) bool {
	return file != "" && filepath.Base(file) == file && !strings.HasPrefix(file, ".") && lang.IsFlowFile(file)
}

// edited is a flow as the editor works on it.
type edited struct {
	// Info describes the text the editor edits (the draft's when there is one); Info.Path is
	// the file's path in the folder (where it is published in place).
	Info FlowInfo
	// Src is the editor's text: the draft, else the file.
	Src []byte
	// Draft says Src is a draft; FileSrc is the file's text (nil for a new flow: no file yet).
	Draft   bool
	FileSrc []byte
}

// editableFor is editable(file) for an API request: when the folder has neither the file nor a
// draft of it, it answers 404 (edit.noflow, in r's language) and ok is false.
func (s *Server) editableFor(w http.ResponseWriter, r *http.Request, file string) (e edited, ok bool) {
	if e, ok = s.editable(file); !ok {
		s.apiErrorFor(w, r, http.StatusNotFound, s.T(r, "edit.noflow", file))
	}
	return e, ok
}

// editable reads file's flow as the editor edits it, from disk (call it under lockFile when
// writing). ok is false when the folder has neither the file nor a draft of it.
func (s *Server) editable(file string) (e edited, ok bool) {
	if !validFile(file) {
		return e, false
	}
	fi, _, inFolder := s.FlowFile(file)
	if inFolder {
		src, err := os.ReadFile(fi.Path)
		if err != nil {
			return e, false
		}
		e.Info, e.Src, e.FileSrc = fi, src, src
	} else {
		e.Info = FlowInfo{File: file, Path: filepath.Join(s.FlowsDir(), file)}
	}
	dp := s.draftPath(file)
	if fi, err := os.Lstat(dp); err != nil || !fi.Mode().IsRegular() {
		return e, inFolder // no draft; a link there is none either (it could show another file)
	}
	d, err := os.ReadFile(dp)
	if err != nil {
		return e, inFolder
	}
	f, ds := lang.LoadAt(e.Info.Path, d)
	if f != nil && ds.HasErrors() {
		f = nil
	}
	info := flowInfo(e.Info.Path, d, f, ds)
	info.Published, info.Draft, info.New = e.Info.Published, true, !inFolder
	e.Info, e.Src, e.Draft = *info, d, true
	return e, true
}

// saveEdited writes the editor's text src of e: the draft when drafting (no draft when src is
// the published file again), else the file. It reports whether a draft holds it.
func (s *Server) saveEdited(e edited, src []byte) (draft bool, err error) {
	if !s.drafting() {
		return false, atomicfile.WriteLike(e.Info.Path, e.Info.Path, src)
	}
	dp := s.draftPath(e.Info.File)
	if e.FileSrc != nil && bytes.Equal(src, e.FileSrc) {
		if err := os.Remove(dp); err != nil && !errors.Is(err, os.ErrNotExist) {
			return false, err
		}
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(dp), 0o700); err != nil {
		return false, err
	}
	return true, atomicfile.Write(dp, src, 0o600)
}

// dropDraft removes file's draft once it is published (no draft is not an error).
func (s *Server) dropDraft(file string) error {
	if err := os.Remove(s.draftPath(file)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// draftsCache scans the drafts' folder.
func (s *Server) draftsCache() *folderCache {
	return s.Value(draftsKey{}, func() any { return &folderCache{dir: filepath.Join(s.FlowsDir(), draftsDir)} }).(*folderCache)
}

type draftsKey struct{}

// withDrafts marks the flows of list whose draft differs from the file and appends the flows
// that are only drafts (their Path is where their file will be).
func (s *Server) withDrafts(list []FlowInfo, sc, drafts *folderScan) []FlowInfo {
	if len(drafts.flows) == 0 {
		return list
	}
	for i := range list {
		if d, ok := drafts.srcs[list[i].File]; ok && !bytes.Equal(d, sc.srcs[list[i].File]) {
			list[i].Draft = true
		}
	}
	for _, f := range drafts.flows {
		if _, ok := sc.srcs[f.File]; ok {
			continue
		}
		fi := *f
		fi.Path, fi.Published, fi.Draft, fi.New = filepath.Join(s.FlowsDir(), f.File), false, true, true
		list = append(list, fi)
	}
	return list
}

// newFlowPage is the New flow form.
func newFlowPage(s *Server, w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	tpl := q.Get("template")
	if tpl == "" {
		tpl = "open"
	}
	s.RenderTitle(w, r, "flows_new", s.T(r, "new.title"), map[string]any{
		"Name": q.Get("name"), "Description": q.Get("description"), "URL": q.Get("url"), "Template": tpl, "Error": q.Get("e"),
	})
}

// newFlowCreate makes a new flow from the form: "open" writes NAME.flow (as a draft when
// drafting) opening the address, "record" goes to the Record page with the name and address.
func newFlowCreate(s *Server, w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	name, desc := strings.TrimSpace(r.PostForm.Get("name")), strings.TrimSpace(r.PostForm.Get("description"))
	addr, tpl := strings.TrimSpace(r.PostForm.Get("url")), r.PostForm.Get("template")
	back := func(key string, args ...any) {
		v := url.Values{"name": {name}, "description": {desc}, "url": {addr}, "template": {tpl}, "e": {s.T(r, key, args...)}}
		http.Redirect(w, r, "/flows/new?"+v.Encode(), http.StatusSeeOther)
	}
	if len(name) > ast.MaxFlowName {
		back("new.longName", len(name), ast.MaxFlowName)
		return
	}
	if !ast.IsFlowName(name) {
		back("new.badName")
		return
	}
	if tpl == "record" {
		v := url.Values{"name": {name}, "url": {addr}}
		http.Redirect(w, r, "/record?"+v.Encode(), http.StatusSeeOther)
		return
	}
	if !strings.HasPrefix(addr, "http://") && !strings.HasPrefix(addr, "https://") {
		back("new.badURL")
		return
	}
	file := name + ".flow"
	if _, err := os.Stat(filepath.Join(s.FlowsDir(), file)); err == nil {
		back("new.exists", file)
		return
	}
	if _, err := os.Stat(s.draftPath(file)); err == nil {
		back("new.exists", file)
		return
	}
	src := newFlowText(name, desc, addr, s.T(r, "new.urlParam"))
	e := edited{Info: FlowInfo{File: file, Path: filepath.Join(s.FlowsDir(), file)}}
	unlock := s.lockFile(e.Info.Path)
	defer unlock()
	if _, err := s.saveEdited(e, src); err != nil {
		back("new.failed", err.Error())
		return
	}
	s.Logf("ui: new flow %s", file)
	http.Redirect(w, r, "/flows/"+url.PathEscape(file)+"/edit", http.StatusSeeOther)
}

// newFlowText is the "open a web page" template: a base_url param defaulting to addr, opened.
func newFlowText(name, desc, addr, paramDesc string) []byte {
	var b strings.Builder
	b.WriteString("flow " + name)
	if desc != "" {
		b.WriteString(" " + format.Quote(desc))
	}
	b.WriteString("\n\nparam base_url: string = " + format.Quote(addr) + " " + format.Quote(paramDesc) + "\n\n")
	b.WriteString("open \"{{ base_url }}\"\n")
	return []byte(b.String())
}

// changesPage shows what publishing file's draft changes: the diff of the file and the draft.
func changesPage(s *Server, w http.ResponseWriter, r *http.Request) {
	file := r.PathValue("file")
	e, ok := s.editable(file)
	if !ok {
		s.RenderError(w, r, http.StatusNotFound, "edit.noflow", file)
		return
	}
	if !e.Draft {
		s.RenderError(w, r, http.StatusNotFound, "draft.none", file)
		return
	}
	s.RenderTitle(w, r, "flows_changes", s.T(r, "flows.changes", file), map[string]any{
		"Flow": e.Info, "Diff": diffLines(heal.Diff(file, e.FileSrc, e.Src)),
	})
}

// discardDraft removes file's draft (the published file stays) and goes back to the flows.
func discardDraft(s *Server, w http.ResponseWriter, r *http.Request) {
	file := r.PathValue("file")
	e, ok := s.editable(file)
	if !ok || !e.Draft {
		s.RenderError(w, r, http.StatusNotFound, "draft.none", file)
		return
	}
	unlock := s.lockFile(e.Info.Path)
	defer unlock()
	if err := s.dropDraft(file); err != nil {
		s.RenderError(w, r, http.StatusInternalServerError, "edit.savefailed", err.Error())
		return
	}
	s.Logf("ui: discarded the draft of %s", file)
	http.Redirect(w, r, "/flows", http.StatusSeeOther)
}
