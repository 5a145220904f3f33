package ui

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/internal/host/localctl"
	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
)

// Options configure a console Server.
type Options struct {
	// Home is $RPA_HOME (profiles, runs, the record store live under it).
	Home string
	// FlowsDir is the folder of flows the console shows, edits and runs.
	FlowsDir string
	// ServedDir is the folder the Publish dialog publishes to (what `rpa publish` writes to);
	// "" is $RPA_HOME/flows (Home/flows). When it is FlowsDir, publishing rewrites the file in
	// place and a flow is published when it loads there.
	ServedDir string
	// Listen is the loopback address to bind ("127.0.0.1:0" when empty; port 0 picks a free
	// port). CheckListen says which addresses are accepted.
	Listen string
	// Listener, when set, is the console's socket already bound on Listen (rpa ui binds it
	// before loading the flows, so a busy port is told at once); Listen then uses it.
	Listener net.Listener
	// Log receives the access log (method, path, status) and the console's own messages; nil
	// discards them. Nothing a person typed is ever written to it.
	Log io.Writer
	// Hosting names what the same process also serves, for the Status page, e.g.
	// "MCP Streamable HTTP at http://127.0.0.1:8080/mcp" or "connected to wss://gw/link".
	Hosting []string
	// Browsers are the --browser values the process was started with (passed on to runs the
	// console starts), empty for the default Chromium.
	Browsers []string
	// Tools is the MCP server of the served folder: the Run page runs its workflow tools over an
	// in-memory session (as an agent would: same schema, masking, run record, browser pool), and
	// Publish reloads it. Nil: the Run page says runs are not available here.
	Tools *mcpserver.Server
	// Token fixes the start token (tests); empty means a fresh random one, the normal case.
	Token string
	// Schedules is called after the Schedules page paused, resumed or queued a run of a
	// schedule, so this process's scheduler looks at once (rpa ui passes its Kick); nil: the
	// scheduler firing them sees the change at its next poll.
	Schedules func()
}

// Server is one console: its token, its options, its pages. Create it with New.
type Server struct {
	opts  Options
	token string
	ln    net.Listener
	port  string

	logMu sync.Mutex

	handler   http.Handler
	once      sync.Once
	closeOnce sync.Once

	// runCtx is the context of the runs the console starts; Close cancels it.
	runCtx   context.Context
	stopRuns context.CancelFunc

	// ext holds per-feature state pages keep on the Server (see Server.Value).
	extMu sync.Mutex
	ext   map[any]any
}

// New makes a console Server with a fresh random token. It fails when opts.Listen is not a
// loopback address.
func New(opts Options) (*Server, error) {
	if opts.Listen == "" {
		opts.Listen = "127.0.0.1:0"
	}
	if err := CheckListen(opts.Listen); err != nil {
		return nil, err
	}
	tok := opts.Token
	if tok == "" {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("ui: making the start token: %w", err)
		}
		tok = hex.EncodeToString(b)
	}
	s := &Server{opts: opts, token: tok, ext: map[any]any{}}
	s.runCtx, s.stopRuns = context.WithCancel(context.Background())
	return s, nil
}

// CheckListen accepts host:port addresses whose host is a loopback IP (127.0.0.0/8, ::1) or
// "localhost", and refuses anything else (an empty host, 0.0.0.0, a LAN address) with an error
// that says why: the console edits and runs flows with the person's browser profiles, so it must
// not be reachable from another machine.
func CheckListen(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: want HOST:PORT on loopback, e.g. 127.0.0.1:7788 (%v)", addr, err)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("--listen %q: port %q is not a number from 0 to 65535", addr, port)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--listen %q: the console listens on loopback only (127.0.0.1, [::1] or localhost): it edits and runs flows with this desktop's browser profiles and must not be reachable from another machine", addr)
}

// Token is the per-start token every request must present (see the package doc).
func (s *Server) Token() string { return s.token }

// Home is Options.Home.
func (s *Server) Home() string { return s.opts.Home }

// FlowsDir is Options.FlowsDir.
func (s *Server) FlowsDir() string { return s.opts.FlowsDir }

// Options returns the options the Server was made with (Token left out).
func (s *Server) Options() Options {
	o := s.opts
	o.Token = ""
	return o
}

// Listen binds Options.Listen. After it, Addr and URL are known.
func (s *Server) Listen() error {
	ln := s.opts.Listener
	if ln == nil {
		var err error
		if ln, err = ListenConsole(s.opts.Listen); err != nil {
			return err
		}
	}
	s.ln = ln
	_, s.port, _ = net.SplitHostPort(ln.Addr().String())
	return nil
}

// ListenConsole binds the console's address; a failure says which address and why in a
// person's words ("127.0.0.1:7788 is taken: bind: address already in use; choose another with
// --listen, or port 0 for a free one").
func ListenConsole(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		why := err.Error()
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Err != nil {
			why = oe.Err.Error()
		}
		return nil, fmt.Errorf("cannot listen on %s (%s): choose another address with --listen, e.g. 127.0.0.1:0 for a free port", addr, why)
	}
	return ln, nil
}

// Addr is the bound address (host:port), empty before Listen.
func (s *Server) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// URL is the console's first-load address with the token, e.g.
// http://127.0.0.1:7788/?t=TOKEN; empty before Listen.
func (s *Server) URL() string {
	if s.ln == nil {
		return ""
	}
	return "http://" + s.ln.Addr().String() + "/?t=" + s.token
}

// Serve serves the console on the listener bound by Listen until ctx is cancelled, then shuts
// down (open event streams are closed) and returns nil; another error is returned as is.
func (s *Server) Serve(ctx context.Context) error {
	if s.ln == nil {
		return errors.New("ui: Serve before Listen")
	}
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	defer s.Close()
	// While it serves, a question asked where no page of it is open says where it is
	// (hitl.Console; the address without the token).
	if reg, err := localctl.Register(s.home(), localctl.Entry{Kind: localctl.KindUI, Program: "rpa ui", URL: "http://" + s.ln.Addr().String() + "/"}); err == nil {
		defer reg.Close()
	} else {
		s.Logf("ui: the address will not be named to questions no page takes: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(s.ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		s.Close() // runs end as cancelled, their event streams end
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if err := hs.Shutdown(sctx); err != nil {
			hs.Close()
		}
		<-done
		return nil
	}
}

// Close stops the runs the console started (they end as cancelled), its session with the tools
// and what the other pages opened (closeQuestions). Serve calls it when it returns; it may be
// called more than once.
func (s *Server) Close() {
	s.closeOnce.Do(s.close)
}

func (s *Server) close() {
	s.stopRuns()
	s.closeDebug()     // debug.go: the debug runs end and their browsers close
	s.closeQuestions() // questions.go: the broker, the run store, a recording
	s.closePickers()   // picker.go: the picker's browser
	ts, _ := s.Value(toolsKey{}, func() any { return &toolSession{} }).(*toolSession)
	ts.mu.Lock()
	if ts.c != nil {
		ts.c.close()
		ts.c = nil
	}
	ts.mu.Unlock()
}

// Logf writes one line to Options.Log. Never pass it a value a person typed.
func (s *Server) Logf(format string, args ...any) {
	if s.opts.Log == nil {
		return
	}
	line := fmt.Sprintf(format, args...)
	if !strings.HasSuffix(line, "\n") {
		line += "\n"
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	io.WriteString(s.opts.Log, line)
}

// Value returns the per-Server state stored under key, making it with mk on first use (a page
// keeps its caches or brokers here; key is usually an unexported type of the page's file).
func (s *Server) Value(key any, mk func() any) any {
	s.extMu.Lock()
	defer s.extMu.Unlock()
	v, ok := s.ext[key]
	if !ok {
		v = mk()
		s.ext[key] = v
	}
	return v
}

// Handler is the whole console behind its security checks.
func (s *Server) Handler() http.Handler {
	s.once.Do(func() {
		mux := http.NewServeMux()
		registry.mu.Lock()
		routes := append([]route(nil), registry.routes...)
		registry.mu.Unlock()
		for _, rt := range routes {
			h := rt.h
			mux.HandleFunc(rt.pattern, func(w http.ResponseWriter, r *http.Request) { h(s, w, r) })
		}
		s.handler = s.guard(mux)
	})
	return s.handler
}
