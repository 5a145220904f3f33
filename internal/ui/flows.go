package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/rpa-dev/rpa/internal/msg"
	"github.com/rpa-dev/rpa/lang"
)

func init() {
	RegisterPage(Page{ID: "flows", Path: "/flows", Order: 10, Title: "nav.flows"})
	RegisterText(map[string]Text{
		"nav.flows":         {En: "Flows", Zh: "流程"},
		"flows.folder":      {En: "Folder: %s", Zh: "文件夹：%s"},
		"flows.served":      {En: "Published to: %s", Zh: "发布到：%s"},
		"flows.empty":       {En: "This folder has no flow yet. Record one, or put .flow and .yaml files in it.", Zh: "这个文件夹里还没有流程。录制一个，或把 .flow 和 .yaml 文件放进来。"},
		"flows.caption":     {En: "Flows of the folder", Zh: "文件夹中的流程"},
		"flows.file":        {En: "File", Zh: "文件"},
		"flows.tool":        {En: "Tool", Zh: "工具"},
		"flows.description": {En: "Description", Zh: "描述"},
		"flows.params":      {En: "Params", Zh: "参数"},
		"flows.state":       {En: "State", Zh: "状态"},
		"flows.actions":     {En: "Actions", Zh: "操作"},
		"flows.published":   {En: "published", Zh: "已发布"},
		"flows.unpublished": {En: "not published", Zh: "未发布"},
		"flows.broken":      {En: "%d errors", Zh: "%d 个错误"},
		"flows.broken1":     {En: "1 error", Zh: "1 个错误"},
		"flows.warning1":    {En: "1 warning", Zh: "1 个警告"},
		"flows.warnings":    {En: "%d warnings", Zh: "%d 个警告"},
		"flows.edit":        {En: "Edit %s", Zh: "编辑 %s"},
		"flows.run":         {En: "Run %s", Zh: "运行 %s"},
		"flows.publish":     {En: "Publish %s", Zh: "发布 %s"},
		"act.edit":          {En: "Edit", Zh: "编辑"},
		"act.run":           {En: "Run", Zh: "运行"},
		"act.publish":       {En: "Publish…", Zh: "发布…"},
		"flows.required":    {En: "required", Zh: "必填"},
		"flows.secret":      {En: "secret", Zh: "密文"},
		"flows.diags":       {En: "Problems of %s", Zh: "%s 的问题"},
		"edit.title":        {En: "Edit %s", Zh: "编辑 %s"},
		"edit.text":         {En: "Flow text", Zh: "流程文本"},
		"edit.save":         {En: "Save", Zh: "保存"},
		"edit.saved":        {En: "Saved.", Zh: "已保存。"},
		"edit.checking":     {En: "Checking…", Zh: "检查中…"},
		"edit.clean":        {En: "No problems.", Zh: "没有问题。"},
		"edit.problems":     {En: "Problems", Zh: "问题"},
		"edit.changed":      {En: "The file changed on disk since you opened it; nothing was saved. Copy your text, reload the page, and apply your change again.", Zh: "打开之后磁盘上的文件已被修改；没有保存。请复制你的文本，重新加载页面，再次修改。"},
		"edit.unsaved":      {En: "Unsaved changes", Zh: "有未保存的修改"},
		"edit.back":         {En: "Back to the flows", Zh: "返回流程列表"},
		"edit.line_numbers": {En: "Line numbers", Zh: "行号"},
		"edit.savefailed":   {En: "Saving failed: %s", Zh: "保存失败：%s"},
		"edit.noflow":       {En: "There is no flow file %q in the folder.", Zh: "文件夹中没有流程文件 %q。"},
		"edit.notutf8": {
			En: "%[1]s is not UTF-8 text (it holds bytes of another encoding, or NUL bytes). The editor shows it read-only and never saves over it: saving would replace those bytes for good. Convert it to UTF-8 first; on a Chinese desktop the encoding is most likely GB18030 (which covers GBK and GB2312): iconv -f GB18030 -t UTF-8 %[1]s > %[1]s.utf8 && mv %[1]s.utf8 %[1]s (on Windows: open it in Notepad and save it with the encoding UTF-8).",
			Zh: "%[1]s 不是 UTF-8 文本（含有其他编码的字节或 NUL 字节）。编辑器只以只读方式显示它，不会保存覆盖它：保存会永久替换这些字节。请先把它转换为 UTF-8；在中文桌面上，它很可能是 GB18030 编码（涵盖 GBK 和 GB2312）：iconv -f GB18030 -t UTF-8 %[1]s > %[1]s.utf8 && mv %[1]s.utf8 %[1]s（Windows 上：用记事本打开，另存为 UTF-8 编码）。",
		},
	})
	Handle("GET /flows", flowsPage)
	Handle("GET /flows/{file}/edit", editPage)
	Handle("POST /api/check", checkAPI)
	Handle("POST /api/save", saveAPI)
}

// flowsPage lists the flows of the folder. The table is rendered once per version of the
// folder (and of the served folder) and language: with 500 flows, rendering it is most of the
// page's time.
func flowsPage(s *Server, w http.ResponseWriter, r *http.Request) {
	list, version := s.flowList()
	lg := s.Lang(r)
	tc := s.Value(tableKey{}, func() any { return &tableCache{} }).(*tableCache)
	tc.mu.Lock()
	table, ok := tc.html[lg], tc.version == version
	tc.mu.Unlock()
	if !ok || table == "" {
		var err error
		if table, err = s.Fragment(r, "flows", "flowtable", list); err != nil {
			http.Error(w, "ui: rendering the flows: "+err.Error(), http.StatusInternalServerError)
			return
		}
		tc.mu.Lock()
		if tc.version != version {
			tc.version, tc.html = version, map[string]template.HTML{}
		}
		tc.html[lg] = table
		tc.mu.Unlock()
	}
	s.Render(w, r, "flows", "nav.flows", map[string]any{
		"Table": table, "Dir": s.FlowsDir(), "Served": s.ServedDir(), "Same": s.servedSame(),
		"Published": r.URL.Query().Get("published"),
	})
}

type tableKey struct{}

// tableCache is the flows table rendered for one version of the folders, per language.
type tableCache struct {
	mu      sync.Mutex
	version [3]*folderScan
	html    map[string]template.HTML
}

// editPage shows a flow's text in the editor.
func editPage(s *Server, w http.ResponseWriter, r *http.Request) {
	file := r.PathValue("file")
	e, ok := s.editable(file)
	if !ok {
		s.RenderError(w, r, http.StatusNotFound, "edit.noflow", file)
		return
	}
	fi, src := e.Info, e.Src
	text, readOnly := string(src), ""
	if !isText(src) {
		// Shown, never saved: the page's text is not the file's bytes.
		text = strings.ReplaceAll(strings.ToValidUTF8(text, "\uFFFD"), "\x00", "\u2400")
		readOnly = s.T(r, "edit.notutf8", fi.File)
	}
	s.RenderTitle(w, r, "flows_edit", s.T(r, "edit.title", file), map[string]any{
		"Flow": fi, "Text": text, "Hash": hashOf(src), "Lines": lineNumbers(src), "ReadOnly": readOnly, "YAMLExt": yamlExt(fi.File),
		"Saved": r.URL.Query().Has("saved"), "Publish": r.URL.Query().Has("publish"), "Draft": e.Draft,
	})
}

// yamlExt is file's extension when it is a YAML flow (".yaml", ".yml"), else "".
func yamlExt(file string) string {
	ext := filepath.Ext(file)
	if strings.EqualFold(ext, ".yaml") || strings.EqualFold(ext, ".yml") {
		return ext
	}
	return ""
}

// isText reports whether src is text the editor can round-trip: valid UTF-8 without NUL bytes.
// Anything else (a GBK file, a binary) would come back from the browser with U+FFFD in place of
// its bytes, so the editor and the publish dialog never write over such a file.
func isText(src []byte) bool {
	return utf8.Valid(src) && bytes.IndexByte(src, 0) < 0
}

// apiError writes {"error": msg} with status.
func (s *Server) apiError(w http.ResponseWriter, status int, msg string) {
	s.JSON(w, status, map[string]string{"error": msg})
}

// apiErrorFor is apiError with text in r's language (msg.Localize: a text made in English,
// such as an error of the checker or the file system, is said in Chinese where the catalog can).
func (s *Server) apiErrorFor(w http.ResponseWriter, r *http.Request, status int, text string) {
	s.apiError(w, status, msg.Localize(s.Lang(r), text))
}

// errText is err's text for a person reading r's language (msg.Localize: said in Chinese where
// the catalog can), to put into a text of the catalog's.
func (s *Server) errText(r *http.Request, err error) string {
	return msg.Localize(s.Lang(r), err.Error())
}

// readJSON decodes a request body (at most 4 MB) into v (a pointer to a struct); on a problem
// it answers 400 saying what was wrong and what the body should be (the struct's JSON shape,
// e.g. {"file": string, "text": string}), never the decoder's Go terms, and returns false.
func (s *Server) readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	if err := dec.Decode(v); err != nil {
		s.apiErrorFor(w, r, http.StatusBadRequest, bodyProblem(err)+"; the body must be a JSON object "+jsonShape(v))
		return false
	}
	return true
}

// maxBody is the largest request body the console reads (4 MB).
const maxBody = 4 << 20

// bodyProblem says in plain words what was wrong with a request body.
func bodyProblem(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	var me *http.MaxBytesError
	switch {
	case errors.Is(err, io.EOF):
		return "the request body is empty"
	case errors.As(err, &te) && te.Field != "":
		k := jsonKind(te.Type)
		switch k[0] {
		case 'a', 'o':
			k = "an " + k
		case 's', 'n':
			k = "a " + k
		}
		return fmt.Sprintf("field %s is a JSON %s where %s belongs", lang.Echo(te.Field), te.Value, k)
	case errors.As(err, &te):
		return fmt.Sprintf("the request body is a JSON %s, not an object", te.Value)
	case errors.As(err, &se):
		return fmt.Sprintf("the request body is not valid JSON (at byte %d)", se.Offset)
	case errors.As(err, &me):
		return fmt.Sprintf("the request body is larger than %d MB", me.Limit>>20)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the request body ends in the middle of its JSON"
	}
	return "the request body could not be read"
}

// jsonKind names a Go type by the JSON it decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "object"
}

// jsonShape is the JSON shape of the struct v points to: {"file": string, "params": array}.
func jsonShape(v any) string {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return ""
	}
	var parts []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		parts = append(parts, strconv.Quote(name)+": "+jsonKind(f.Type))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// checkRequest is the body of POST /api/check and /api/save.
type checkRequest struct {
	// File is the flow file's name in the folder.
	File string `json:"file"`
	// Text is the editor's text.
	Text string `json:"text"`
	// Hash is the hex SHA-256 of the file as the editor loaded it (save only).
	Hash string `json:"hash"`
}

// checkAPI checks the editor's text as the file would load in its folder: {"diagnostics": [...]}.
func checkAPI(s *Server, w http.ResponseWriter, r *http.Request) {
	var req checkRequest
	if !s.readJSON(w, r, &req) {
		return
	}
	e, ok := s.editableFor(w, r, req.File) // a flow of the folder, or a new flow that is a draft only
	if !ok {
		return
	}
	s.JSON(w, http.StatusOK, map[string]any{"diagnostics": localDiags(s.Lang(r), checkText(e.Info.Path, []byte(req.Text)))})
}

// localDiags is ds with their texts in lang (msg.Localize); Severity and Summary stay the
// checker's (for programs).
func localDiags(lang string, ds []DiagView) []DiagView {
	out := make([]DiagView, len(ds))
	for i, d := range ds {
		d.Text = msg.Localize(lang, d.Text)
		out[i] = d
	}
	return out
}

// checkText is the diagnostics of src loaded as the file at path of its folder.
func checkText(path string, src []byte) []DiagView {
	_, _, ds := lang.LoadInFolder(path, src)
	var mine = ds[:0:0]
	for _, d := range ds {
		if d.Subject.File == "" || sameBase(d.Subject.File, path) {
			mine = append(mine, d)
		}
	}
	return diagViews(mine, src)
}

// saveAPI writes the editor's text (atomically) to its draft when the console shows the served
// folder (drafts.go; to no draft when it is the published file again), else to its file, unless
// what it edits on disk is not
// UTF-8 text (422: see isText) or changed since the editor loaded it (409): {"hash": new hash, "diagnostics": [...]}. A flow with errors
// is saved too (it is the person's work); the diagnostics say what is wrong.
func saveAPI(s *Server, w http.ResponseWriter, r *http.Request) {
	var req checkRequest
	if !s.readJSON(w, r, &req) {
		return
	}
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
	cur := e.Src
	if !isText(cur) {
		s.apiErrorFor(w, r, http.StatusUnprocessableEntity, s.T(r, "edit.notutf8", fi.File))
		return
	}
	if hashOf(cur) != req.Hash {
		s.apiErrorFor(w, r, http.StatusConflict, s.T(r, "edit.changed"))
		return
	}
	src := []byte(req.Text)
	draft, err := s.saveEdited(e, src)
	if err != nil {
		s.apiErrorFor(w, r, http.StatusInternalServerError, s.T(r, "edit.savefailed", err.Error()))
		return
	}
	s.Logf("ui: saved %s (draft %v)", fi.File, draft)
	s.JSON(w, http.StatusOK, map[string]any{"hash": hashOf(src), "diagnostics": localDiags(s.Lang(r), checkText(fi.Path, src)), "draft": draft})
}

// lineNumbers is "1\n2\n...", one per line of src (the editor's gutter).
func lineNumbers(src []byte) string {
	n := 1
	for _, b := range src {
		if b == '\n' {
			n++
		}
	}
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			sb.WriteByte('\n')
		}
		sb.WriteString(strconv.Itoa(i))
	}
	return sb.String()
}
