package ui

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/rpa-dev/rpa/internal/atomicfile"
	"github.com/rpa-dev/rpa/internal/runs/heal"
	"github.com/rpa-dev/rpa/lang"
)

// Healing proposals of a flow (docs/healing.md): the patch `rpa heal` would
// propose from the marks of its recorded runs, with its diff, and Apply,
// which writes the patched flow (temp file + rename) only when the file is
// still the one the diff was made from and the proposals are still the
// ones shown.

func init() {
	RegisterText(map[string]Text{
		"heal.title":       {En: "Healing proposals for %s", Zh: "%s 的自愈建议"},
		"heal.intro":       {En: "From the selectors that matched, healed or stopped matching in the last %d runs of each line.", Zh: "依据每一行最近 %d 次运行中选择器的匹配、自愈或失配情况。"},
		"heal.none":        {En: "Nothing to propose for %s (%d marks recorded).", Zh: "%s 没有可提出的修改（已记录 %d 条标记）。"},
		"heal.line":        {En: "Line", Zh: "行"},
		"heal.kind":        {En: "Change", Zh: "修改类型"},
		"heal.old":         {En: "Selectors now", Zh: "当前选择器"},
		"heal.new":         {En: "Proposed selectors", Zh: "建议的选择器"},
		"heal.note":        {En: "Why", Zh: "原因"},
		"heal.k.healed":    {En: "healed", Zh: "已自愈"},
		"heal.k.reorder":   {En: "reorder", Zh: "调整顺序"},
		"heal.k.stale":     {En: "stale", Zh: "已失效"},
		"heal.k.suggested": {En: "suggested", Zh: "建议"},
		"heal.diff":        {En: "Changes to %s", Zh: "对 %s 的修改"},
		"heal.apply":       {En: "Apply the changes to %s", Zh: "将修改应用到 %s"},
		"heal.applied":     {En: "The changes were written to %s.", Zh: "修改已写入 %s。"},
		"heal.changed":     {En: "%s changed since these proposals were shown; nothing was written. Look at the new proposals below.", Zh: "显示这些建议之后 %s 已被修改；没有写入任何内容。请查看下面的新建议。"},
		"heal.nofile":      {En: "There is no flow file %s in this console's folder.", Zh: "本控制台的文件夹中没有流程文件 %s。"},
		"heal.parse":       {En: "%s does not parse; fix it in the editor first.", Zh: "%s 无法解析；请先在编辑器中修正。"},
		"heal.failed":      {En: "The patch could not be made: %s", Zh: "无法生成补丁：%s"},
		"heal.proposals":   {En: "Proposals", Zh: "建议"},
		"heal.run":         {En: "Runs of %s", Zh: "%s 的运行记录"},
	})
	Handle("GET /heal/{file}", healPage)
	Handle("POST /heal/{file}/apply", healApply)
}

// healState is a flow file's proposals as of its current text.
type healState struct {
	File, Path, Name string
	Src, Out         []byte
	Props            []heal.Proposal
	Marks            int
	Diff             string
}

// healOf reads file from disk (not a cache: Apply compares with what is on
// disk) and proposes its patch. msgKey/arg say why it cannot (a text key).
func (s *Server) healOf(file string) (hs *healState, status int, msgKey string, arg string) {
	fi, _, ok := s.FlowFile(file)
	if !ok {
		return nil, http.StatusNotFound, "heal.nofile", file
	}
	src, err := os.ReadFile(fi.Path)
	if err != nil {
		return nil, http.StatusNotFound, "heal.nofile", file
	}
	f, ds := lang.Parse(file, src)
	if ds.HasErrors() || f == nil {
		return nil, http.StatusConflict, "heal.parse", file
	}
	st, err := s.runStore()
	if err != nil {
		return nil, http.StatusInternalServerError, "runs.store", err.Error()
	}
	marks, err := st.Marks(f.Name, 0)
	if err != nil {
		return nil, http.StatusInternalServerError, "runs.store", err.Error()
	}
	hs = &healState{File: file, Path: fi.Path, Name: f.Name, Src: src, Marks: len(marks)}
	hs.Props = heal.Propose(f, marks, heal.DefaultRuns)
	if len(hs.Props) == 0 {
		return hs, http.StatusOK, "", ""
	}
	hs.Out, err = heal.Apply(file, src, f, hs.Props)
	if err != nil {
		return nil, http.StatusInternalServerError, "heal.failed", err.Error()
	}
	hs.Diff = heal.Diff(file, src, hs.Out)
	return hs, http.StatusOK, "", ""
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// diffLine is one line of the diff with its kind (add, del, hunk, ctx).
type diffLine struct{ Kind, Text string }

func diffLines(d string) []diffLine {
	var out []diffLine
	for _, l := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
		k := "ctx"
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			k = "file"
		case strings.HasPrefix(l, "@@"):
			k = "hunk"
		case strings.HasPrefix(l, "+"):
			k = "add"
		case strings.HasPrefix(l, "-"):
			k = "del"
		}
		out = append(out, diffLine{k, l})
	}
	return out
}

// propRow is one proposal as the page shows it.
type propRow struct {
	heal.Proposal
	KindText string
	OldText  string
	NewText  string
	NoteText string // Note in the request's language
}

// healPage shows the proposals of {file} with the diff and Apply.
func healPage(s *Server, w http.ResponseWriter, r *http.Request) {
	file := r.PathValue("file")
	hs, status, key, arg := s.healOf(file)
	if hs == nil {
		s.RenderError(w, r, status, key, arg)
		return
	}
	s.renderHeal(w, r, http.StatusOK, hs, r.URL.Query().Get("m"))
}

func (s *Server) renderHeal(w http.ResponseWriter, r *http.Request, status int, hs *healState, m string) {
	data := map[string]any{
		"Title":    s.T(r, "heal.title", hs.Name),
		"Intro":    s.T(r, "heal.intro", heal.DefaultRuns),
		"File":     hs.File,
		"Runs":     "/runs?flow=" + url.QueryEscape(hs.Name),
		"RunsText": s.T(r, "heal.run", hs.Name),
	}
	switch m {
	case "applied":
		data["Flash"] = s.T(r, "heal.applied", hs.File)
	case "changed":
		data["Problem"] = s.T(r, "heal.changed", hs.File)
	}
	if len(hs.Props) == 0 {
		data["None"] = s.T(r, "heal.none", hs.Name, hs.Marks)
	} else {
		var rows []propRow
		for _, p := range hs.Props {
			rows = append(rows, propRow{Proposal: p, KindText: s.T(r, "heal.k."+p.Kind), OldText: strings.Join(p.Old, " | "), NewText: strings.Join(p.New, " | "), NoteText: p.NoteIn(s.Lang(r))})
		}
		data["Props"] = rows
		data["DiffTitle"] = s.T(r, "heal.diff", hs.File)
		data["Diff"] = diffLines(hs.Diff)
		data["Apply"] = s.T(r, "heal.apply", hs.File)
		data["SrcSum"] = sum(hs.Src)
		data["OutSum"] = sum(hs.Out)
	}
	s.RenderStatus(w, r, status, "runs_heal", "nav.runs", data)
}

// healApply writes the proposals shown (form fields src and out: the
// SHA-256 of the file's text and of the patched text the page showed) to
// {file}, atomically; a file or proposals changed since are refused (409)
// with the new proposals shown.
func healApply(s *Server, w http.ResponseWriter, r *http.Request) {
	file := r.PathValue("file")
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	fi, _, ok := s.FlowFile(file)
	if !ok {
		s.RenderError(w, r, http.StatusNotFound, "heal.nofile", file)
		return
	}
	unlock := s.lockFile(fi.Path)
	defer unlock()
	hs, status, key, arg := s.healOf(file)
	if hs == nil {
		s.RenderError(w, r, status, key, arg)
		return
	}
	if len(hs.Props) == 0 || sum(hs.Src) != r.PostForm.Get("src") || sum(hs.Out) != r.PostForm.Get("out") {
		s.renderHeal(w, r, http.StatusConflict, hs, "changed")
		return
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(hs.Path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := atomicfile.Write(hs.Path, hs.Out, mode); err != nil {
		s.RenderError(w, r, http.StatusInternalServerError, "heal.failed", err.Error())
		return
	}
	s.Logf("ui: heal: %s patched (%d changes)", file, len(hs.Props))
	http.Redirect(w, r, "/heal/"+url.PathEscape(file)+"?m=applied", http.StatusSeeOther)
}
