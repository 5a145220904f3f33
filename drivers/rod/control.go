package rod

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/gofrs/flock"
	"github.com/gorilla/websocket"
)

// A headless recording browser is driven by the person's script (`rpa
// record --headless`), yet it speaks CDP only over its pipe, like every
// browser of ours: a DevTools TCP port would let any local user drive the
// browser someone types into. So the recording process shares its one
// pipe connection: it serves a CDP WebSocket on a Unix socket in a folder
// only its user can enter (0700), and cdpMux multiplexes that socket's
// clients onto the pipe next to rod's own client.
//
// CDP over one connection is a stream of commands with numeric ids,
// their answers with the same ids, and events without. A client's command
// gets an id of the mux's own (from muxBase up to 2^31-1: Chromium takes
// only ids that fit an int32; rod's client counts from 1 and never gets
// to muxBase) and its answer gets the client's id back.
// Events of a session a client attached (Target.attachToTarget's
// sessionId) go to that client only, the others to rod's client; events
// of the browser itself (no sessionId) go to everyone.

// ControlScheme is the scheme of a recording's control endpoint: a
// WebSocket over a Unix socket, written ws+unix://SOCKET:PATH as Node's
// `ws` library does.
const ControlScheme = "ws+unix://"

const (
	muxBase     = int64(1) << 30
	controlPath = "/devtools/browser"
)

// cdpMux shares one CDP transport between rod's client (Read, Send) and
// the control socket's clients.
type cdpMux struct {
	t      cdp.WebSocketable
	toRod  chan []byte
	readE  error
	done   chan struct{} // closed when the transport is gone
	quit   chan struct{} // closed by Close
	once   sync.Once
	mu     sync.Mutex
	next   int64
	routes map[int64]route
	owner  map[string]*muxClient // sessionId → the client that attached it
	conns  map[*muxClient]bool
}

type route struct {
	c  *muxClient
	id json.RawMessage
}

type muxClient struct {
	ws *websocket.Conn
	mu sync.Mutex // one writer at a time
}

func (c *muxClient) write(msg []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if err := c.ws.WriteMessage(websocket.TextMessage, msg); err != nil {
		_ = c.ws.Close()
	}
}

func newCDPMux(t cdp.WebSocketable) *cdpMux {
	m := &cdpMux{t: t, toRod: make(chan []byte, 64), done: make(chan struct{}), quit: make(chan struct{}), next: muxBase,
		routes: map[int64]route{}, owner: map[string]*muxClient{}, conns: map[*muxClient]bool{}}
	go m.pump()
	return m
}

// head is what the mux reads of a message to route it.
type head struct {
	ID        *int64 `json:"id"`
	SessionID string `json:"sessionId"`
	Result    struct {
		SessionID string `json:"sessionId"`
	} `json:"result"`
}

// pump routes every message from the browser until the transport ends.
func (m *cdpMux) pump() {
	defer close(m.done)
	for {
		msg, err := m.t.Read()
		if err != nil {
			m.readE = err
			return
		}
		var h head
		if json.Unmarshal(msg, &h) != nil {
			continue
		}
		switch {
		case h.ID != nil && *h.ID >= muxBase:
			m.mu.Lock()
			r, ok := m.routes[*h.ID]
			delete(m.routes, *h.ID)
			if ok && h.Result.SessionID != "" {
				m.owner[h.Result.SessionID] = r.c
			}
			m.mu.Unlock()
			if ok {
				if out, err := setID(msg, r.id); err == nil {
					r.c.write(out)
				}
			}
		case h.ID != nil:
			m.rod(msg)
		case h.SessionID != "":
			m.mu.Lock()
			c := m.owner[h.SessionID]
			m.mu.Unlock()
			if c != nil {
				c.write(msg)
			} else {
				m.rod(msg)
			}
		default:
			m.mu.Lock()
			cs := make([]*muxClient, 0, len(m.conns))
			for c := range m.conns {
				cs = append(cs, c)
			}
			m.mu.Unlock()
			for _, c := range cs {
				c.write(msg)
			}
			m.rod(msg)
		}
	}
}

// rod hands msg to rod's client (dropped once the mux is closed).
func (m *cdpMux) rod(msg []byte) {
	select {
	case m.toRod <- msg:
	case <-m.quit:
	}
}

// Close ends the transport (rod's client closing it).
func (m *cdpMux) Close() error {
	var err error
	m.once.Do(func() {
		close(m.quit)
		if c, ok := m.t.(interface{ Close() error }); ok {
			err = c.Close()
		}
	})
	return err
}

// setID returns msg with its "id" replaced.
func setID(msg []byte, id json.RawMessage) ([]byte, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(msg, &fields); err != nil {
		return nil, err
	}
	fields["id"] = id
	return json.Marshal(fields)
}

// Send is rod's client sending a command.
func (m *cdpMux) Send(data []byte) error { return m.t.Send(data) }

// Read is rod's client reading the next message for it.
func (m *cdpMux) Read() ([]byte, error) {
	select {
	case msg := <-m.toRod:
		return msg, nil
	case <-m.done:
		select {
		case msg := <-m.toRod:
			return msg, nil
		default:
		}
		return nil, m.readE
	}
}

// serve relays one control client's commands until it leaves or the
// browser is gone.
func (m *cdpMux) serve(ws *websocket.Conn) {
	c := &muxClient{ws: ws}
	// gorilla writes a server's message as one frame (Conn.WriteMessage),
	// which is what rod's reader expects.
	m.mu.Lock()
	m.conns[c] = true
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		delete(m.conns, c)
		for id, r := range m.routes {
			if r.c == c {
				delete(m.routes, id)
			}
		}
		for s, o := range m.owner {
			if o == c {
				delete(m.owner, s)
			}
		}
		m.mu.Unlock()
		_ = ws.Close()
	}()
	ws.SetReadLimit(64 << 20)
	for {
		typ, msg, err := ws.ReadMessage()
		if err != nil {
			return
		}
		var h struct {
			ID json.RawMessage `json:"id"`
		}
		if typ != websocket.TextMessage || json.Unmarshal(msg, &h) != nil || len(h.ID) == 0 {
			return // not CDP
		}
		m.mu.Lock()
		id := m.next
		if m.next++; m.next > math.MaxInt32 {
			m.next = muxBase
		}
		m.routes[id] = route{c: c, id: h.ID}
		m.mu.Unlock()
		out, err := setID(msg, json.RawMessage(fmt.Sprint(id)))
		if err != nil {
			return
		}
		if err := m.t.Send(out); err != nil {
			return
		}
	}
}

// dropClients disconnects every control client.
func (m *cdpMux) dropClients() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for c := range m.conns {
		_ = c.ws.Close()
	}
}

// control is a recording's control socket.
type control struct {
	mux  *cdpMux
	dir  string
	lock *flock.Flock // held while the folder is in use (sweepControlDirs)
	srv  *http.Server
	url  string
}

// controlDirPrefix names a recording's control folder under the system's
// temporary folder (the Unix socket path limit, about 108 bytes, keeps it
// out of $RPA_HOME).
const controlDirPrefix = "rpa-record-"

// controlDirGrace is how old a control folder whose lock nobody holds must
// be before sweepControlDirs removes it: a recording that has just made
// its folder takes the lock a moment later.
const controlDirGrace = time.Minute

// serveControl serves m's control clients on a Unix socket in a new
// folder (0700) under the system's temporary folder, holding the
// folder's lock file; close stops it and removes the folder. Folders of
// recordings that were killed (their lock free) are removed first.
func serveControl(m *cdpMux) (*control, error) {
	sweepControlDirs(os.TempDir(), time.Now())
	dir, err := os.MkdirTemp("", controlDirPrefix)
	if err != nil {
		return nil, err
	}
	lock := flock.New(filepath.Join(dir, "lock"))
	if ok, err := lock.TryLock(); !ok || err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("control socket: cannot lock its folder: %v", err)
	}
	sock := filepath.Join(dir, "cdp")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		_ = lock.Unlock()
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("control socket: %w", err)
	}
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }} // a Unix socket: no web page reaches it
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != controlPath {
			http.NotFound(w, r)
			return
		}
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		m.serve(ws)
	})}
	go func() { _ = srv.Serve(ln) }()
	return &control{mux: m, dir: dir, lock: lock, srv: srv, url: ControlScheme + sock + ":" + controlPath}, nil
}

// sweepControlDirs removes the control folders under tmp left by
// recordings killed before their close (kill -9 leaves the folder and
// its socket file): those older than controlDirGrace at now whose lock
// nobody holds. Folders of other users cannot be locked and stay.
func sweepControlDirs(tmp string, now time.Time) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, controlDirPrefix+"*"))
	for _, dir := range dirs {
		fi, err := os.Lstat(dir)
		if err != nil || !fi.IsDir() || now.Sub(fi.ModTime()) < controlDirGrace {
			continue
		}
		lock := flock.New(filepath.Join(dir, "lock"))
		if ok, err := lock.TryLock(); ok && err == nil {
			_ = os.RemoveAll(dir)
			_ = lock.Unlock()
		}
	}
}

func (c *control) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = c.srv.Shutdown(ctx)
	_ = c.srv.Close()
	c.mux.dropClients() // hijacked: the server does not close them
	_ = os.RemoveAll(c.dir)
	_ = c.lock.Unlock()
}

// ConnectControl connects rod to a recording's control endpoint
// (Recording.ControlURL: ws+unix://SOCKET:PATH), for a script or test
// that drives the recording browser as a person would. The browser lives
// on ctx; Close of the result closes the browser (ending the recording).
func ConnectControl(ctx context.Context, endpoint string) (*rod.Browser, error) {
	rest, ok := strings.CutPrefix(endpoint, ControlScheme)
	i := strings.LastIndex(rest, ":/")
	if !ok || i < 0 {
		return nil, fmt.Errorf("control endpoint %q: want %sSOCKET:/PATH", endpoint, ControlScheme)
	}
	sock, path := rest[:i], rest[i+1:]
	ws := &cdp.WebSocket{Dialer: unixDialer(sock)}
	key := make([]byte, 16)
	_, _ = rand.Read(key)
	// rod's own handshake sends a key that is not one (RFC 6455 4.1)
	hdr := http.Header{"Sec-WebSocket-Key": {base64.StdEncoding.EncodeToString(key)}}
	if err := ws.Connect(ctx, "ws://localhost"+path, hdr); err != nil {
		return nil, fmt.Errorf("connect %s: %w", endpoint, err)
	}
	b := rod.New().Context(ctx).Client(cdp.New().Start(ws))
	if err := b.Connect(); err != nil {
		_ = ws.Close()
		return nil, err
	}
	return b, nil
}

// unixDialer dials its socket whatever address it is given.
type unixDialer string

func (d unixDialer) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	var nd net.Dialer
	return nd.DialContext(ctx, "unix", string(d))
}
