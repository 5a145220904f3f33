package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/mrtr"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
)

// notifications/tasks/status (2025-11-25): a task's caller that listens
// gets each change of its task's status. The go-sdk (v1.8.0) sends only
// the notifications it knows, so they are written below it, where a
// session's messages leave: on stdio (and in-process) through the session's
// connection (ListenTransport), on Streamable HTTP on the session's GET
// stream (listenHTTP), the stream a 2025-11-25 client opens to listen.
// (For upstream: a ServerSession method to send a notification by name
// would make this unnecessary.)

// MethodTaskStatus is the 2025-11-25 task status notification.
const MethodTaskStatus = "notifications/tasks/status"

// taskListeners are the places a session's notifications can be written,
// by the session's digest (runs.Owner.Session).
type taskListeners struct {
	mu sync.Mutex
	m  map[string]func(msg []byte) error
}

func (l *taskListeners) add(digest string, write func([]byte) error) func() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]func([]byte) error{}
	}
	l.m[digest] = write
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.m, digest)
	}
}

func (l *taskListeners) get(digest string) func([]byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m[digest]
}

// taskChanged is the task manager's Changed hook: a 2025-11-25 task's new
// status goes to the session that created it, when it listens.
func (s *Server) taskChanged(r *tasks.Record) {
	if r.Era >= mrtr.Protocol || r.Owner.Session == "" {
		return
	}
	write := s.taskEars.get(r.Owner.Session)
	if write == nil {
		return
	}
	params, err := json.Marshal(tasks.V1(r))
	if err != nil {
		return
	}
	msg, err := jsonrpc.EncodeMessage(&jsonrpc.Request{Method: MethodTaskStatus, Params: params})
	if err == nil {
		_ = write(msg) // a listener that went away misses it: tasks/get has it
	}
}

// ListenTransport wraps a server transport (stdio, in-process) so that the
// session on it gets notifications/tasks/status: its connection is where
// they are written. Connect the server with it and call Server.Listening
// with the session.
func (s *Server) ListenTransport(t mcp.Transport) mcp.Transport {
	return &listenTransport{Transport: t, s: s}
}

type listenTransport struct {
	mcp.Transport
	s    *Server
	mu   sync.Mutex
	conn mcp.Connection
}

func (t *listenTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err == nil {
		t.mu.Lock()
		t.conn = c
		t.mu.Unlock()
	}
	return c, err
}

// Listening registers sess, connected over a ListenTransport, as a
// listener for its tasks' status until it ends.
func (s *Server) Listening(sess *mcp.ServerSession, t mcp.Transport) {
	lt, ok := t.(*listenTransport)
	if !ok || sess == nil {
		return
	}
	lt.mu.Lock()
	conn := lt.conn
	lt.mu.Unlock()
	if conn == nil {
		return
	}
	remove := s.taskEars.add(s.callers.session(sess), func(msg []byte) error {
		m, err := jsonrpc.DecodeMessage(msg)
		if err != nil {
			return err
		}
		return conn.Write(context.Background(), m)
	})
	go func() {
		_ = sess.Wait()
		remove()
	}()
}

// listenHTTP wraps the Streamable HTTP handler: the GET stream of a
// session (its standalone SSE stream) is where its task status
// notifications are written, as SSE events between the SDK's own (each
// write whole, under one lock).
func (s *Server) listenHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get("Mcp-Session-Id")
		if r.Method != http.MethodGet || sid == "" {
			next.ServeHTTP(w, r)
			return
		}
		sw := &sseWriter{ResponseWriter: w}
		remove := s.taskEars.add(runs.SessionDigest(sid), sw.event)
		defer remove()
		next.ServeHTTP(sw, r)
	})
}

// sseWriter serialises the SDK's writes and the notifications written on
// one SSE stream.
type sseWriter struct {
	http.ResponseWriter
	mu      sync.Mutex
	started bool // the SDK has written its header (the stream is open)
}

func (w *sseWriter) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.started = code == http.StatusOK
	w.ResponseWriter.WriteHeader(code)
}

func (w *sseWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.started = true
	return w.ResponseWriter.Write(p)
}

// Flush passes through.
func (w *sseWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *sseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// event writes msg as one SSE message event, once the stream is open.
func (w *sseWriter) event(msg []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.started {
		return http.ErrBodyNotAllowed
	}
	buf := make([]byte, 0, len(msg)+24)
	buf = append(buf, "event: message\ndata: "...)
	buf = append(buf, msg...)
	buf = append(buf, "\n\n"...)
	if _, err := w.ResponseWriter.Write(buf); err != nil {
		return err
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}
