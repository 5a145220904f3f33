package mcpserver

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/host/profiles"
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

// claim makes profile who's (profileKey) for one call, or says whose it
// is. A nil who (no MCP session known) always passes.
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
	switch {
	case cur == nil || cur.who != who && cur.calls == 0 && now.Sub(cur.last) > ownerLapse:
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
