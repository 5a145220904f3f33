// Package demoapp is the demo "power system" web app that rpa's example
// flows, `rpa demo`, the end-to-end tests and the benchmarks run against.
//
// It is one http.Handler with its pages, script and style embedded, so it
// runs anywhere without files:
//
//   - GET /login shows a form (#username, #password, #submit); POST /login
//     with the right credentials sets the session cookie and redirects
//     (303) to /query, wrong ones answer 401 with the form and #error.
//   - GET /query (session required, else 303 to /login) has a region
//     <select id="region"> (codes such as 110000 with Chinese labels), a
//     "Query" button (disabled until the page's deferred script has set up
//     its handler) that fetches rows from /api/data after a server delay
//     and then renders table#data-table (thead, tbody rows of date, region,
//     kWh, peak, valley, cost; a tfoot total row with a colspan), and a
//     pager (#prev, #next, #page-info). While a query runs the table is
//     absent, so a flow that reads "#data-table" waits for the data.
//   - GET /api/data?region=CODE&page=N (session required, else 401) answers
//     JSON after Options.Delay.
//   - GET /logout ends the session.
//
// Two options make it a portal with an account worth keeping in rpa's
// vault (both off by default): Options.TOTPSeed adds a second factor
// (/login/otp asks for the current authenticator code after the right
// password) and Options.SessionRequests ends a session after that many
// requests (the next page goes to /login?expired=1), so a flow has to
// sign in again in the middle of its work.
//
// Options.Version 2 serves the app's "next version" instead (see V2).
//
// Data is deterministic per region (see Records). The app keeps its
// sessions in memory; it is a demo, not a server to expose.
package demoapp

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// Demo credentials: what `rpa demo` and the README use.
const (
	DemoUsername = "admin"
	DemoPassword = "demo-pass-42"
)

// SessionCookie is the name of the session cookie set at login.
const SessionCookie = "demo_session"

// Options configures an App. The zero value is the demo as documented.
type Options struct {
	// Delay is how long /api/data waits before answering (the "slow
	// backend"); 0 means 150ms, a negative value means no delay.
	Delay time.Duration
	// PageSize is the number of rows per page; 0 means 50.
	PageSize int
	// Username and Password are the accepted credentials; "" means
	// DemoUsername / DemoPassword.
	Username, Password string
	// TOTPSeed, when set, turns on a second factor: after the right
	// password, POST /login answers 303 to /login/otp, a page asking for
	// the current RFC 6238 code of this base32 seed (#otp, #verify; SHA1,
	// 6 digits, 30 s; the codes of the step before and after are accepted
	// too); only the code signs in (wrong: 401 with #error).
	TOTPSeed string
	// SessionRequests, when > 0, ends a session after this many requests
	// that use it (the pages and /api/data): the next one finds it expired
	// (a page: 303 to /login?expired=1, whose #notice says so; /api/data:
	// 401, on which the query page goes to /login).
	SessionRequests int
	// Version is the app's page version: 0 or 1 is the demo as
	// documented above; 2 is its "next version" for healing tests (see
	// V2), whose pages rename ids, rewrap the login form, reword the
	// Query button and move the table. Any other value is 1.
	Version int
}

func (o Options) withDefaults() Options {
	if o.Delay == 0 {
		o.Delay = 150 * time.Millisecond
	}
	if o.Delay < 0 {
		o.Delay = 0
	}
	if o.PageSize <= 0 {
		o.PageSize = 50
	}
	if o.Username == "" {
		o.Username = DemoUsername
	}
	if o.Password == "" {
		o.Password = DemoPassword
	}
	return o
}

//go:embed static
var staticFS embed.FS

// App is the demo web app; it implements http.Handler.
type App struct {
	opts   Options
	tmpl   *template.Template
	static http.Handler
	mux    *http.ServeMux

	mu       sync.Mutex
	sessions map[string]*session // token → session
	pending  map[string]string   // second-factor token → user name
}

// session is a signed-in user and how many requests used the session.
type session struct {
	user string
	uses int
}

// PendingCookie holds a login waiting for its second factor.
const PendingCookie = "demo_pending"

// New returns the app configured by opts (zero fields take their defaults).
func New(opts Options) *App {
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	a := &App{
		opts:     opts.withDefaults(),
		tmpl:     template.Must(template.ParseFS(sub, "*.html")),
		static:   http.StripPrefix("/static/", http.FileServerFS(sub)),
		mux:      http.NewServeMux(),
		sessions: map[string]*session{},
		pending:  map[string]string{},
	}
	a.mux.HandleFunc("GET /{$}", a.root)
	a.mux.HandleFunc("GET /login", a.loginPage)
	a.mux.HandleFunc("POST /login", a.login)
	a.mux.HandleFunc("GET /login/otp", a.otpPage)
	a.mux.HandleFunc("POST /login/otp", a.otp)
	a.mux.HandleFunc("GET /logout", a.logout)
	a.mux.HandleFunc("GET /query", a.query)
	a.mux.HandleFunc("GET /api/data", a.data)
	a.mux.Handle("GET /static/", a.static)
	return a
}

// Options returns the effective options (defaults filled in).
func (a *App) Options() Options { return a.opts }

// ServeHTTP dispatches to the app's pages.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	a.mux.ServeHTTP(w, r)
}

// user returns the signed-in user of r, or "". Each call is one use of
// the session (Options.SessionRequests).
func (a *App) user(r *http.Request) string {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return ""
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[c.Value]
	if s == nil {
		return ""
	}
	s.uses++
	if n := a.opts.SessionRequests; n > 0 && s.uses > n {
		delete(a.sessions, c.Value)
		return ""
	}
	return s.user
}

// toLogin redirects a page request without a session to the login page,
// saying the session expired when r carries a session cookie.
func (a *App) toLogin(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
		http.Redirect(w, r, "/login?expired=1", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

func (a *App) root(w http.ResponseWriter, r *http.Request) {
	if a.user(r) == "" {
		a.toLogin(w, r)
		return
	}
	http.Redirect(w, r, "/query", http.StatusSeeOther)
}

type loginData struct {
	Error, Notice, Username string
}

func (a *App) render(w http.ResponseWriter, status int, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = a.tmpl.ExecuteTemplate(w, name, data)
}

func (a *App) loginPage(w http.ResponseWriter, r *http.Request) {
	d := loginData{}
	if r.URL.Query().Get("bye") != "" {
		d.Notice = "You have signed out."
	}
	if r.URL.Query().Get("expired") != "" {
		d.Notice = "Your session has expired: sign in again. 会话已过期，请重新登录。"
	}
	a.render(w, http.StatusOK, a.page("login.html"), d)
}

func (a *App) login(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	user, pass := r.PostForm.Get("username"), r.PostForm.Get("password")
	if user != a.opts.Username || pass != a.opts.Password {
		a.render(w, http.StatusUnauthorized, a.page("login.html"), loginData{
			Error: "Invalid username or password", Username: user})
		return
	}
	if a.opts.TOTPSeed != "" {
		tok := newToken()
		a.mu.Lock()
		a.pending[tok] = user
		a.mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: PendingCookie, Value: tok, Path: "/login",
			HttpOnly: true, SameSite: http.SameSiteLaxMode})
		http.Redirect(w, r, "/login/otp", http.StatusSeeOther)
		return
	}
	a.signIn(w, r, user)
}

// signIn starts a session for user and goes to /query.
func (a *App) signIn(w http.ResponseWriter, r *http.Request, user string) {
	tok := newToken()
	a.mu.Lock()
	a.sessions[tok] = &session{user: user}
	a.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: tok, Path: "/",
		HttpOnly: true, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, "/query", http.StatusSeeOther)
}

func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// pendingUser returns the user whose second factor r's pending cookie
// waits for, or "".
func (a *App) pendingUser(r *http.Request) (string, string) {
	c, err := r.Cookie(PendingCookie)
	if err != nil {
		return "", ""
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.pending[c.Value], c.Value
}

func (a *App) otpPage(w http.ResponseWriter, r *http.Request) {
	if u, _ := a.pendingUser(r); u == "" || a.opts.TOTPSeed == "" {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	a.render(w, http.StatusOK, "otp.html", loginData{})
}

func (a *App) otp(w http.ResponseWriter, r *http.Request) {
	u, tok := a.pendingUser(r)
	if u == "" || a.opts.TOTPSeed == "" {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	ok, err := totp.ValidateCustom(strings.TrimSpace(r.PostForm.Get("otp")), a.opts.TOTPSeed, time.Now(),
		totp.ValidateOpts{Period: 30, Skew: 1, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil || !ok {
		a.render(w, http.StatusUnauthorized, "otp.html", loginData{Error: "Invalid verification code 验证码错误"})
		return
	}
	a.mu.Lock()
	delete(a.pending, tok)
	a.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: PendingCookie, Value: "", Path: "/login", MaxAge: -1})
	a.signIn(w, r, u)
}

func (a *App) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(SessionCookie); err == nil {
		a.mu.Lock()
		delete(a.sessions, c.Value)
		a.mu.Unlock()
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1})
	http.Redirect(w, r, "/login?bye=1", http.StatusSeeOther)
}

type queryData struct {
	User    string
	Regions []Region
}

func (a *App) query(w http.ResponseWriter, r *http.Request) {
	u := a.user(r)
	if u == "" {
		a.toLogin(w, r)
		return
	}
	a.render(w, http.StatusOK, a.page("query.html"), queryData{User: u, Regions: Regions})
}

// DataPage is the JSON answer of /api/data.
type DataPage struct {
	Region  Region   `json:"region"`
	Page    int      `json:"page"`  // 1-based
	Pages   int      `json:"pages"` // at least 1
	Size    int      `json:"size"`  // rows per page
	Total   int      `json:"total"` // rows over all pages
	Rows    []Record `json:"rows"`
	Totals  Record   `json:"totals"`  // sums of this page's rows
	Overall Record   `json:"overall"` // sums of all pages
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (a *App) data(w http.ResponseWriter, r *http.Request) {
	if a.user(r) == "" {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "not signed in"})
		return
	}
	q := r.URL.Query()
	reg, ok := FindRegion(q.Get("region"))
	if !ok {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unknown region " + strconv.Quote(q.Get("region"))})
		return
	}
	page := 1
	if s := q.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "bad page " + strconv.Quote(s)})
			return
		}
		page = n
	}
	if a.opts.Delay > 0 {
		t := time.NewTimer(a.opts.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	all := Records(reg.Code)
	size := a.opts.PageSize
	pages := max(1, (len(all)+size-1)/size)
	page = min(page, pages)
	lo := min((page-1)*size, len(all))
	hi := min(lo+size, len(all))
	rows := all[lo:hi]
	if rows == nil {
		rows = []Record{}
	}
	writeJSON(w, http.StatusOK, DataPage{Region: reg, Page: page, Pages: pages, Size: size,
		Total: len(all), Rows: rows, Totals: Totals(rows), Overall: Totals(all)})
}

// Server is a running demo app.
type Server struct {
	// URL is the base address, "http://127.0.0.1:PORT" (no trailing slash).
	URL string
	// App is the handler being served.
	App *App
	srv *http.Server
	ln  net.Listener
	err chan error

	closeOnce sync.Once
	closeErr  error
}

// Serve serves a new App on ln in a goroutine until Close.
func Serve(ln net.Listener, opts Options) *Server {
	a := New(opts)
	s := &Server{URL: "http://" + ln.Addr().String(), App: a, ln: ln, err: make(chan error, 1),
		srv: &http.Server{Handler: a, ReadHeaderTimeout: 10 * time.Second}}
	go func() { s.err <- s.srv.Serve(ln) }()
	return s
}

// Start listens on a free loopback port (127.0.0.1:0) and serves the app.
func Start(opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return Serve(ln, opts), nil
}

// Close stops the server, waiting up to 2s for open requests. Calling it
// again returns the first call's result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		err := s.srv.Shutdown(ctx)
		if e := <-s.err; e != nil && !errors.Is(e, http.ErrServerClosed) && err == nil {
			err = e
		}
		s.closeErr = err
	})
	return s.closeErr
}
