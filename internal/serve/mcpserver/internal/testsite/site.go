// Package testsite is the small web site the MCP tests drive with real
// Chromium: a login form, a table page whose Query button renders
// table#data for a region, and /hit, which records visits per profile.
// The flows in mcpserver/testdata/flows are written against it.
package testsite

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
)

// Credentials the login form accepts.
const (
	User = "alice"
	Pass = "s3cret-Pa55word"
)

// Site is a running test site.
type Site struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string][]int
}

// Start serves the site on a loopback port; Close stops it.
func Start() *Site {
	s := &Site{hits: map[string][]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<!doctype html><title>Login</title>
<form method="post" action="/login">
<input id="username" name="username"> <input id="password" name="password" type="password">
<button id="submit" type="submit">Sign in</button></form>`)
	})
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		if r.FormValue("username") != User || r.FormValue("password") != Pass {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `<!doctype html><title>Login</title><p id="error">wrong credentials</p>`)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "sess", Value: "ok", Path: "/"})
		http.Redirect(w, r, "/table", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /table", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<!doctype html><title>Data</title>
<select id="region"><option value="north">North</option><option value="south">South</option></select>
<button id="query" onclick="render()">Query</button>
<div id="out"></div>
<script>
const data = {north: [["2026-01-01", "12.5"], ["2026-01-02", "13.0"], ["2026-01-03", "9.75"]],
              south: [["2026-01-01", "20.0"], ["2026-01-02", "21.5"]]};
function render() {
  const region = document.getElementById("region").value;
  let h = '<table id="data"><thead><tr><th>date</th><th>kWh</th></tr></thead><tbody>';
  for (const [d, k] of data[region]) h += "<tr><td>" + d + "</td><td>" + k + "</td></tr>";
  document.getElementById("out").innerHTML = h + "</tbody></table>";
}
</script>`)
	})
	mux.HandleFunc("GET /hit", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		p := r.URL.Query().Get("p")
		s.mu.Lock()
		s.hits[p] = append(s.hits[p], n)
		s.mu.Unlock()
		fmt.Fprintf(w, `<!doctype html><title>hit</title><div id="n">%d</div>`, n)
	})
	s.Server = httptest.NewServer(mux)
	return s
}

// Hits returns the call numbers /hit saw for profile p, in arrival order.
func (s *Site) Hits(p string) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.hits[p]...)
}
