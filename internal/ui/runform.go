package ui

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/msg"
	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
)

func init() {
	RegisterText(map[string]Text{
		"run.title":        {En: "Run %s", Zh: "运行 %s"},
		"run.notools":      {En: "This console was started without tools, so it cannot run flows. Start it with `rpa ui`.", Zh: "这个控制台启动时没有加载工具，无法运行流程。请用 `rpa ui` 启动。"},
		"run.notool":       {En: "There is no published tool %s. Publish the flow first.", Zh: "没有已发布的工具 %s。请先发布这个流程。"},
		"run.params":       {En: "Arguments", Zh: "参数"},
		"run.noparams":     {En: "This tool takes no arguments.", Zh: "这个工具没有参数。"},
		"run.required":     {En: "(required)", Zh: "（必填）"},
		"run.default":      {En: "default: %s", Zh: "默认值：%s"},
		"run.json":         {En: "JSON", Zh: "JSON"},
		"run.profile":      {En: "Browser profile", Zh: "浏览器配置"},
		"run.profile_def":  {En: "The flow's profile (%s)", Zh: "流程指定的配置（%s）"},
		"run.profile_hint": {En: "A profile keeps a browser's cookies and logins between runs.", Zh: "配置会在多次运行之间保留浏览器的 Cookie 和登录状态。"},
		"run.submit":       {En: "Run", Zh: "运行"},
		"run.badarg":       {En: "%s: %s", Zh: "%s：%s"},
		"run.missing":      {En: "%s is required", Zh: "%s 为必填"},
		"run.notnumber":    {En: "not a number", Zh: "不是数字"},
		"run.notint":       {En: "not a whole number", Zh: "不是整数"},
		"run.notjson":      {En: "not JSON of the right kind: %s", Zh: "不是正确类型的 JSON：%s"},
		"run.secret":       {En: "secret: typed here each run, never stored or shown", Zh: "密文：每次运行时输入，不会保存或显示"},
		"run.tool":         {En: "Tool %s", Zh: "工具 %s"},
		"run.unknown":      {En: "the form has a field %s the tool does not take (it takes %s); nothing was run", Zh: "表单中有工具不接受的字段 %s（它接受 %s）；没有运行"},
		"run.takesnone":    {En: "no arguments", Zh: "无参数"},
	})
	Handle("GET /run/{name}", runFormPage)
	Handle("POST /run/{name}", runFormSubmit)
}

// formField is one input of the Run form, from the tool's inputSchema.
type formField struct {
	Name        string
	ID          string
	Type        string // string, integer, number, boolean, array, object
	Enum        []string
	Default     string
	HasDefault  bool
	Required    bool
	Secret      bool
	Description string
	Value       string // what the input shows (never a secret's)
	Checked     bool   // a boolean's state
}

// schemaFields reads the form fields of a tool's inputSchema, in the schema's property order
// (the flow's param order), leaving out the profile argument (the form's profile picker) and
// the resume arguments (a failed run is resumed from the Runs page).
func schemaFields(schema any) ([]formField, error) {
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	v, err := decodeOrdered(raw)
	if err != nil {
		return nil, err
	}
	req := map[string]bool{}
	if a, ok := get(v, "required").([]any); ok {
		for _, x := range a {
			if s, ok := x.(string); ok {
				req[s] = true
			}
		}
	}
	props, _ := get(v, "properties").(*jsonObject)
	if props == nil {
		return nil, nil
	}
	var out []formField
	for i, name := range props.Keys {
		if name == mcpserver.ProfileArg || name == mcpserver.ResumeRunArg || name == mcpserver.ResumeFromArg {
			continue
		}
		p := props.Vals[name]
		f := formField{Name: name, ID: "arg-" + strconv.Itoa(i), Required: req[name]}
		f.Type, _ = get(p, "type").(string)
		if t, ok := get(p, "type").([]any); ok && len(t) > 0 { // ["string","null"]
			f.Type, _ = t[0].(string)
		}
		f.Description, _ = get(p, "description").(string)
		format, _ := get(p, "format").(string)
		wo, _ := get(p, "writeOnly").(bool)
		f.Secret = format == "password" || wo
		if e, ok := get(p, "enum").([]any); ok {
			for _, x := range e {
				f.Enum = append(f.Enum, fmt.Sprint(x))
			}
		}
		if d, ok := p.(*jsonObject); ok {
			if dv, has := d.Vals["default"]; has && !f.Secret {
				f.HasDefault = true
				f.Default = formText(dv)
			}
		}
		f.Value = f.Default
		f.Checked = f.Default == "true"
		out = append(out, f)
	}
	return out, nil
}

// formText is a JSON value as a form input shows it: a string as is, anything else as JSON.
func formText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case nil:
		return ""
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	}
	b, _ := json.Marshal(plain(v))
	return string(b)
}

// plain turns ordered JSON back into encoding/json values.
func plain(v any) any {
	switch v := v.(type) {
	case *jsonObject:
		m := make(map[string]any, len(v.Keys))
		for _, k := range v.Keys {
			m[k] = plain(v.Vals[k])
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = plain(x)
		}
		return out
	}
	return v
}

// profileChoices lists the profiles of $RPA_HOME (folders of Home/profiles with a valid name),
// sorted.
func (s *Server) profileChoices() []string {
	des, _ := os.ReadDir(filepath.Join(s.Home(), "profiles"))
	var out []string
	for _, de := range des {
		if de.IsDir() && profiles.ValidID(de.Name()) == nil {
			out = append(out, de.Name())
		}
	}
	sort.Strings(out)
	return out
}

// runForm is the Run page's data.
type runForm struct {
	Flow, Tool, Description string
	Fields                  []formField
	Profiles                []string
	Profile                 string // chosen
	FlowProfile             string // the flow's default
	Error                   string
}

// runFormData builds the form of flow NAME (ok false: no such tool; the page says why).
func (s *Server) runFormData(name string) (*runForm, string, bool) {
	if s.opts.Tools == nil {
		return nil, "run.notools", false
	}
	tool, ok := s.opts.Tools.Tool(mcpserver.ToolName(name))
	if !ok {
		return nil, "run.notool", false
	}
	fields, err := schemaFields(tool.InputSchema)
	if err != nil {
		return nil, "run.notool", false
	}
	rf := &runForm{Flow: name, Tool: tool.Name, Description: tool.Description, Fields: fields, Profiles: s.profileChoices(), FlowProfile: profiles.DefaultProfile}
	if f := s.flowsCache().scan().loaded[name]; f != nil && f.Profile() != "" {
		rf.FlowProfile = f.Profile()
	}
	return rf, "", true
}

// runFormPage shows the Run form of flow NAME; query a.NAME=VALUE fills a field (RunFormURL).
func runFormPage(s *Server, w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	rf, why, ok := s.runFormData(name)
	if !ok {
		s.RenderError(w, r, http.StatusNotFound, why, mcpserver.ToolName(name))
		return
	}
	q := r.URL.Query()
	for i := range rf.Fields {
		f := &rf.Fields[i]
		if v, has := q["a."+f.Name]; has && !f.Secret && len(v) > 0 {
			f.Value, f.Checked = v[0], v[0] == "true"
		}
	}
	rf.Profile = q.Get("profile")
	s.RenderTitle(w, r, "flows_run", s.T(r, "run.title", rf.Tool), rf)
}

// runFormSubmit converts the form to the tool's arguments and starts the run (303 to its live
// page); a field that does not convert, or one the tool does not take, shows the form again with
// the error (no secret is put back in it).
func runFormSubmit(s *Server, w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	rf, why, ok := s.runFormData(name)
	if !ok {
		s.RenderError(w, r, http.StatusNotFound, why, mcpserver.ToolName(name))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4<<20)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	lg := s.Lang(r)
	args := map[string]any{}
	var problems []string
	for i := range rf.Fields {
		f := &rf.Fields[i]
		raw, present := r.PostForm["a."+f.Name]
		val := ""
		if present && len(raw) > 0 {
			val = raw[0]
		}
		if !f.Secret {
			f.Value = val
		}
		if f.Type == "boolean" {
			f.Checked = present && val == "true"
			args[f.Name] = f.Checked
			continue
		}
		if val == "" {
			if f.Required {
				problems = append(problems, Translate(lg, "run.missing", f.Name))
			}
			continue // the default applies
		}
		v, err := convertField(lg, f, val)
		if err != nil {
			problems = append(problems, Translate(lg, "run.badarg", f.Name, err.Error()))
			continue
		}
		args[f.Name] = v
	}
	// Fields the tool does not take are refused, as MCP refuses unknown arguments (a stale form
	// or a hand-made request would otherwise run with silently dropped values).
	known := map[string]bool{"profile": true}
	var names []string
	for _, f := range rf.Fields {
		known["a."+f.Name] = true
		names = append(names, f.Name)
	}
	takes := strings.Join(names, ", ")
	if takes == "" {
		takes = Translate(lg, "run.takesnone")
	}
	var unknown []string
	for k := range r.PostForm {
		if !known[k] {
			unknown = append(unknown, strings.TrimPrefix(k, "a."))
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		problems = append(problems, Translate(lg, "run.unknown", strconv.Quote(k), takes))
	}
	profile := strings.TrimSpace(r.PostFormValue("profile"))
	if profile != "" && profiles.ValidID(profile) != nil {
		problems = append(problems, Translate(lg, "run.badarg", s.T(r, "run.profile"), msg.Localize(lg, profiles.ValidID(profile).Error())))
	}
	rf.Profile = profile
	if len(problems) == 0 {
		lr, err := s.StartRun(name, args, profile)
		if err == nil {
			again := map[string]any{}
			for _, f := range rf.Fields {
				if v, ok := args[f.Name]; ok && !f.Secret {
					again[f.Name] = v
				}
			}
			lr.setRerun(RunFormURL(name, again), profile)
			http.Redirect(w, r, lr.URL(), http.StatusSeeOther)
			return
		}
		problems = append(problems, msg.Localize(lg, err.Error()))
	}
	rf.Error = strings.Join(problems, "; ")
	s.render(w, r, http.StatusBadRequest, "flows_run", s.T(r, "run.title", rf.Tool), rf)
}

// convertField converts a form value to the JSON type of its field.
func convertField(lg string, f *formField, val string) (any, error) {
	switch f.Type {
	case "integer":
		n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s", Translate(lg, "run.notint"))
		}
		return n, nil
	case "number":
		x, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			return nil, fmt.Errorf("%s", Translate(lg, "run.notnumber"))
		}
		return x, nil
	case "array", "object":
		var v any
		if err := json.Unmarshal([]byte(val), &v); err != nil {
			return nil, fmt.Errorf("%s", Translate(lg, "run.notjson", err.Error()))
		}
		_, isArr := v.([]any)
		_, isObj := v.(map[string]any)
		if (f.Type == "array" && !isArr) || (f.Type == "object" && !isObj) {
			return nil, fmt.Errorf("%s", Translate(lg, "run.notjson", f.Type))
		}
		return v, nil
	}
	return val, nil
}
