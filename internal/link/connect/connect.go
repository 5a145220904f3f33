// Package connect is the desktop end of the client-initiated WebSocket link (`rpa connect`): it
// dials out to a backend such as `rpa gateway`, registers its device id and tool names, and answers
// the JSON-RPC requests that arrive on the socket with the same go-sdk server every other transport
// uses (PROTOCOL.md, "Transports").
//
// Each link carries a new MCP session. A call still running when its link drops keeps running; its
// answer is kept and sent on the next link after that session's notifications/initialized. Request
// ids are remembered per device for DedupTTL (10 min): a request whose id is running is not run
// again, and one already answered gets the kept answer instead of a second run.
package connect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rpa-dev/rpa/internal/link/mcpws"
)

// MetaRelatedRequest is the `_meta` key that ties a desktop-to-backend request (elicitation,
// sampling) to the backend's tools/call that caused it: the desktop stamps each incoming
// tools/call with its own request id under this key and copies it into the requests the call makes,
// so a gateway with many agents on one link knows whom to ask.
const MetaRelatedRequest = "rpa.dev/relatedRequestId"

// DefaultDedupTTL is how long answered request ids are remembered.
const DefaultDedupTTL = 10 * time.Minute

// CodeLinkDown is the JSON-RPC error code a desktop-side request (elicitation, sampling) gets when
// the link to the backend is down: -32601, which the human-in-the-loop code treats as "try the
// next channel".
const CodeLinkDown = jsonrpc.CodeMethodNotFound

// WebSocket close codes a backend sends on a desktop link (the 4000-4999 range is for
// applications, RFC 6455 section 7.4.2).
const (
	// CloseReplaced: the backend replaced this link (it stopped answering pings) with a newer
	// link of the same device id.
	CloseReplaced = 4000
	// CloseRevoked: the device token this link was admitted with is no longer in the backend's
	// device file (the device was revoked); the link is closed at once.
	CloseRevoked = 4001
	// CloseWrongDevice: the token presented belongs to another device id.
	CloseWrongDevice = 4003
	// CloseIDInUse: another link holding this device id is connected and answering.
	CloseIDInUse = 4009
	// CloseRestart is RFC 6455's "service restart" (1012): the backend is going away (a
	// gateway replica draining on SIGTERM). A desktop with several addresses links to another
	// one at once, with jitter; with one address it re-dials by Backoff.
	CloseRestart = 1012
)

// ErrDisconnected is returned by Run with Once set when the first link ends.
var ErrDisconnected = errors.New("link to the backend ended")

// Options configures a Client.
type Options struct {
	// URL is the backend's WebSocket URL, ws:// or wss://.
	URL string
	// More are further addresses of the same backend (the other replicas of an `rpa gateway`
	// cluster). The desktop links to the first of URL, More... that answers, and when its link
	// ends it dials another one at once, picked at random (so the desktops of a replica that died
	// spread over the others), after a jitter of up to RelinkJitter, going through
	// every address before it waits by Backoff.
	More []string
	// RelinkJitter bounds the random wait before re-dialling after a link ended, when there are
	// several addresses (default 1s): a replica's desktops do not all arrive at once at the
	// others when it dies or drains.
	RelinkJitter time.Duration
	// DeviceID names this desktop at the backend; required.
	DeviceID string
	// Token, if set, is sent as `Authorization: Bearer TOKEN`. It is never logged.
	Token string
	// Server answers the requests; required. New adds one receiving middleware to it (it reads
	// MetaRelatedRequest; harmless on other transports).
	Server *mcp.Server
	// ToolNames lists the tool names sent in `register`; nil sends none.
	ToolNames func() []string
	// Capabilities sent in `register`; nil means [browser_control workflow_execution].
	Capabilities []string
	// Once makes Run return ErrDisconnected at the first disconnect (or failed dial) instead of
	// re-dialling.
	Once bool
	// Backoff is the re-dial schedule; zero value = defaults (see Backoff).
	Backoff Backoff
	// Link tunes ping interval, frame cap and write timeout.
	Link mcpws.Options
	// DedupTTL is how long answered ids are remembered (0 = DefaultDedupTTL).
	DedupTTL time.Duration
	// Logger receives link state changes; nil = slog.Default().
	Logger *slog.Logger
	// OnState, if set, is called (synchronously, keep it short) on every link state change.
	OnState func(State)
	// Wrap, if set, wraps each link session's transport before Server connects to it (the flow
	// server lifts a tools/call's task param there, tasks.LiftTransport).
	Wrap func(mcp.Transport) mcp.Transport
}

// State is a link state.
type State int

// Link states, in the order a link goes through them.
const (
	StateDialing State = iota // dialling the backend
	StateUp                   // connected and registered
	StateDown                 // the link ended; waiting before the next dial
	StateRefused              // the backend refused this desktop (token, device id); waiting long
)

// String names the state as logged: "dialing", "up", "down".
func (s State) String() string {
	switch s {
	case StateDialing:
		return "dialing"
	case StateUp:
		return "up"
	case StateDown:
		return "down"
	case StateRefused:
		return "refused"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Client keeps the link to one backend. Create it with New, run it with Run.
type Client struct {
	opts Options
	log  *slog.Logger

	mu        sync.Mutex
	link      *mcpws.Link // current link, nil when down
	cur       *session    // the current link's session, nil when down
	sessions  map[*session]struct{}
	ids       map[string]*entry
	outbox    map[string]*entry // answered entries not yet written to any link (sentOn == nil)
	seq       uint64
	lastPrune time.Time
	own       map[string]chan *jsonrpc.Response // requests of the client's own (Call), by id
	ownSeq    uint64
}

// entry is what the client remembers about one request id.
type entry struct {
	running   bool
	cancelled bool        // the backend sent notifications/cancelled: no answer goes out (MCP SHOULD NOT)
	sess      *session    // while running
	resp      []byte      // the encoded answer once answered
	sentOn    *mcpws.Link // the link resp was written to (nil: not yet sent)
	at        time.Time
	seq       uint64
}

// New checks opts and returns a Client.
func New(opts Options) (*Client, error) {
	if opts.Server == nil {
		return nil, errors.New("connect: Options.Server is required")
	}
	if err := opts.Check(); err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if opts.Capabilities == nil {
		opts.Capabilities = []string{mcpws.CapBrowserControl, mcpws.CapWorkflowExecution}
	}
	if opts.DedupTTL <= 0 {
		opts.DedupTTL = DefaultDedupTTL
	}
	opts.Backoff = opts.Backoff.withDefaults()
	if opts.RelinkJitter == 0 {
		opts.RelinkJitter = time.Second
	}
	c := &Client{
		opts:     opts,
		log:      opts.Logger,
		sessions: map[*session]struct{}{},
		ids:      map[string]*entry{},
		outbox:   map[string]*entry{},
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.log = c.log.With("device", opts.DeviceID)
	if clear := opts.InClear(); len(clear) > 0 {
		c.log.Warn("the device token goes unencrypted over ws:// to another machine, where anyone on the network path can read it and act as this desktop: use wss:// (or a tunnel)", "urls", clear)
	}
	opts.Server.AddReceivingMiddleware(relatedMiddleware)
	return c, nil
}

type relatedKey struct{}

// stamped are the methods whose handlers may send requests to the backend: a tools/call, and a
// task's tasks/result (the task's questions come on it; PROTOCOL.md, "Tasks").
func stamped(method string) bool { return method == "tools/call" || method == "tasks/result" }

// relatedMiddleware moves the MetaRelatedRequest stamp of a stamped request into the handler's
// ctx, where session.Write finds it when the handler sends elicitation or sampling requests.
func relatedMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if stamped(method) && req != nil {
			// (A request without params may hold a typed nil whose GetMeta would panic.)
			if p := req.GetParams(); p != nil && !reflect.ValueOf(p).IsNil() {
				if v, ok := p.GetMeta()[MetaRelatedRequest]; ok {
					ctx = context.WithValue(ctx, relatedKey{}, v)
				}
			}
		}
		return next(ctx, method, req)
	}
}

func (c *Client) setState(s State, attrs ...any) {
	if s == StateRefused { // logged once, as the error it is
		c.log.Error("link "+s.String(), attrs...)
	} else {
		c.log.Info("link "+s.String(), attrs...)
	}
	if c.opts.OnState != nil {
		c.opts.OnState(s)
	}
}

// Run keeps the link until ctx is done (then it returns nil) or, with Once, until the first link
// ends or the first dial fails. With several addresses (More) a failed dial tries the next one at
// once, and a link that ended is followed by a dial of another address picked at random
// (relinkOrder); the Backoff wait comes only after every address failed in a row.
func (c *Client) Run(ctx context.Context) error {
	sch := &schedule{b: c.opts.Backoff}
	defer c.closeSessions()
	urls := c.URLs()
	// The addresses in the order they are dialled (the first is next; a failed dial moves it to
	// the end): as given, URL first, at the start; after a link ended, the others in a random
	// order, then that one (relinkOrder).
	order := relinkOrder(-1, len(urls), nil)
	failed := 0 // dials failed in a row since the last wait
	for {
		cur := order[0]
		url := urls[cur]
		c.setState(StateDialing, "url", redact(url))
		link, err := mcpws.Dial(ctx, url, c.opts.Token, c.opts.Link)
		if ctx.Err() != nil {
			if link != nil {
				link.Close()
			}
			return nil
		}
		if err != nil {
			if why := c.refusal(err, 0); why != "" {
				if !c.refusedWait(ctx, sch, why) {
					return fmt.Errorf("%w: %w: %s", ErrDisconnected, ErrRefused, why)
				}
				if ctx.Err() != nil {
					return nil
				}
				continue
			}
			if c.opts.Once {
				c.setState(StateDown, "err", err.Error())
				return fmt.Errorf("%w: %v", ErrDisconnected, err)
			}
			order = append(order[1:], cur)
			if failed++; failed < len(urls) {
				c.setState(StateDown, "err", err.Error(), "next", redact(urls[order[0]]))
				continue
			}
			failed = 0
			wait := sch.next(time.Now())
			c.setState(StateDown, "err", err.Error(), "retry_in", wait.Round(time.Millisecond).String())
			if !sleep(ctx, wait) {
				return nil
			}
			continue
		}
		failed = 0
		up := time.Now()
		why, code := c.runLink(ctx, link)
		if ctx.Err() != nil {
			c.setState(StateDown, "reason", "stopped")
			return nil
		}
		if time.Since(up) >= c.opts.Backoff.ResetAfter {
			sch.reset()
		}
		if refused := c.refusal(nil, code); refused != "" {
			if !c.refusedWait(ctx, sch, refused) {
				return fmt.Errorf("%w: %w: %s", ErrDisconnected, ErrRefused, refused)
			}
			if ctx.Err() != nil {
				return nil
			}
			continue
		}
		if c.opts.Once {
			c.setState(StateDown, "reason", why, "up_for", time.Since(up).Round(time.Millisecond).String())
			return fmt.Errorf("%w: %s", ErrDisconnected, why)
		}
		if len(urls) > 1 {
			// Another replica at once: the one this link was on died or drains.
			order = relinkOrder(cur, len(urls), rand.IntN)
			wait := jitter(c.opts.RelinkJitter)
			c.setState(StateDown, "reason", why, "up_for", time.Since(up).Round(time.Millisecond).String(), "next", redact(urls[order[0]]), "retry_in", wait.Round(time.Millisecond).String())
			if !sleep(ctx, wait) {
				return nil
			}
			continue
		}
		wait := sch.next(time.Now())
		c.setState(StateDown, "reason", why, "up_for", time.Since(up).Round(time.Millisecond).String(), "retry_in", wait.Round(time.Millisecond).String())
		if !sleep(ctx, wait) {
			return nil
		}
	}
}

// relinkOrder is the order in which a desktop whose link to address ended dials the n
// addresses: the others in a random order (intn is rand.IntN), then that one; the desktops of a
// replica that dies or drains so spread over the others instead of all landing on the next one.
// With ended -1 (the start) or intn nil, the others keep their order.
func relinkOrder(ended, n int, intn func(int) int) []int {
	order := make([]int, 0, n)
	for i := range n {
		if i != ended {
			order = append(order, i)
		}
	}
	for i := len(order) - 1; ended >= 0 && intn != nil && i > 0; i-- { // Fisher-Yates
		j := intn(i + 1)
		order[i], order[j] = order[j], order[i]
	}
	if ended >= 0 {
		order = append(order, ended)
	}
	return order
}

// URLs is every address of the backend, URL first.
func (c *Client) URLs() []string { return append([]string{c.opts.URL}, c.opts.More...) }

// jitter returns a random wait in [0, max].
func jitter(max time.Duration) time.Duration {
	if max <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(max) + 1))
}

// ErrRefused is returned by Run with Once set (wrapped with ErrDisconnected) when the backend
// refuses this desktop.
var ErrRefused = errors.New("the backend refused this desktop")

// refusal explains a refusal by the backend (a dial answered 401 or 403, or a link closed with
// CloseRevoked, CloseWrongDevice or CloseIDInUse); "" when err and code are no refusal.
func (c *Client) refusal(err error, code int) string {
	var de *mcpws.DialError
	switch {
	case errors.As(err, &de) && de.StatusCode == 401:
		return "the backend refused this desktop's token (HTTP 401): give each desktop its own device token (rpa gateway --add-device ID) and pass it with --token"
	case errors.As(err, &de) && de.StatusCode == 403:
		return "the backend refused this desktop (HTTP 403)"
	case code == CloseRevoked:
		return fmt.Sprintf("the backend revoked device %q (its token is no longer in the gateway's device file): ask for a new one (rpa gateway --add-device ID)", c.opts.DeviceID)
	case code == CloseWrongDevice:
		return fmt.Sprintf("the backend says this token belongs to another device, not %q: check --device-id and --token", c.opts.DeviceID)
	case code == CloseIDInUse:
		return fmt.Sprintf("device id %q is already connected from another desktop: give each desktop its own --device-id", c.opts.DeviceID)
	}
	return ""
}

// refusedWait logs a refusal and waits the refusal backoff; false with Once (Run then returns).
func (c *Client) refusedWait(ctx context.Context, sch *schedule, why string) bool {
	if c.opts.Once {
		c.setState(StateRefused, "reason", why)
		return false
	}
	wait := sch.nextRefused()
	c.setState(StateRefused, "reason", why, "retry_in", wait.Round(time.Second).String())
	sleep(ctx, wait)
	return true
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func redact(u string) string {
	if i := strings.IndexByte(u, '?'); i >= 0 {
		return u[:i] + "?…"
	}
	return u
}

// ToolsChanged re-sends `register` with the current tool names when the link is up. Wire it to
// the server core's tool-change callback.
func (c *Client) ToolsChanged() {
	c.mu.Lock()
	link := c.link
	c.mu.Unlock()
	if link != nil {
		if err := link.WriteJSON(c.register()); err != nil {
			c.log.Warn("re-register failed", "err", err)
		}
	}
}

func (c *Client) register() mcpws.Register {
	var names []string
	if c.opts.ToolNames != nil {
		names = append(names, c.opts.ToolNames()...)
	}
	sort.Strings(names)
	if names == nil {
		names = []string{}
	}
	return mcpws.Register{Type: mcpws.TypeRegister, DeviceID: c.opts.DeviceID, Capabilities: c.opts.Capabilities, AvailableTools: names}
}

// runLink serves one link until it ends and returns why it ended, with the WebSocket close code
// the backend sent (0 if none).
func (c *Client) runLink(ctx context.Context, link *mcpws.Link) (string, int) {
	s := newSession(c)
	c.mu.Lock()
	c.sessions[s] = struct{}{}
	c.mu.Unlock()
	var t mcp.Transport = s
	if c.opts.Wrap != nil {
		t = c.opts.Wrap(s)
	}
	if _, err := c.opts.Server.Connect(ctx, t, nil); err != nil {
		c.detach(link, s)
		return "server session: " + err.Error(), 0
	}
	// register is the link's first frame: the link becomes current (so anything else may be
	// written to it) only after it.
	first := c.register()
	if err := link.WriteJSON(first); err != nil {
		c.detach(link, s)
		return "register: " + err.Error(), 0
	}
	c.mu.Lock()
	c.link, c.cur = link, s
	c.mu.Unlock()
	// A tool change between building that register and now would be missed: send again if
	// the list moved meanwhile.
	if again := c.register(); strings.Join(again.AvailableTools, "\x00") != strings.Join(first.AvailableTools, "\x00") {
		_ = link.WriteJSON(again)
	}
	c.setState(StateUp, "remote", link.RemoteAddr())
	stop := context.AfterFunc(ctx, func() { link.Close() })
	defer stop()
	var why string
	code := 0
	onControl := func(typ string, _ []byte) { c.log.Info("control message from the backend", "type", typ) }
	for {
		msg, err := mcpws.ReadMessage(link, onControl, c.log)
		if err != nil {
			why = err.Error()
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				code = ce.Code
				if ce.Code == CloseReplaced {
					c.log.Warn("the backend replaced this link with a newer one carrying the same device id (this link did not answer its ping)")
				}
			}
			break
		}
		c.handleMessage(link, s, msg)
	}
	c.detach(link, s)
	return why, code
}

func (c *Client) handleMessage(link *mcpws.Link, s *session, msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.IsCall() {
			c.incomingCall(link, s, m)
			return
		}
		if m.Method == "notifications/cancelled" {
			if t := c.cancelTarget(m); t != nil && t != s {
				t.deliver(m)
				return
			}
		}
		s.deliver(m)
		if m.Method == "notifications/initialized" {
			c.mu.Lock()
			s.initialized = true
			c.mu.Unlock()
			c.flush(link)
		}
	case *jsonrpc.Response:
		key := mcpws.IDKey(m.ID)
		c.mu.Lock()
		if ch := c.own[key]; ch != nil {
			delete(c.own, key)
			c.mu.Unlock()
			ch <- m
			return
		}
		_, ok := s.pendingOut[key]
		delete(s.pendingOut, key)
		c.mu.Unlock()
		if !ok {
			c.log.Warn("dropping an answer to an unknown request id", "id", key)
			return
		}
		s.deliver(m)
	}
}

// cancelTarget finds the session running the request a notifications/cancelled names, and
// marks the request so that its answer is not sent.
func (c *Client) cancelTarget(m *jsonrpc.Request) *session {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) != nil || len(p.RequestID) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(p.RequestID, &v) != nil {
		return nil
	}
	if f, ok := v.(float64); ok {
		v = int64(f)
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.ids[mcpws.IDKey(id)]; e != nil && e.running {
		e.cancelled = true
		return e.sess
	}
	return nil
}

// incomingCall applies the run-once rule, then hands the request to the link's session.
func (c *Client) incomingCall(link *mcpws.Link, s *session, m *jsonrpc.Request) {
	if m.Method != "initialize" && m.Method != "ping" {
		key := mcpws.IDKey(m.ID)
		c.mu.Lock()
		if e := c.ids[key]; e != nil {
			if e.running {
				c.mu.Unlock()
				c.log.Info("request id already running; its answer will follow", "id", key, "method", m.Method)
				return
			}
			if e.sentOn == link {
				// Sent on this very link after the backend wrote its request: it is on its way.
				c.mu.Unlock()
				return
			}
			e.sentOn = nil // asked again on a newer link: the backend lacks the answer
			c.outbox[key] = e
			ready := s.initialized
			c.mu.Unlock()
			c.log.Info("request id already answered; re-sending the kept answer", "id", key, "method", m.Method)
			if ready {
				c.flush(link)
			}
			return
		}
		c.ids[key] = &entry{running: true, sess: s}
		s.inflight++
		c.mu.Unlock()
		if stamped(m.Method) {
			if p, err := setMeta(m.Params, MetaRelatedRequest, m.ID.Raw()); err == nil {
				m.Params = p
			}
		}
	}
	s.deliver(m)
}

// setMeta sets params._meta[key] = value in a JSON object of params.
func setMeta(params json.RawMessage, key string, value any) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if len(params) > 0 && string(params) != "null" {
		if err := json.Unmarshal(params, &obj); err != nil {
			return nil, err
		}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := obj["_meta"]; ok {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, err
		}
	}
	v, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	meta[key] = v
	if obj["_meta"], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	return json.Marshal(obj)
}

// answered records the answer to an incoming request and sends it when a link can take it.
func (c *Client) answered(s *session, resp *jsonrpc.Response) {
	b, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		c.log.Error("cannot encode an answer", "err", err)
		return
	}
	key := mcpws.IDKey(resp.ID)
	now := time.Now()
	c.mu.Lock()
	e := c.ids[key]
	if e == nil || !e.running {
		link, ok := c.link, s == c.cur && c.link != nil
		c.mu.Unlock()
		if ok {
			_ = link.WriteFrame(b)
		}
		return
	}
	if e.cancelled {
		// The MCP specification: a cancelled request SHOULD NOT be answered.
		delete(c.ids, key)
		s.inflight--
		closeS := s.detached && s.inflight == 0
		c.mu.Unlock()
		if closeS {
			c.closeSession(s)
		}
		c.log.Info("answer of a cancelled request dropped", "id", key)
		return
	}
	c.seq++
	e.running, e.sess, e.resp, e.at, e.seq = false, nil, b, now, c.seq
	c.outbox[key] = e
	s.inflight--
	closeS := s.detached && s.inflight == 0
	link := c.link
	sendNow := link != nil && (s == c.cur || c.cur.initialized)
	if now.Sub(c.lastPrune) > time.Minute {
		c.lastPrune = now
		for k, e := range c.ids {
			if !e.running && e.sentOn != nil && now.Sub(e.at) > c.opts.DedupTTL {
				delete(c.ids, k)
			}
		}
	}
	c.mu.Unlock()
	if closeS {
		c.closeSession(s)
	}
	if sendNow {
		c.flush(link)
	} else {
		c.log.Info("answer kept until the link is back", "id", key)
	}
}

// flush writes every kept, undelivered answer, oldest first. Each answer is claimed under the
// lock before writing, so concurrent flushes never send one twice.
func (c *Client) flush(link *mcpws.Link) {
	c.mu.Lock()
	if c.link != link {
		c.mu.Unlock()
		return
	}
	var batch []*entry
	var keys []string
	for k, e := range c.outbox {
		e.sentOn = link
		batch = append(batch, e)
		keys = append(keys, k)
		delete(c.outbox, k)
	}
	c.mu.Unlock()
	idx := make([]int, len(batch))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(i, j int) bool { return batch[idx[i]].seq < batch[idx[j]].seq })
	for n, i := range idx {
		if err := link.WriteFrame(batch[i].resp); err != nil {
			c.mu.Lock()
			for _, i := range idx[n:] {
				batch[i].sentOn = nil
				c.outbox[keys[i]] = batch[i]
			}
			c.mu.Unlock()
			return
		}
	}
}

// detach ends a link: the session stops receiving, its pending requests to the backend fail, and
// it is closed once its running calls have answered.
func (c *Client) detach(link *mcpws.Link, s *session) {
	link.Close()
	c.mu.Lock()
	if c.link == link {
		c.link, c.cur = nil, nil
	}
	s.detached = true
	pend := s.pendingOut
	s.pendingOut = map[string]jsonrpc.ID{}
	closeNow := s.inflight == 0
	c.mu.Unlock()
	for _, id := range pend {
		s.deliver(linkDownResponse(id))
	}
	if closeNow {
		c.closeSession(s)
	}
}

func linkDownResponse(id jsonrpc.ID) *jsonrpc.Response {
	return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: CodeLinkDown, Message: "the link to the backend is down"}}
}

func (c *Client) closeSession(s *session) {
	c.mu.Lock()
	delete(c.sessions, s)
	c.mu.Unlock()
	s.close()
}

func (c *Client) closeSessions() {
	c.mu.Lock()
	all := make([]*session, 0, len(c.sessions))
	for s := range c.sessions {
		all = append(all, s)
	}
	c.sessions = map[*session]struct{}{}
	c.mu.Unlock()
	for _, s := range all {
		s.close()
	}
}

// outgoing sends a desktop-side message (a request or notification of the server session s).
func (c *Client) outgoing(ctx context.Context, s *session, m *jsonrpc.Request) {
	c.mu.Lock()
	link := c.link
	current := s == c.cur && link != nil && !s.detached
	if m.IsCall() && current {
		s.pendingOut[mcpws.IDKey(m.ID)] = m.ID
	}
	c.mu.Unlock()
	if !m.IsCall() {
		// Progress of any call goes to whichever link is up; other notifications
		// (list_changed, logging) only from the current session.
		if link == nil || (!current && m.Method != "notifications/progress") {
			return
		}
		if b, err := jsonrpc.EncodeMessage(m); err == nil {
			_ = link.WriteFrame(b)
		}
		return
	}
	if current {
		if v := ctx.Value(relatedKey{}); v != nil {
			if p, err := setMeta(m.Params, MetaRelatedRequest, v); err == nil {
				m.Params = p
			}
		}
		b, err := jsonrpc.EncodeMessage(m)
		if err == nil && link.WriteFrame(b) == nil {
			return
		}
		c.mu.Lock()
		delete(s.pendingOut, mcpws.IDKey(m.ID))
		c.mu.Unlock()
	}
	go s.deliver(linkDownResponse(m.ID))
}

// ErrNotLinked is Call's error when no link is up, or the link ended before the answer came.
var ErrNotLinked = errors.New("connect: not linked to the backend")

// Call sends a request of the desktop's own (not of its MCP server: such as gateway.
// MethodLeaseAcquire) to the backend on the current link and returns its result: the backend's
// error answer as a *jsonrpc.Error, ErrNotLinked when no link is up or it ends first (the request
// is not sent again on the next link), or ctx's error.
func (c *Client) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	ch := make(chan *jsonrpc.Response, 1)
	c.mu.Lock()
	link := c.link
	if link == nil {
		c.mu.Unlock()
		return nil, ErrNotLinked
	}
	c.ownSeq++
	id, _ := jsonrpc.MakeID(fmt.Sprintf("desk-%d", c.ownSeq))
	key := mcpws.IDKey(id)
	if c.own == nil {
		c.own = map[string]chan *jsonrpc.Response{}
	}
	c.own[key] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.own, key)
		c.mu.Unlock()
	}()
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Request{ID: id, Method: method, Params: raw})
	if err != nil {
		return nil, err
	}
	if err := link.WriteFrame(b); err != nil {
		return nil, ErrNotLinked
	}
	select {
	case resp := <-ch:
		if resp.Error != nil {
			return nil, resp.Error
		}
		return resp.Result, nil
	case <-link.Done():
		return nil, ErrNotLinked
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
