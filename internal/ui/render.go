package ui

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/rpa-dev/rpa/internal/msg"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// View is what a page template sees (the layout's data): T and Lang for text, Data for the page.
type View struct {
	// Lang is "zh" or "en".
	Lang string
	// Page is the page ID, for the nav.
	Page string
	// Title is the page title, in Lang.
	Title string
	// Nav is the navigation bar.
	Nav []NavLink
	// Path is the request's path (the language switch comes back to it).
	Path string
	// Data is what the handler passed to Render.
	Data any
}

// NavLink is one link of the navigation bar.
type NavLink struct {
	// Path is the link target.
	Path string
	// Text is its text, in the request's language.
	Text string
	// Current marks the page being shown (aria-current="page").
	Current bool
}

// T is key's text in the view's language (see Translate).
func (v View) T(key string, args ...any) string { return Translate(v.Lang, key, args...) }

var tmpls struct {
	once sync.Once
	m    map[string]*template.Template
	err  error
}

// funcs are the template functions every page has.
var funcs = template.FuncMap{
	"json": func(v any) (template.JS, error) {
		b, err := json.Marshal(v)
		return template.JS(b), err
	},
	"join": strings.Join,
	// loc is a text made in English (a diagnostic, an error) for a person reading lang
	// (msg.Localize: the catalog's output lines).
	"loc": msg.Localize,
}

// loadTemplates parses templates/layout.html with each other templates/*.html, one set each.
func loadTemplates() (map[string]*template.Template, error) {
	tmpls.once.Do(func() {
		base, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
		if err != nil {
			tmpls.err = err
			return
		}
		names, _ := fs.Glob(templateFS, "templates/*.html")
		tmpls.m = map[string]*template.Template{}
		for _, n := range names {
			id := strings.TrimSuffix(path.Base(n), ".html")
			if id == "layout" {
				continue
			}
			t, err := template.Must(base.Clone()).ParseFS(templateFS, n)
			if err != nil {
				tmpls.err = err
				return
			}
			tmpls.m[id] = t
		}
	})
	return tmpls.m, tmpls.err
}

// view builds the layout data of a page.
func (s *Server) view(r *http.Request, page, title string, data any) View {
	lang := s.Lang(r)
	v := View{Lang: lang, Page: page, Title: title, Path: r.URL.Path, Data: data}
	for _, p := range Pages() {
		v.Nav = append(v.Nav, NavLink{Path: p.Path, Text: Translate(lang, p.Title), Current: p.ID == page})
	}
	return v
}

// Render writes templates/<tmpl>.html inside the layout, titled with titleKey's text, with data
// as .Data; the nav marks the page whose ID is tmpl's part before any "_" ("flows_edit" marks
// "flows"). The page is rendered into a buffer first, so a template error gives a clean 500.
func (s *Server) Render(w http.ResponseWriter, r *http.Request, tmpl, titleKey string, data any) {
	s.RenderStatus(w, r, http.StatusOK, tmpl, titleKey, data)
}

// RenderStatus is Render with a status code.
func (s *Server) RenderStatus(w http.ResponseWriter, r *http.Request, status int, tmpl, titleKey string, data any) {
	s.render(w, r, status, tmpl, Translate(s.Lang(r), titleKey), data)
}

// RenderTitle is Render with a title already in the request's language (e.g. "Edit login.flow").
func (s *Server) RenderTitle(w http.ResponseWriter, r *http.Request, tmpl, title string, data any) {
	s.render(w, r, http.StatusOK, tmpl, title, data)
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, tmpl, title string, data any) {
	m, err := loadTemplates()
	if err != nil {
		http.Error(w, "ui: templates: "+err.Error(), http.StatusInternalServerError)
		return
	}
	t, ok := m[tmpl]
	if !ok {
		http.Error(w, "ui: no template "+tmpl, http.StatusInternalServerError)
		return
	}
	page, _, _ := strings.Cut(tmpl, "_")
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", s.view(r, page, title, data)); err != nil {
		s.Logf("ui: rendering %s: %v", tmpl, err)
		http.Error(w, "ui: rendering the page failed: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// Fragment renders the template named name of the page set tmpl (templates/<tmpl>.html) with
// the request's View around data, for a part of a page a handler caches (the flows table).
func (s *Server) Fragment(r *http.Request, tmpl, name string, data any) (template.HTML, error) {
	m, err := loadTemplates()
	if err != nil {
		return "", err
	}
	t, ok := m[tmpl]
	if !ok {
		return "", fmt.Errorf("ui: no template %s", tmpl)
	}
	var buf bytes.Buffer
	v := View{Lang: s.Lang(r), Page: tmpl, Path: r.URL.Path, Data: data}
	if err := t.ExecuteTemplate(&buf, name, v); err != nil {
		return "", err
	}
	return template.HTML(buf.String()), nil
}

// RenderError shows a message page (in the layout) with status; msgKey is a text key, args its
// format arguments.
func (s *Server) RenderError(w http.ResponseWriter, r *http.Request, status int, msgKey string, args ...any) {
	s.RenderStatus(w, r, status, "error", "error.title", map[string]any{"Message": s.T(r, msgKey, args...)})
}

// JSON writes v as JSON with status.
func (s *Server) JSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(v); err != nil {
		s.Logf("ui: writing JSON: %v", err)
	}
}

// safeBack is a local path to come back to, "/" when p is not one.
func safeBack(p string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "/\\") {
		return "/"
	}
	return p
}

func init() {
	RegisterText(map[string]Text{
		"app.name":       {En: "rpa console", Zh: "rpa 控制台"},
		"nav.label":      {En: "Pages", Zh: "页面"},
		"lang.switch":    {En: "Language", Zh: "语言"},
		"lang.en":        {En: "English", Zh: "English"},
		"lang.zh":        {En: "中文", Zh: "中文"},
		"error.title":    {En: "Error", Zh: "出错了"},
		"error.back":     {En: "Back to the flows", Zh: "返回流程列表"},
		"error.notfound": {En: "There is no such page.", Zh: "没有这个页面。"},
		"skip.main":      {En: "Skip to the content", Zh: "跳到正文"},
	})
	Handle("GET /{$}", func(s *Server, w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/flows", http.StatusSeeOther)
	})
	Handle("GET /static/", func(s *Server, w http.ResponseWriter, r *http.Request) {
		sub, _ := fs.Sub(staticFS, "static")
		w.Header().Set("Cache-Control", "no-cache")
		http.StripPrefix("/static/", http.FileServerFS(sub)).ServeHTTP(w, r)
	})
	Handle("POST /lang", func(s *Server, w http.ResponseWriter, r *http.Request) {
		l := r.FormValue("lang")
		if l != "zh" && l != "en" {
			http.Error(w, fmt.Sprintf("lang: want zh or en, got %q", l), http.StatusBadRequest)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: langCookie, Value: l, Path: "/", MaxAge: 365 * 24 * 3600, HttpOnly: true, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, safeBack(r.FormValue("back")), http.StatusSeeOther)
	})
}
