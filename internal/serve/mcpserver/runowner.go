package mcpserver

import (
	"crypto/rand"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/httpauth"
	"github.com/rpa-dev/rpa/internal/runs"
)

// callers knows the MCP sessions of a server as owners (runs.Owner): the
// digest naming each (sessions without an ID, stdio and in-memory, get a
// random one), which are still open, and which are the person at the
// desktop's (ShareProfilesWith).
type callers struct {
	mu      sync.Mutex
	digest  map[*mcp.ServerSession]string
	open    map[string]int // digest → open sessions
	desktop map[*mcp.ServerSession]bool
}

// session returns sess's digest, watching it until it ends.
func (c *callers) session(sess *mcp.ServerSession) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.digest[sess]; ok {
		return d
	}
	if c.digest == nil {
		c.digest = map[*mcp.ServerSession]string{}
		c.open = map[string]int{}
	}
	id := sess.ID()
	if id == "" {
		id = rand.Text() // stdio, in-memory: unique to this session
	}
	d := runs.SessionDigest(id)
	c.digest[sess] = d
	c.open[d]++
	go func() {
		_ = sess.Wait()
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.digest, sess)
		delete(c.desktop, sess)
		if c.open[d]--; c.open[d] <= 0 {
			delete(c.open, d)
		}
	}()
	return d
}

// live reports whether a session with this digest is open.
func (c *callers) live(digest string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open[digest] > 0
}

// setDesktop marks sess as the person at the desktop's.
func (c *callers) setDesktop(sess *mcp.ServerSession) {
	c.session(sess)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.desktop == nil {
		c.desktop = map[*mcp.ServerSession]bool{}
	}
	c.desktop[sess] = true
}

func (c *callers) isDesktop(sess *mcp.ServerSession) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.desktop[sess]
}

// ownerOf is the owner a request's caller is (runs.Owner): its session,
// the bearer token its HTTP request carried, the caller kind and device
// of this server (Options.RunCaller, RunDevice). A request without a
// session owns only what the link's caller owns.
func (s *Server) ownerOf(req mcp.Request) runs.Owner {
	var sess *mcp.ServerSession
	var h http.Header
	if req != nil {
		sess, _ = req.GetSession().(*mcp.ServerSession)
		if ex := req.GetExtra(); ex != nil {
			h = ex.Header
		}
	}
	kind := s.opts.RunCaller
	if kind == "" {
		kind = runs.CallerMCP
	}
	o := runs.Owner{Kind: kind, Device: s.opts.RunDevice}
	switch {
	case sess == nil:
	case s.callers.isDesktop(sess):
		return runs.Desktop
	case h != nil && sess.ID() == "":
		// A stateless (2026-07-28) HTTP request: its session ends with it,
		// so its bearer token is all that names its caller.
	default:
		o.Session = s.callers.session(sess)
	}
	if h != nil {
		if tok, ok := httpauth.BearerToken(&http.Request{Header: h}); ok {
			o.Token = runs.TokenDigest(tok)
		}
	}
	return o
}

// owns reports whether the caller of req may see and resume what owner
// started (runs.Owner.Owns).
func (s *Server) owns(req mcp.Request, owner runs.Owner) bool {
	return s.ownerOf(req).Owns(owner, s.callers.live)
}
