// Package mcpws carries MCP (JSON-RPC 2.0) over a WebSocket: one JSON-RPC message per text frame,
// subprotocol "mcp" (the convention of the TypeScript SDK's WebSocket transport), plus link control
// frames (JSON objects with a "type" field and no "jsonrpc" field, such as `register`).
//
// A Link is the framed socket shared by both ends of the desktop link (`rpa connect` and
// `rpa gateway`): it caps frame size, serialises writes, pings the peer and declares it dead when
// nothing (frame or pong) arrived for two ping intervals. Both ends multiplex MCP sessions over
// one link themselves and read it with ReadMessage.
package mcpws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Subprotocol is the WebSocket subprotocol both ends negotiate ("mcp").
const Subprotocol = "mcp"

// DefaultMaxFrame is the default cap on one inbound frame, in bytes (16 MiB: a base64 PNG
// screenshot fits with room to spare). A bigger frame closes the link with close code 1009.
const DefaultMaxFrame = 16 << 20

// DefaultPingInterval is the default interval between pings. A peer from which nothing arrived
// for two intervals is considered dead and the link is closed.
const DefaultPingInterval = 15 * time.Second

// DefaultWriteTimeout bounds one frame write.
const DefaultWriteTimeout = 10 * time.Second

// Options tunes a Link. The zero value uses the defaults above.
type Options struct {
	// PingInterval is the time between pings; the peer is dead after 2 intervals of silence.
	PingInterval time.Duration
	// MaxFrame caps one inbound frame in bytes (0 = DefaultMaxFrame).
	MaxFrame int64
	// WriteTimeout bounds one write (0 = DefaultWriteTimeout).
	WriteTimeout time.Duration
}

func (o Options) withDefaults() Options {
	if o.PingInterval <= 0 {
		o.PingInterval = DefaultPingInterval
	}
	if o.MaxFrame <= 0 {
		o.MaxFrame = DefaultMaxFrame
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	return o
}

// ErrFrameTooLarge is returned by ReadFrame (wrapped) when the peer sent a frame over the cap.
var ErrFrameTooLarge = errors.New("frame exceeds the size cap")

// Link is one WebSocket connection carrying text frames. ReadFrame must be called from one
// goroutine at a time; WriteFrame, Close and Done are safe for concurrent use.
type Link struct {
	ws   *websocket.Conn
	opts Options

	wmu       sync.Mutex
	done      chan struct{}
	closeOnce sync.Once
}

// NewLink wraps an established WebSocket connection and starts its pinger. Use Dial or Upgrade to
// get one with the subprotocol negotiated.
func NewLink(ws *websocket.Conn, opts Options) *Link {
	opts = opts.withDefaults()
	l := &Link{ws: ws, opts: opts, done: make(chan struct{})}
	ws.SetReadLimit(opts.MaxFrame)
	_ = ws.SetReadDeadline(time.Now().Add(2 * opts.PingInterval))
	ws.SetPongHandler(func(string) error {
		return ws.SetReadDeadline(time.Now().Add(2 * opts.PingInterval))
	})
	ws.SetPingHandler(func(data string) error {
		_ = ws.SetReadDeadline(time.Now().Add(2 * opts.PingInterval))
		err := ws.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(opts.WriteTimeout))
		if err != nil && !errors.Is(err, websocket.ErrCloseSent) {
			return err
		}
		return nil
	})
	go l.pinger()
	return l
}

func (l *Link) pinger() {
	t := time.NewTicker(l.opts.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-l.done:
			return
		case <-t.C:
			if err := l.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(l.opts.WriteTimeout)); err != nil {
				l.Close()
				return
			}
		}
	}
}

// ReadFrame returns the next text frame. Binary frames are skipped. Any error is final: the link
// is closed. A frame over the cap yields an error wrapping ErrFrameTooLarge (the peer is told with
// close code 1009); silence for two ping intervals yields a timeout error.
func (l *Link) ReadFrame() ([]byte, error) {
	for {
		typ, data, err := l.ws.ReadMessage()
		if err != nil {
			if errors.Is(err, websocket.ErrReadLimit) {
				l.CloseWith(websocket.CloseMessageTooBig, fmt.Sprintf("frame over %d bytes", l.opts.MaxFrame))
				return nil, fmt.Errorf("%w (%d bytes)", ErrFrameTooLarge, l.opts.MaxFrame)
			}
			l.Close()
			return nil, err
		}
		_ = l.ws.SetReadDeadline(time.Now().Add(2 * l.opts.PingInterval))
		if typ == websocket.TextMessage {
			return data, nil
		}
	}
}

// WriteFrame sends one text frame. It fails once the link is closed.
func (l *Link) WriteFrame(b []byte) error {
	select {
	case <-l.done:
		return ErrClosed
	default:
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	_ = l.ws.SetWriteDeadline(time.Now().Add(l.opts.WriteTimeout))
	if err := l.ws.WriteMessage(websocket.TextMessage, b); err != nil {
		l.Close()
		return err
	}
	return nil
}

// WriteJSON marshals v and sends it as one text frame.
func (l *Link) WriteJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return l.WriteFrame(b)
}

// ErrClosed is returned by WriteFrame on a closed link.
var ErrClosed = errors.New("websocket link closed")

// Close closes the link with a normal close frame. It is idempotent.
func (l *Link) Close() error {
	l.CloseWith(websocket.CloseNormalClosure, "")
	return nil
}

// CloseWith closes the link, telling the peer code and reason (best effort). Idempotent.
func (l *Link) CloseWith(code int, reason string) {
	l.closeOnce.Do(func() {
		close(l.done)
		_ = l.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
		_ = l.ws.Close()
	})
}

// Abort drops the connection without a close frame, as a network cut would (the peer sees an
// abnormal closure, or nothing until its dead-peer timeout). Idempotent with Close.
func (l *Link) Abort() {
	l.closeOnce.Do(func() {
		close(l.done)
		_ = l.ws.NetConn().Close()
	})
}

// Done is closed when the link is closed (by either side, or a failed read or write).
func (l *Link) Done() <-chan struct{} { return l.done }

// RemoteAddr is the peer's network address.
func (l *Link) RemoteAddr() string { return l.ws.RemoteAddr().String() }

// Dial opens a link to url (ws:// or wss://) with subprotocol "mcp", sending token (if any) as
// `Authorization: Bearer TOKEN`. On an HTTP refusal the error names the status (e.g. 401).
func Dial(ctx context.Context, url, token string, opts Options) (*Link, error) {
	d := websocket.Dialer{
		Proxy:            http.ProxyFromEnvironment,
		HandshakeTimeout: 10 * time.Second,
		Subprotocols:     []string{Subprotocol},
	}
	h := http.Header{}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	ws, resp, err := d.DialContext(ctx, url, h)
	if err != nil {
		if resp != nil {
			return nil, &DialError{URL: redactURL(url), StatusCode: resp.StatusCode, Status: resp.Status}
		}
		return nil, fmt.Errorf("dial %s: %w", redactURL(url), err)
	}
	return NewLink(ws, opts), nil
}

// redactURL drops any query string (which might carry a secret) from url for messages.
func redactURL(u string) string {
	for i := 0; i < len(u); i++ {
		if u[i] == '?' {
			return u[:i] + "?…"
		}
	}
	return u
}

var upgrader = websocket.Upgrader{
	Subprotocols:    []string{Subprotocol},
	CheckOrigin:     func(*http.Request) bool { return true }, // desktops are not browsers; the token guards
	ReadBufferSize:  32 << 10,
	WriteBufferSize: 32 << 10,
}

// Upgrade turns an HTTP request into a link (subprotocol "mcp" when the client offers it). On
// failure the HTTP error has already been written.
func Upgrade(w http.ResponseWriter, r *http.Request, opts Options) (*Link, error) {
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return nil, err
	}
	return NewLink(ws, opts), nil
}
