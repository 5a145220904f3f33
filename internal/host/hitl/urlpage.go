package hitl

import (
	"crypto/rand"
	"encoding/hex"
	"html/template"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/core"
)

// URLPages serves the one-time answer pages of URL-mode elicitation on
// loopback (127.0.0.1, a free port, started on first use). Each page has
// an unguessable path, accepts one answer, and is gone after it or when
// the question ends. The zero value is ready to use; Close stops it.
type URLPages struct {
	// Addr is the listen address ("127.0.0.1:0" when empty).
	Addr string

	mu      sync.Mutex
	srv     *http.Server
	base    string
	pending map[string]*Page
}

// Page is one open answer page.
type Page struct {
	ID  string // the elicitation id, also the page's path element
	URL string // http://127.0.0.1:PORT/hitl/ID
	// Answer receives the person's answer once (answered or declined).
	Answer <-chan core.Answer

	q      core.Question
	answer chan core.Answer
	owner  *URLPages
}

// Close withdraws the page (a later visit gets 410 Gone).
func (p *Page) Close() {
	p.owner.mu.Lock()
	delete(p.owner.pending, p.ID)
	p.owner.mu.Unlock()
}

// Open starts the server if needed and opens a page for q.
func (u *URLPages) Open(q core.Question) (*Page, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.srv == nil {
		addr := u.Addr
		if addr == "" {
			addr = "127.0.0.1:0"
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, err
		}
		mux := http.NewServeMux()
		mux.HandleFunc("/hitl/{id}", u.serve)
		u.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		u.base = "http://" + ln.Addr().String()
		u.pending = map[string]*Page{}
		go func() { _ = u.srv.Serve(ln) }()
	}
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	id := hex.EncodeToString(b[:])
	ch := make(chan core.Answer, 1)
	p := &Page{ID: id, URL: u.base + "/hitl/" + id, Answer: ch, q: q, answer: ch, owner: u}
	u.pending[id] = p
	return p, nil
}

// Close stops the server; open pages stop answering.
func (u *URLPages) Close() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.srv == nil {
		return nil
	}
	err := u.srv.Close()
	u.srv, u.pending = nil, nil
	return err
}

var pageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title>
<meta name="referrer" content="no-referrer">
<style>body{font-family:sans-serif;max-width:32em;margin:3em auto}input{font-size:1.1em;width:100%}</style>
</head><body>
<h1>{{.Title}}</h1>
{{if .Message}}<p>{{.Message}}</p>{{end}}
<form method="post" autocomplete="off">
<p><input type="password" name="answer" autofocus aria-label="answer"></p>
<p><button type="submit" name="action" value="accept">Send</button>
<button type="submit" name="action" value="decline">Decline</button></p>
</form>
<p><small>Your answer goes to rpa on this computer only. This page works once.</small></p>
</body></html>`))

var donePage = `<!doctype html><html><head><meta charset="utf-8"><title>Sent</title></head>
<body><p>Thank you. You can close this page.</p></body></html>`

func (u *URLPages) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	id := r.PathValue("id")
	u.mu.Lock()
	p := u.pending[id]
	if p != nil && r.Method == http.MethodPost {
		delete(u.pending, id) // one answer only
	}
	u.mu.Unlock()
	if p == nil {
		http.Error(w, "this page has been used or has expired", http.StatusGone)
		return
	}
	switch r.Method {
	case http.MethodGet:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = pageTmpl.Execute(w, p.q)
	case http.MethodPost:
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		if err := r.ParseForm(); err != nil {
			http.Error(w, "bad form", http.StatusBadRequest)
			p.answer <- core.Answer{Status: core.AnswerDeclined}
			return
		}
		a := core.Answer{Status: core.AnswerAnswered, Text: r.PostForm.Get("answer")}
		if r.PostForm.Get("action") == "decline" || a.Text == "" {
			a = core.Answer{Status: core.AnswerDeclined}
		}
		p.answer <- a
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(donePage))
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}
