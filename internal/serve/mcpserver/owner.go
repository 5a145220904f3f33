package mcpserver

import (
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/host/vault"
	"github.com/rpa-dev/rpa/internal/runs"
)

// KindProfileInUse is the error data "kind" of a call refused because its
// profile belongs to another MCP session (see Options.ShareProfiles).
const KindProfileInUse = "profile_in_use"

// ownerLapse is how long a profile stays its session's after that
// session's last call on it ended (the idle time of a warm browser).
const ownerLapse = profiles.DefaultIdle

// profileOwners records which MCP session each profile belongs to: the
// session of the call running on it, or of the last call while that
// session lives and used it within ownerLapse. A browser keeps the page,
// cookies and storage the last flow left, so another session's
// browser_read or flow would see (and act as) the first session's user.
type profileOwners struct {
	// sameCaller, when set, says whether a new session is the client of
	// an old one come back (reconnected without DELETE): it then takes the
	// old session's idle profiles at once.
	sameCaller func(old, cur *mcp.ServerSession) bool

	mu      sync.Mutex
	m       map[string]*profileOwner
	watched map[*mcp.ServerSession]bool
	shared  map[*mcp.ServerSession]bool // sessions that use every profile without owning any
}

type profileOwner struct {
	who   any       // a *mcp.ServerSession, or a caller (string) of stateless requests
	calls int       // calls of sess running on the profile
	last  time.Time // when the last one ended
}

// profileKey is who a call claims its profile as: its MCP session; for a
// stateless (2026-07-28) request, whose session ends with the request, its
// caller (the digest of its bearer token, runs.Owner; every tokenless
// caller alike), whose claim lapses ownerLapse after its last call.
func (s *Server) profileKey(req *mcp.CallToolRequest) any {
	if req == nil || req.Session == nil {
		return nil
	}
	if req.Extra != nil && req.Extra.Header != nil && req.Session.ID() == "" && multiRoundTrip(req) {
		return "caller:" + s.ownerOf(req).Token
	}
	return req.Session
}

// accountOwner is who a call on its account's own profile claims it as
// (claimKey): the account, whoever calls.
type accountOwner string

// claimKey is who a call claims its profile as: a workflow call running on
// the own profile of one of its accounts (vault.ProfileFor) claims it as
// that account, since the account's lease (accounts.go) already lets one
// run of the account at a time, from any session, and the browser's
// cookies are the account's; every other call as its profileKey.
func (s *Server) claimKey(req *mcp.CallToolRequest, fc *flowCall) any {
	if fc != nil {
		for _, a := range fc.accounts {
			if fc.profile == vault.ProfileFor(a) {
				return accountOwner(a)
			}
		}
	}
	return s.profileKey(req)
}

// claim makes profile who's (claimKey) for one call, or says whose it
// is. A nil who (no MCP session known) always passes. An account's own
// profile is never a session's: an account claim takes it from a session
// whose calls on it ended (at once: that session used the account's
// profile by naming it), runs beside a session call still on it (the
// pool's queue orders them) without taking it, and a session's call on a
// profile its account holds (browser_read) passes without taking it.
func (o *profileOwners) claim(who any, profile string, now time.Time) bool {
	sess, isSess := who.(*mcp.ServerSession)
	if who == nil || isSess && sess == nil {
		return true
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if isSess && o.shared[sess] {
		return true
	}
	if o.m == nil {
		o.m = map[string]*profileOwner{}
		o.watched = map[*mcp.ServerSession]bool{}
	}
	cur := o.m[profile]
	_, byAccount := who.(accountOwner)
	var curAccount bool
	if cur != nil {
		_, curAccount = cur.who.(accountOwner)
	}
	switch {
	case cur != nil && cur.who != who && (byAccount && cur.calls > 0 || curAccount && !byAccount):
		return true // the pool's queue orders the calls; the profile stays whose it is
	case cur == nil || cur.who != who && cur.calls == 0 && (byAccount || now.Sub(cur.last) > ownerLapse || o.reconnected(cur.who, who)):
		o.m[profile] = &profileOwner{who: who, calls: 1}
	case cur.who == who:
		cur.calls++
	default:
		return false
	}
	if isSess && !o.watched[sess] {
		o.watched[sess] = true
		go func() {
			_ = sess.Wait()
			o.ended(sess)
		}()
	}
	return true
}

// reconnected reports whether who is the client of old come back (see
// sameCaller).
func (o *profileOwners) reconnected(old, who any) bool {
	a, ok1 := old.(*mcp.ServerSession)
	b, ok2 := who.(*mcp.ServerSession)
	return ok1 && ok2 && a != nil && b != nil && o.sameCaller != nil && o.sameCaller(a, b)
}

// done ends one call of who on profile.
func (o *profileOwners) done(who any, profile string, now time.Time) {
	if sess, ok := who.(*mcp.ServerSession); who == nil || ok && sess == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if cur := o.m[profile]; cur != nil && cur.who == who {
		cur.calls--
		cur.last = now
	}
}

// ended frees every profile of a session that closed.
func (o *profileOwners) ended(sess *mcp.ServerSession) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for p, cur := range o.m {
		if cur.who == sess {
			delete(o.m, p)
		}
	}
	delete(o.watched, sess)
	delete(o.shared, sess)
}

// share marks sess as using every profile without owning any (see
// Server.ShareProfilesWith).
func (o *profileOwners) share(sess *mcp.ServerSession) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.shared == nil {
		o.shared = map[*mcp.ServerSession]bool{}
	}
	o.shared[sess] = true
	go func() {
		_ = sess.Wait()
		o.mu.Lock()
		delete(o.shared, sess)
		o.mu.Unlock()
	}()
}

// httpPeers records, per Streamable HTTP session ID, what its requests
// carried (the remote host, the bearer token as a digest) and how many of
// its standalone event streams (GET) are open: enough to tell a client
// that reconnected without DELETE (its old session has no open stream and
// is idle) from another client.
type httpPeers struct {
	idle  time.Duration // the sessions' idle time (Options.SessionIdle; negative: never)
	mu    sync.Mutex
	m     map[string]*httpPeer
	swept int
}

type httpPeer struct {
	host, token string
	streams     int
	last        time.Time
}

// track wraps the HTTP handler: an initialize that starts a session
// records its peer (host, token digest); every later request of the
// session updates it; DELETE forgets it.
func (hp *httpPeers) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("Mcp-Session-Id")
		if id == "" {
			next.ServeHTTP(w, r)
			// An initialize that started a session: its ID is in the answer's
			// header. Only such sessions are recorded, so made-up session IDs
			// cost nothing.
			if sid := w.Header().Get("Mcp-Session-Id"); sid != "" {
				host, _, err := net.SplitHostPort(r.RemoteAddr)
				if err != nil {
					host = r.RemoteAddr
				}
				var tok string
				if t, ok := BearerToken(r); ok {
					tok = runs.TokenDigest(t)
				}
				hp.mu.Lock()
				if hp.m == nil {
					hp.m = map[string]*httpPeer{}
				}
				if hp.m[sid] == nil {
					hp.m[sid] = &httpPeer{host: host, token: tok, last: time.Now()}
					hp.sweepLocked()
				}
				hp.mu.Unlock()
			}
			return
		}
		stream := r.Method == http.MethodGet
		hp.mu.Lock()
		p := hp.m[id]
		if p != nil {
			p.last = time.Now()
			if stream {
				p.streams++
			}
		}
		hp.mu.Unlock()
		if p == nil {
			next.ServeHTTP(w, r)
			return
		}
		defer func() {
			hp.mu.Lock()
			if stream {
				p.streams--
			}
			p.last = time.Now()
			if r.Method == http.MethodDelete {
				delete(hp.m, id)
			}
			hp.mu.Unlock()
		}()
		next.ServeHTTP(w, r)
	})
}

// sweepLocked forgets, every 64 new sessions, the peers silent for longer
// than a session lives idle (their sessions have ended; a day when
// sessions never end). A peer forgotten too early only costs its client
// the at-once takeover.
func (hp *httpPeers) sweepLocked() {
	if hp.swept++; hp.swept%64 != 0 {
		return
	}
	keep := 24 * time.Hour
	if hp.idle > 0 {
		keep = hp.idle + time.Minute
	}
	for id, p := range hp.m {
		if p.streams == 0 && time.Since(p.last) > keep {
			delete(hp.m, id)
		}
	}
}

// sameClient reports whether cur is old's client come back: both are
// Streamable HTTP sessions from the same host with the same bearer token
// and the same clientInfo name and version, and old has no event stream
// open (a client that still listens on it is still there). A token is
// needed: it names the caller (runs.Owner), whereas two local clients
// without one are told apart only by their sessions.
func (hp *httpPeers) sameClient(old, cur *mcp.ServerSession) bool {
	if old.ID() == "" || cur.ID() == "" || old.ID() == cur.ID() {
		return false
	}
	hp.mu.Lock()
	a, b := hp.m[old.ID()], hp.m[cur.ID()]
	same := a != nil && b != nil && a.streams == 0 && a.host == b.host && a.token != "" && a.token == b.token
	hp.mu.Unlock()
	if !same {
		return false
	}
	ai, bi := old.InitializeParams(), cur.InitializeParams()
	return ai != nil && bi != nil && ai.ClientInfo != nil && bi.ClientInfo != nil &&
		ai.ClientInfo.Name == bi.ClientInfo.Name && ai.ClientInfo.Version == bi.ClientInfo.Version
}

// ShareProfilesWith makes one session the person at the desktop's: the
// desktop console's own in-memory session (the person owns the machine's
// browsers and its run store). It uses every profile, whichever session
// owns it, without taking it from that session, and sees, reads and may
// resume every run (runs.Desktop). Other sessions stay isolated from each
// other as before; the shared session's calls never make a profile its
// own, so agents are not refused because the person ran a flow. A nil
// session is ignored.
func (s *Server) ShareProfilesWith(sess *mcp.ServerSession) {
	if sess != nil {
		s.owners.share(sess)
		s.callers.setDesktop(sess)
	}
}

// callProfile is the profile a call of t uses ("" for tools without one):
// a workflow call's (flowCall.profile), else profileId, else the default
// profile.
func callProfile(t *tool, args map[string]any, fc *flowCall) string {
	var p string
	switch {
	case fc != nil:
		return fc.profile
	case t.def.Name == ToolBrowserRead:
		p, _ = args[ProfileArg].(string)
	default:
		return ""
	}
	if p == "" {
		p = profiles.DefaultProfile
	}
	return p
}

func profileInUse(profile string) *jsonrpc.Error {
	return rpcError(CodeBrowser, fmt.Sprintf("profile %q is in use by another MCP session: use another profileId, or start the server with --share-profiles", profile),
		map[string]any{"profileId": profile, "kind": KindProfileInUse})
}

// Host paths and browser output do not belong in a caller's error: the
// operator's log has them. publicMessage keeps the first line of msg, cuts
// it where the browser's own log output starts ("[pid:tid/…:ERROR:…]"),
// and replaces absolute file paths (not URLs) with "<path>".
var (
	hostPath   = regexp.MustCompile(`(?:[A-Za-z]:\\|\\\\|/)(?:[^\s"'<>|:*?]+[/\\])+[^\s"'<>|:*?,;)]*`)
	browserLog = regexp.MustCompile(`\[\d+[/:][^\]]*\]`)
)

func publicMessage(msg string) string {
	if i := strings.IndexAny(msg, "\r\n"); i >= 0 {
		msg = strings.TrimRight(msg[:i], " :")
	}
	if loc := browserLog.FindStringIndex(msg); loc != nil {
		msg = strings.TrimRight(msg[:loc[0]], " :") + " (the browser's output is in the server log)"
	}
	var b strings.Builder
	last := 0
	for _, m := range hostPath.FindAllStringIndex(msg, -1) {
		if m[0] > 0 && (msg[m[0]-1] == ':' || msg[m[0]-1] == '/' || isWordByte(msg[m[0]-1])) {
			continue // part of a URL (scheme://host/path) or of a word
		}
		b.WriteString(msg[last:m[0]])
		b.WriteString("<path>")
		last = m[1]
	}
	b.WriteString(msg[last:])
	msg = b.String()
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return msg
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.'
}

// publicError scrubs a JSON-RPC error's message (and logs the original).
func (s *Server) publicError(tool string, err error) error {
	je, ok := err.(*jsonrpc.Error)
	if !ok {
		return err
	}
	if pm := publicMessage(je.Message); pm != je.Message {
		s.log.Warn("error detail kept out of the caller's answer", "tool", tool, "error", je.Message)
		cp := *je
		cp.Message = pm
		return &cp
	}
	return err
}
