package ui

import (
	"fmt"
	"net/http"
	"sort"
	"sync"
)

// HandlerFunc is a console route's handler: the Server it runs in, then the usual pair.
type HandlerFunc func(s *Server, w http.ResponseWriter, r *http.Request)

// Page is an entry of the navigation bar.
type Page struct {
	// ID names the page (the nav highlights the page whose ID Render is given), e.g. "runs".
	ID string
	// Path is where the nav link points, e.g. "/runs".
	Path string
	// Order places the link: flows 10, record 20, runs 30, schedules 35, questions 40, accounts 45, status 50.
	Order int
	// Title is the text key of the link (registered with RegisterText).
	Title string
}

type route struct {
	pattern string
	h       HandlerFunc
}

var registry struct {
	mu     sync.Mutex
	pages  []Page
	routes []route
}

// RegisterPage adds p to the navigation bar of every console made afterwards. Call it from
// init(); a duplicate ID panics.
func RegisterPage(p Page) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	for _, q := range registry.pages {
		if q.ID == p.ID {
			panic(fmt.Sprintf("ui: page %q registered twice", p.ID))
		}
	}
	registry.pages = append(registry.pages, p)
	sort.SliceStable(registry.pages, func(i, j int) bool { return registry.pages[i].Order < registry.pages[j].Order })
}

// Handle adds a route (http.ServeMux pattern syntax, e.g. "GET /runs/{id}") to every console made
// afterwards, behind the security checks. Call it from init(); a clash panics when the first
// console is made (http.ServeMux's rules).
func Handle(pattern string, h HandlerFunc) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	registry.routes = append(registry.routes, route{pattern, h})
}

// Pages lists the registered pages in nav order.
func Pages() []Page {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	return append([]Page(nil), registry.pages...)
}
