// Package ui is rpa's desktop console (`rpa ui`): a local web app served by the binary itself on
// a loopback address, with server-rendered pages (html/template, assets embedded with embed.FS,
// nothing fetched from the network) and a little JavaScript. docs/console.md describes it for its
// users; this comment is for the code that adds pages to it.
//
// # Server
//
//	s, err := ui.New(ui.Options{Home: home, FlowsDir: dir, Listen: "127.0.0.1:0", Log: stderr})
//	err = s.Listen()              // binds Options.Listen (loopback only, see CheckListen)
//	fmt.Println(s.URL())          // http://127.0.0.1:PORT/?t=TOKEN
//	err = s.Serve(ctx)            // until ctx is cancelled
//
// s.Handler() is the whole console as an http.Handler (tests mount it on httptest.NewServer; the
// port the Host and Origin checks use is the one the request arrived on).
//
// # Security model
//
// Every request passes, in this order (guard.go):
//   - Host: the Host header must be 127.0.0.1:PORT, localhost:PORT or [::1]:PORT, PORT being the
//     port the request arrived on (defeats DNS rebinding); else 421 Misdirected Request.
//   - Origin: a request with an Origin header must come from one of those origins, and a request
//     that is not GET/HEAD must carry one (or present the token in the X-RPA-Token header, for
//     scripts); a Sec-Fetch-Site of "cross-site" is refused too; else 403.
//   - Token: a per-start random token (Server.Token), presented as `?t=TOKEN` on the first load
//     (the console then sets the cookie rpa_ui_PORT, HttpOnly, SameSite=Strict, and redirects to
//     the same URL without it), as that cookie, or as the X-RPA-Token header; else 401.
//
// No CORS header is ever sent; every response carries a Content-Security-Policy that allows only
// the console's own scripts and styles (no inline script: put JavaScript in static/*.js), frame
// ancestors none, no referrer, no-store. The access log names method, path and status only (never
// a query string, a form value or a body): a page must not log what a person typed either.
//
// # Adding a page
//
// A page is one Go file plus one template, added without editing any other file:
//
//	// ui/runs.go
//	func init() {
//		ui.RegisterPage(ui.Page{ID: "runs", Path: "/runs", Order: 30, Title: "nav.runs"})
//		ui.Handle("GET /runs", runsPage)
//		ui.Handle("GET /runs/{id}", runPage)
//		ui.Handle("POST /api/runs/{id}/rerun", rerun)
//		ui.RegisterText(map[string]ui.Text{
//			"nav.runs":   {En: "Runs", Zh: "运行记录"},
//			"runs.empty": {En: "No run yet.", Zh: "还没有运行。"},
//		})
//	}
//
//	func runsPage(s *ui.Server, w http.ResponseWriter, r *http.Request) {
//		s.Render(w, r, "runs", "nav.runs", data) // templates/runs.html, inside the layout
//	}
//
// (Inside package ui the `ui.` prefixes go.) RegisterPage puts the page in the navigation bar
// (sorted by Order: flows 10, record 20, runs 30, schedules 35, questions 40, accounts 45, status 50); Handle adds a route
// with the http.ServeMux pattern syntax, behind the security checks above; RegisterText adds
// interface strings, each in both languages (registering a key twice, or with a language missing,
// panics at init, and TestTextsComplete checks every key a template uses is registered).
//
// A template file templates/NAME.html defines "content" (and may define "head" for extra
// <link>/<script src> tags); it is parsed with the layout into its own set, so two pages' "content"
// never clash. In a template, `.T "key"` is the string in the request's language, `.Lang` is "en"
// or "zh", `.Data` is the data the handler passed, `.Page` the page ID. Static files in static/ are
// served at /static/NAME (embedded). Every control needs a label or an accessible name (tests find
// controls by role and name).
//
// Helpers for handlers: Server.Render, RenderTitle, RenderError, Fragment (a cached part of a
// page), JSON, Lang, T, Home, FlowsDir, ServedDir, Logf, Value (per-Server state of a page).
//
// # Flows and runs (flows.go, publish.go, runform.go, live.go)
//
// Server.FlowList and FlowFile describe the console folder's flows (NAME, tool, params,
// diagnostics, published or not), from a cache that reloads only what changed on disk. The
// console runs a flow as an agent would: Options.Tools is the MCP server of the served folder,
// called over one raw in-memory MCP session (toolclient.go); mcpserver.WatchCall delivers the
// call's interp events to the live run. Server.StartRun(flow, args, profile) starts a run and
// returns its LiveRun (URL, Events, Outcome, Stop); RunFormURL(flow, args) is the Run form with
// the non-secret arguments filled in (Rerun: the person types the secrets again).
//
// Routes: GET /flows, GET /flows/{file}/edit (?publish=1 opens the publish dialog), POST
// /api/check and /api/save (JSON: file, text, hash), POST /api/publish (PublishRequest), GET and
// POST /run/{name}, GET /live/{id} (+ /events, server-sent events "step", "log", "done"; /shot;
// POST /stop).
//
// The editor's element picker (picker.go, static/picker.js): POST /api/picker/start (file, text,
// url) opens the page in a browser of its own (drivers.Driver, a temporary profile); without a
// display GET /api/picker/{id}/frames streams its pictures (server-sent events "frame",
// "closed"; drivers.Screencaster) and POST /api/picker/{id}/hover and /pick take a point of the
// viewport (drivers.ElementPicker.EvalAt, selectorgen.At; a coordinate outside the last
// picture's viewport is 400 naming it); with one POST
// /api/picker/{id}/inspect waits for the click in its window (selectorgen.Inspect); POST
// /api/picker/{id}/close ends it.
//
// # Tests
//
// console_test.go has the harness the pages' browser tests share (one Chromium per package):
// newConsole(t, files) (a console over real tools, a pool of real Chromium and a run store, on
// httptest), personPage(t, ctx) (a tab of the person's browser, rpa's own driver), el/click/fill
// (by role and accessible name), waitText, and console.checkPage(t, pg, name) (the structure of
// main as a golden, every control named, a screenshot with -update).
//
// # Languages
//
// Chinese and English: the cookie rpa_ui_lang (set by the switch in the navigation bar, POST
// /lang) wins, else the first of zh/en in Accept-Language, else English.
package ui
