package flowserver

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/link/mcpws"
	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
	"github.com/rpa-dev/rpa/internal/serve/mrtr"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
)

// ServeStdio serves one MCP session over in and out (the process's stdin
// and stdout) until the input ends or ctx ends. When ctx ends, the calls
// in flight are cancelled and the input is ended: the transport then waits
// for their answers before the session ends. An input that ended or a
// cancelled session is no error.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	s.Log.Info("serving MCP over stdio", "flows", s.Dir, "tools", len(s.MCP.ToolNames()))
	defer s.announce("MCP over stdio")() // announce.go
	r := newStopReader(in)
	defer s.onCancel(ctx, r.stop)()
	// A tools/call's 2025-11-25 `task` param reaches the tasks middleware
	// through tasks.LiftTransport (the SDK's params type has no field for
	// it); the session hears of its tasks' status (ListenTransport).
	t := s.MCP.ListenTransport(tasks.LiftTransport(&mcpserver.StdioTransport{In: r, Out: out, Logger: s.Log}))
	ss, err := s.MCP.MCP().Connect(context.Background(), t, nil)
	if err == nil {
		s.MCP.Listening(ss, t)
		err = ss.Wait()
	}
	if err != nil && !errors.Is(err, context.Canceled) && !isEOF(err) {
		return err
	}
	// Tasks outlive their connection: with the input ended, the process
	// stays until they end (their results are in the run store for the
	// client's next session); a signal cancels them.
	if n := s.MCP.Tasks().Live(); n > 0 && ctx.Err() == nil {
		s.Log.Info("input ended; waiting for the tasks still running (a signal cancels them)", "tasks", n)
		_ = s.MCP.Tasks().WaitIdle(ctx)
	}
	return nil
}

// isEOF reports an error of an input that ended or was closed.
func isEOF(err error) bool {
	return strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "closed")
}

// ServeHTTP serves Streamable HTTP on ln (mcpserver.Server.HTTPHandler:
// bearer token when token is not "") until ctx ends: then the calls in
// flight are cancelled, so their streams end, and the HTTP server shuts
// down (3 s at most). A server closed that way is no error.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, tokens ...string) error {
	addr := ln.Addr().String()
	if !mcpserver.IsLoopback(addr) && len(tokens) == 0 {
		s.Log.Warn("listening beyond loopback without --token: anyone who reaches this port can run your flows", "addr", addr)
	}
	hs := &http.Server{Handler: s.MCP.HTTPHandler(tokens...), ReadHeaderTimeout: 10 * time.Second}
	s.Log.Info("serving MCP over Streamable HTTP", "addr", addr, "flows", s.Dir, "tools", len(s.MCP.ToolNames()), "tokens", len(tokens))
	defer s.announce("MCP over Streamable HTTP at " + addr)() // announce.go
	stop := context.AfterFunc(ctx, func() {
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		s.MCP.Close() // cancels calls in flight so their streams end
		_ = hs.Shutdown(sctx)
	})
	defer stop()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// AnswerGrace is how long a link is kept after the cancelled calls
// returned, for their answers to be written up the link.
const AnswerGrace = 500 * time.Millisecond

// Dial makes the link of the server to a backend (rpa gateway): o's URL,
// DeviceID, Token, Once and Link are the caller's; the MCP server, its
// tool names, the capabilities (desktop_exec with AllowExec) and the
// logger are the server's, and a change of the flows folder is announced
// up the link. A bad option is connect.New's error.
func (s *Server) Dial(o connect.Options) (*connect.Client, error) {
	o.Server, o.ToolNames, o.Logger = s.MCP.MCP(), s.MCP.ToolNames, s.Log
	o.OnState = s.linkState(o.URL, o.OnState) // announce.go
	// The gateway asks for tasks with the task param (tasks.LiftTransport); params the SDK
	// cannot decode are answered naming the field (mrtr.CheckTransport).
	o.Wrap = func(t mcp.Transport) mcp.Transport { return mrtr.CheckTransport(tasks.LiftTransport(t)) }
	o.Capabilities = []string{mcpws.CapBrowserControl, mcpws.CapWorkflowExecution}
	if s.cfg.AllowExec {
		o.Capabilities = append([]string{mcpws.CapDesktopExec}, o.Capabilities...)
	}
	c, err := connect.New(o)
	if err != nil {
		return nil, err
	}
	s.MCP.OnToolsChanged(c.ToolsChanged)
	if s.leases != nil {
		s.leases.SetClient(c)
	}
	return c, nil
}

// ServeLink runs the link c (made by Dial) until ctx ends, or until it
// fails for good (connect.Client.Run: a refused desktop, or the first
// disconnect with Once). When ctx ends the calls in flight are cancelled
// and the link stays up AnswerGrace more, so their cancelled results reach
// the backend.
func (s *Server) ServeLink(ctx context.Context, c *connect.Client) error {
	defer s.announce("MCP over the link to a gateway")() // announce.go
	runCtx, endRun := context.WithCancel(context.Background())
	defer endRun()
	defer s.onCancel(ctx, func() { time.Sleep(AnswerGrace); endRun() })()
	return c.Run(runCtx)
}

// stopReader passes r through until stop is called; from then on reads
// end with io.EOF (a read of r still blocked is left behind: the process
// is ending).
type stopReader struct {
	pr   *io.PipeReader
	pw   *io.PipeWriter
	once sync.Once
}

func newStopReader(r io.Reader) *stopReader {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, r)
		_ = pw.CloseWithError(err) // nil: EOF for the reader
	}()
	return &stopReader{pr: pr, pw: pw}
}

// Read reads the input until stop (io.Reader).
func (s *stopReader) Read(p []byte) (int, error) { return s.pr.Read(p) }

// stop ends the input.
func (s *stopReader) stop() { s.once.Do(func() { _ = s.pw.Close() }) }
