package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats.go"
	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/link/mcpws"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/mrtr"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
	"github.com/rpa-dev/rpa/lang"
)

// device is one connected desktop: one link, one MCP session (the gateway is its client).
type device struct {
	g     *Gateway
	id    string
	link  *mcpws.Link
	since time.Time

	// In a cluster (replica.go): the link's id, its record's revision in the presence bucket
	// (0: none yet) and the subscription that brings other replicas' calls.
	linkID string
	rev    uint64
	sub    *nats.Subscription

	// The SHA-256 of the device token this link was admitted with, when this gateway's device
	// file (Options.Devices) admitted it: the link ends once the file no longer does (revoked).
	tokenSum  [sha256.Size]byte
	fileToken bool
	// clusterToken: admitted by another replica's device file (DevicesBucket); revoked when the
	// bucket no longer gives it this token.
	clusterToken bool

	refreshMu sync.Mutex // serialises tools/list refreshes

	mu      sync.Mutex
	caps    []string
	names   []string              // available_tools of the last register
	tools   map[string]deviceTool // from tools/list
	ready   bool                  // initialized and listed
	dirty   bool                  // re-registered while initializing: list again once ready
	pending map[string]*call      // gateway request id → call in flight
	gone    bool
	// wasRevoked: the link was closed because the device was revoked (no relink wait for it).
	wasRevoked bool
	life       context.Context // ends when the link drops (linkLife)
	end        context.CancelFunc
}

// linkLife is a context that ends when d's link drops (drop): a question relayed for a task
// is withdrawn then, and the desktop asks it again on its next link.
func (d *device) linkLife() context.Context {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.life == nil {
		d.life, d.end = context.WithCancel(context.Background())
		if d.gone {
			d.end()
		}
	}
	return d.life
}

// deviceTool is one tool as the desktop lists it.
type deviceTool struct {
	tool        *mcp.Tool
	hasDeviceID bool            // the desktop's own schema has a deviceId property (then it is passed through)
	raw         json.RawMessage // as the desktop listed it (shared with the other replicas)
	task        bool            // the desktop runs it as a task (execution.taskSupport; tasks.go)
}

// call is one request the gateway sent down a desktop link.
type call struct {
	resp  chan *jsonrpc.Response  // buffered 1
	agent *mcp.ServerSession      // the agent session whose call this is; nil for the gateway's own
	ctx   context.Context         // the agent call's context
	pctx  context.Context         // where its progress goes (the agent's request); nil: ctx
	ask   mrtr.AskFunc            // carries the desktop's questions to the agent; nil: its session
	caps  *mcp.ClientCapabilities // what the agent can be asked, when agent is nil (a task's call)
	token any                     // the agent's progress token, if it gave one
	tool  string                  // the tool called (agent calls)
	id    string                  // the gateway request id (set by request unless set before)
	owner runs.Owner              // the agent that made it (agent calls; owners.go)

	// A call an agent made on another replica (replica.go): its progress and the desktop's
	// questions go back over NATS instead of to an agent session here.
	onProgress func(p progressParams)
	onAsk      func(ctx context.Context, method string, params json.RawMessage) (any, error)
}

// progressParams are a desktop's notifications/progress.
type progressParams struct {
	ProgressToken any     `json:"progressToken"`
	Progress      float64 `json:"progress"`
	Total         float64 `json:"total,omitempty"`
	Message       string  `json:"message,omitempty"`
}

// errGone is the error of calls whose desktop link dropped (or was closed because the device
// was revoked before the call went down it).
type errGone struct {
	id      string
	revoked bool
}

// Error names the desktop that dropped.
func (e errGone) Error() string {
	if e.revoked {
		return fmt.Sprintf("desktop %q was revoked (its device token is no longer in the gateway's device file); the call did not run", e.id)
	}
	return fmt.Sprintf("desktop %q disconnected during the call", e.id)
}

// revoked reports whether d was admitted by the gateway's device file and the file no longer
// admits it (its line removed or its token changed).
func (d *device) revoked() bool {
	if rep := d.g.rep; rep != nil && (d.fileToken || d.clusterToken) {
		if rep.devices.isRevoked(d.tokenSum) {
			return true // revoked on some replica (replica_devices.go)
		}
		if d.clusterToken {
			return !rep.devices.admits(d.tokenSum, d.id)
		}
	}
	return d.fileToken && d.g.opts.Devices != nil && !d.g.opts.Devices.Admits(d.tokenSum, d.id)
}

// revoke closes a revoked device's link at once and fails its calls in flight.
func (d *device) revoke() {
	d.mu.Lock()
	d.wasRevoked = true
	d.mu.Unlock()
	d.g.log.Warn("closing the link of a revoked device: its token is no longer in the device file", "device", d.id, "remote", d.link.RemoteAddr())
	d.link.CloseWith(connect.CloseRevoked, "this device was revoked")
	d.drop()
}

// request sends method/params down the link with a fresh gateway id and waits for the answer,
// the link dropping (errGone) or ctx ending (then the desktop gets notifications/cancelled).
func (d *device) request(ctx context.Context, method string, params any, c *call) (*jsonrpc.Response, error) {
	id := d.g.nextID()
	if c != nil && c.id != "" {
		id, _ = jsonrpc.MakeID(c.id)
	}
	if c != nil && c.token != nil {
		if m, ok := params.(map[string]any); ok {
			m["_meta"] = map[string]any{"progressToken": id.Raw()}
		}
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	msg := &jsonrpc.Request{ID: id, Method: method, Params: raw}
	if c == nil {
		c = &call{ctx: ctx}
	}
	c.resp = make(chan *jsonrpc.Response, 1)
	c.id, _ = id.Raw().(string)
	if c.agent != nil {
		d.g.setOwner(c.id, c.owner)
	}
	key := mcpws.IDKey(id)
	if d.revoked() {
		d.revoke()
		return nil, errGone{id: d.id, revoked: true}
	}
	d.mu.Lock()
	if d.gone {
		d.mu.Unlock()
		return nil, errGone{id: d.id}
	}
	d.pending[key] = c
	d.mu.Unlock()
	handedOff := false
	defer func() {
		if handedOff {
			return
		}
		d.mu.Lock()
		delete(d.pending, key)
		d.mu.Unlock()
	}()
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return nil, err
	}
	if err := d.link.WriteFrame(b); err != nil {
		return nil, errGone{id: d.id}
	}
	select {
	case r := <-c.resp:
		if r == nil {
			return nil, errGone{id: d.id}
		}
		if c.onAsk == nil { // (a call held for another replica's agent: hold marks it)
			d.g.answered.first(c.id)
		}
		return r, nil
	case <-ctx.Done():
		d.mu.Lock()
		gone := d.gone
		d.mu.Unlock()
		if gone || d.g.closing.Load() {
			// The link dropped first, or the gateway is going down (its HTTP server closing ends
			// the agents' requests): not the agent's cancel; the desktop keeps the answer.
			return nil, errGone{id: d.id}
		}
		if c.agent != nil && sessionLost(ctx) {
			// The agent's session went away (not an explicit cancel): let the desktop finish and
			// keep its answer for the agent to fetch later.
			handedOff = true
			d.g.log.Info("the agent's session ended during a call; its answer will be kept", "device", d.id, "id", c.id)
			go d.awaitLate(key, c)
			return nil, ctx.Err()
		}
		d.g.cancelled.add(c.id)
		_ = d.notify("notifications/cancelled", map[string]any{"requestId": id.Raw(), "reason": "the caller cancelled"})
		return nil, ctx.Err()
	}
}

// sessionLost reports whether a call's context ended because its session did (the go-sdk
// cancels with the read error as cause), rather than by the agent's notifications/cancelled
// (plain context.Canceled).
func sessionLost(ctx context.Context) bool {
	cause := context.Cause(ctx)
	return cause != nil && !errors.Is(cause, context.Canceled) && !errors.Is(cause, context.DeadlineExceeded)
}

// awaitLate waits (at most the late store's TTL) for the answer of a call whose agent is gone
// and keeps it.
func (d *device) awaitLate(key string, c *call) {
	t := time.NewTimer(d.g.late.ttl)
	defer t.Stop()
	var r *jsonrpc.Response
	select {
	case r = <-c.resp:
	case <-t.C:
	}
	d.mu.Lock()
	if d.pending[key] == c {
		delete(d.pending, key)
	}
	d.mu.Unlock()
	if r != nil {
		d.g.keepLate(d.id, c.tool, c.id, r)
	}
}

// alive pings the desktop and reports whether it answered within timeout.
func (d *device) alive(timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	r, err := d.request(ctx, "ping", map[string]any{}, nil)
	return err == nil && r != nil
}

// notify sends a notification down the link.
func (d *device) notify(method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Request{Method: method, Params: raw})
	if err != nil {
		return err
	}
	return d.link.WriteFrame(b)
}

// initialize opens the desktop's MCP session (protocol 2025-11-25, declaring elicitation and
// sampling) and lists its tools.
func (d *device) initialize(ctx context.Context) error {
	params := map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    map[string]any{"elicitation": map[string]any{"form": map[string]any{}}, "sampling": map[string]any{}},
		"clientInfo":      map[string]any{"name": "rpa-gateway", "version": Version},
	}
	r, err := d.request(ctx, "initialize", params, nil)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if r.Error != nil {
		return fmt.Errorf("initialize: %v", r.Error)
	}
	if err := d.notify("notifications/initialized", map[string]any{}); err != nil {
		return fmt.Errorf("initialized: %w", err)
	}
	return d.refresh(ctx)
}

// refresh re-reads the desktop's tool list (all pages).
func (d *device) refresh(ctx context.Context) error {
	d.refreshMu.Lock()
	defer d.refreshMu.Unlock()
	tools := map[string]deviceTool{}
	cursor := ""
	for page := 0; page < 100; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		r, err := d.request(ctx, "tools/list", params, nil)
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		if r.Error != nil {
			return fmt.Errorf("tools/list: %v", r.Error)
		}
		var res struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(r.Result, &res); err != nil {
			return fmt.Errorf("tools/list: bad result: %w", err)
		}
		for _, raw := range res.Tools {
			t, hasDev, err := decodeTool(raw)
			if err != nil {
				d.g.log.Warn("skipping a tool the desktop listed", "device", d.id, "err", err)
				continue
			}
			tools[t.Name] = deviceTool{tool: t, hasDeviceID: hasDev, raw: raw, task: taskSupport(raw)}
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	d.mu.Lock()
	d.tools = tools
	d.ready = true
	d.mu.Unlock()
	return nil
}

// decodeTool decodes one listed tool, keeping its schemas raw, and checks what AddTool needs.
func decodeTool(raw json.RawMessage) (*mcp.Tool, bool, error) {
	var t mcp.Tool
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, false, err
	}
	var schemas struct {
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(raw, &schemas); err != nil {
		return nil, false, err
	}
	if !validToolName(t.Name) {
		return nil, false, fmt.Errorf("tool name %q is not [A-Za-z0-9_.-]{1,128}", t.Name)
	}
	var in struct {
		Type       any                        `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schemas.InputSchema, &in); err != nil || in.Type != "object" {
		return nil, false, fmt.Errorf("tool %q: inputSchema is not an object schema", t.Name)
	}
	t.InputSchema = schemas.InputSchema
	t.OutputSchema = nil
	if len(schemas.OutputSchema) > 0 && string(schemas.OutputSchema) != "null" {
		t.OutputSchema = schemas.OutputSchema
	}
	_, hasDev := in.Properties[DeviceIDArg]
	return &t, hasDev, nil
}

func validToolName(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// readLoop dispatches the desktop's frames until the link ends.
func (d *device) readLoop() error {
	for {
		msg, err := mcpws.ReadMessage(d.link, d.control, d.g.log, "device", d.id)
		if err != nil {
			return err
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			key := mcpws.IDKey(m.ID)
			id, _ := m.ID.Raw().(string)
			d.mu.Lock()
			c := d.pending[key]
			d.mu.Unlock()
			if c == nil {
				switch {
				case !d.g.ids.valid(id): // (callids.go)
					d.g.log.Warn("dropping an answer to an id this gateway never issued", "device", d.id, "id", fmt.Sprintf("%.100s", key))
				case d.g.answered.has(id): // (answered.go; keepLate looks again)
					d.g.log.Warn("dropping a second answer to a call (the first one counts)", "device", d.id, "id", id)
				case d.g.rep != nil:
					// In a cluster the call may belong to an agent on another replica (the
					// desktop moved here with its answer): hand it to the one that made it.
					go d.g.rep.answerArrived(d.id, id, m)
				case len(m.Result) > 0 && !d.g.cancelled.has(id):
					// An answer to a call of an earlier gateway process (or one whose waiter gave
					// up): keep it for the agent rather than drop it.
					d.g.keepLate(d.id, "", id, m)
				default:
					d.g.log.Warn("dropping an answer to an id this gateway does not know", "device", d.id, "id", key)
				}
				continue
			}
			select {
			case c.resp <- m:
			default:
			}
		case *jsonrpc.Request:
			if m.IsCall() {
				go d.serveRequest(m)
			} else {
				d.notification(m)
			}
		}
	}
}

// control handles a link control frame from the desktop.
func (d *device) control(typ string, frame []byte) {
	if typ != mcpws.TypeRegister {
		d.g.log.Info("ignoring a control message", "device", d.id, "type", typ)
		return
	}
	var reg mcpws.Register
	if err := json.Unmarshal(frame, &reg); err != nil {
		d.g.log.Warn("bad register message", "device", d.id, "err", err)
		return
	}
	if reg.DeviceID != d.id {
		d.g.log.Warn("register with another device id ignored", "device", d.id, "got", reg.DeviceID)
		return
	}
	d.mu.Lock()
	d.caps, d.names = reg.Capabilities, reg.AvailableTools
	ready := d.ready
	if !ready {
		d.dirty = true
	}
	d.mu.Unlock()
	d.g.log.Info("desktop re-registered", "device", d.id, "tools", len(reg.AvailableTools))
	if ready {
		go d.refreshAndSync()
	}
}

func (d *device) refreshAndSync() {
	ctx, cancel := context.WithTimeout(context.Background(), d.g.opts.InitTimeout)
	defer cancel()
	if err := d.refresh(ctx); err != nil {
		d.g.log.Warn("tool refresh failed", "device", d.id, "err", err)
		return
	}
	d.g.sync(d.id)
	if d.g.rep != nil {
		d.g.rep.published(d)
	}
}

// notification handles a notification from the desktop.
func (d *device) notification(m *jsonrpc.Request) {
	switch m.Method {
	case "notifications/tools/list_changed":
		d.mu.Lock()
		ready := d.ready
		d.mu.Unlock()
		if ready {
			go d.refreshAndSync()
		}
	case "notifications/progress":
		var p progressParams
		if json.Unmarshal(m.Params, &p) != nil {
			return
		}
		tok, ok := p.ProgressToken.(string)
		if !ok {
			return
		}
		d.mu.Lock()
		c := d.pending["s:"+tok]
		d.mu.Unlock()
		if c != nil && c.onProgress != nil {
			c.onProgress(p)
			return
		}
		if c == nil || c.agent == nil || c.token == nil {
			return
		}
		pctx := c.pctx
		if pctx == nil {
			pctx = c.ctx
		}
		_ = c.agent.NotifyProgress(pctx, &mcp.ProgressNotificationParams{ProgressToken: c.token, Progress: p.Progress, Total: p.Total, Message: p.Message})
	default:
		// notifications/message and others: not relayed.
	}
}

// serveRequest answers a request the desktop sent (ping, or elicitation/sampling relayed to the
// agent whose call caused it).
func (d *device) serveRequest(m *jsonrpc.Request) {
	result, err := d.relay(m)
	if err != nil && d.linkLife().Err() != nil {
		// The link dropped while the agent was asked: no answer (the desktop would take an
		// error for the question's; it asks again on its next link).
		return
	}
	var resp *jsonrpc.Response
	if err != nil {
		var we *jsonrpc.Error
		if !errors.As(err, &we) {
			we = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		resp = &jsonrpc.Response{ID: m.ID, Error: we}
	} else {
		raw, merr := json.Marshal(result)
		if merr != nil {
			resp = &jsonrpc.Response{ID: m.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: merr.Error()}}
		} else {
			resp = &jsonrpc.Response{ID: m.ID, Result: raw}
		}
	}
	if b, err := jsonrpc.EncodeMessage(resp); err == nil {
		_ = d.link.WriteFrame(b)
	}
}

func notAvailable(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: msg}
}

func (d *device) relay(m *jsonrpc.Request) (any, error) {
	switch m.Method {
	case "ping":
		return map[string]any{}, nil
	case mcpws.MethodLeaseAcquire, mcpws.MethodLeaseRelease:
		return d.g.leaseRequest(d, m.Method, m.Params) // leases.go
	case "elicitation/create", "sampling/createMessage":
	default:
		return nil, notAvailable(fmt.Sprintf("method %s is not available at the gateway", lang.Echo(m.Method)))
	}
	c := d.callFor(m.Params)
	if c != nil && c.onAsk != nil {
		params, err := stripMeta(m.Params)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		return c.onAsk(c.ctx, m.Method, params)
	}
	if c == nil || c.agent == nil && c.ask == nil {
		return nil, notAvailable("no agent call to relay this request to")
	}
	params, err := stripMeta(m.Params)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	if c.agent == nil {
		// A task's call (tasks.go): its question is the task's, withdrawn if the link drops
		// (the desktop asks again on its next link).
		ctx, stop := context.WithCancel(c.ctx)
		defer stop()
		defer context.AfterFunc(d.linkLife(), stop)()
		cc := *c
		cc.ctx = ctx
		c = &cc
	}
	return d.g.askAgent(c, m.Method, params)
}

// askAgent puts a desktop's question (elicitation/create or sampling/createMessage, params
// without the relay stamp) to the agent whose call c caused it: through mrtr for a
// 2026-07-28 agent, else as a request on its session; -32601 when it lacks the capability.
func (g *Gateway) askAgent(c *call, method string, params json.RawMessage) (any, error) {
	if c.agent == nil && c.ask == nil {
		return nil, notAvailable("no agent call to relay this request to")
	}
	caps := c.caps // a task's call: what its agent declared
	if c.agent != nil {
		if ip := c.agent.InitializeParams(); ip != nil {
			caps = ip.Capabilities
		}
	}
	if method == "elicitation/create" {
		if caps == nil || caps.Elicitation == nil {
			return nil, notAvailable("the calling agent does not support elicitation")
		}
		var p mcp.ElicitParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		p.Meta = withoutRelatedTask(p.Meta)
		if c.ask != nil {
			return c.ask(c.ctx, &p)
		}
		return c.agent.Elicit(c.ctx, &p)
	}
	if method != "sampling/createMessage" {
		return nil, notAvailable(fmt.Sprintf("method %s is not available at the gateway", lang.Echo(method)))
	}
	// Sampling is deprecated (SEP-2577) but still part of the protocol during its deprecation
	// window: the gateway forwards it as long as agents and desktops speak it.
	//lint:ignore SA1019 forwarded deliberately (see above)
	if caps == nil || caps.Sampling == nil {
		return nil, notAvailable("the calling agent does not support sampling")
	}
	//lint:ignore SA1019 forwarded deliberately (see above)
	var p mcp.CreateMessageParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	p.Meta = withoutRelatedTask(p.Meta)
	if c.ask != nil {
		return c.ask(c.ctx, &p)
	}
	//lint:ignore SA1019 forwarded deliberately (see above)
	return c.agent.CreateMessage(c.ctx, &p)
}

// withoutRelatedTask is meta without the related-task stamp, which names the desktop's task: the
// agent knows only the gateway's (its own stamp, if any, is added when the question is relayed).
func withoutRelatedTask(meta mcp.Meta) mcp.Meta {
	if _, ok := meta[tasks.MetaRelatedTask]; !ok {
		return meta
	}
	out := mcp.Meta{}
	for k, v := range meta {
		if k != tasks.MetaRelatedTask {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// callFor finds the agent call a desktop request belongs to: the one named by the
// connect.MetaRelatedRequest stamp, else the only agent call in flight on this link.
func (d *device) callFor(params json.RawMessage) *call {
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	d.mu.Lock()
	defer d.mu.Unlock()
	if v, ok := p.Meta[connect.MetaRelatedRequest].(string); ok {
		return d.pending["s:"+v]
	}
	var only *call
	for _, c := range d.pending {
		if c.agent != nil || c.onAsk != nil || c.ask != nil {
			if only != nil {
				return nil
			}
			only = c
		}
	}
	return only
}

// stripMeta removes the connect.MetaRelatedRequest stamp before params go to an agent.
func stripMeta(params json.RawMessage) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if err := json.Unmarshal(params, &obj); err != nil {
		return nil, err
	}
	if raw, ok := obj["_meta"]; ok {
		meta := map[string]json.RawMessage{}
		if json.Unmarshal(raw, &meta) == nil {
			delete(meta, connect.MetaRelatedRequest)
			if len(meta) == 0 {
				delete(obj, "_meta")
			} else {
				obj["_meta"], _ = json.Marshal(meta)
			}
		}
	}
	return json.Marshal(obj)
}

// drop fails every call in flight (at once, not after a timeout) and marks the device gone.
func (d *device) drop() {
	d.mu.Lock()
	d.gone = true
	if d.end != nil {
		d.end()
	}
	pend := d.pending
	d.pending = map[string]*call{}
	d.mu.Unlock()
	for _, c := range pend {
		select {
		case c.resp <- nil:
		default:
		}
	}
}
