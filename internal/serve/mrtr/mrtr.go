//lint:file-ignore SA1019 sampling (CreateMessage*) is deprecated by SEP-2577 but still part of the protocol during its deprecation window; the llm action's sampling hook and the gateway's relay use it deliberately.

// Package mrtr keeps calls running across the requests of a
// multi-round-trip client (MCP 2026-07-28, SEP-2322): a server may not send
// requests to such a client during a call, so a call whose work needs the
// client's input (an elicitation, a sampling request) ends with that input
// request and a requestState naming the paused work, and the client's next
// tools/call carrying the answers (inputResponses) resumes it where it
// stopped. The work goes on in its own goroutine the whole time, with its
// browser and page; two questions in one flow (a captcha, then an SMS code)
// are two round trips of one call.
//
// The go-sdk's own compatibility shim re-runs a handler instead, and only
// once: it cannot carry a run that asks twice. mcpserver (flow runs,
// hitl_prompt) and the gateway (a desktop's questions relayed to a
// 2026-07-28 agent) use this package.
package mrtr

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Protocol is the first MCP protocol version on which a server may not
// send requests to the client during a call.
const Protocol = "2026-07-28"

// Limits of paused calls.
const (
	// MaxPaused is how many calls may wait paused for their client's input
	// at once; a question beyond it is refused (Ask returns an error, and
	// the asking side tries its next channel).
	MaxPaused = 32
	// PauseTTL is how long a paused call waits for the call that carries
	// its answers; then its work is cancelled and its state dropped.
	PauseTTL = 10 * time.Minute
)

// CodeCancelled is the JSON-RPC error code of a paused call whose request
// was cancelled before the work produced a result (PROTOCOL.md: -32001).
const CodeCancelled = -32001

// AskFunc asks the caller for input (an *mcp.ElicitParams or
// *mcp.CreateMessageParams) and waits for its answer until ctx ends.
type AskFunc func(ctx context.Context, r mcp.InputRequest) (mcp.InputResponse, error)

// MultiRoundTrip reports whether the call's client is on a protocol where
// the server may not send requests during a call (2026-07-28 and later).
func MultiRoundTrip(req *mcp.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	ip := req.Session.InitializeParams()
	return ip != nil && ip.ProtocolVersion >= Protocol
}

// Table holds the paused calls of one server. Set Life and Calls before
// the first Start; the zero Max and TTL take MaxPaused and PauseTTL.
type Table struct {
	// Life bounds every call's work (the server's lifetime); nil: never
	// ends by itself.
	Life context.Context
	// Calls, when set, counts the works running (the server waits for
	// them when it closes).
	Calls *sync.WaitGroup
	Max   int
	TTL   time.Duration
	// Log gets a line when a paused call expires. Nil: discard.
	Log *slog.Logger
	// Tag, when set, is written into the requestState of this table's
	// calls ("rpa-TAG.HEX"), so that processes serving one endpoint
	// together (gateway replicas) send a request whose call is paused
	// elsewhere to the process TagOf names. It must not contain a dot.
	Tag string

	mu sync.Mutex
	m  map[string]*Call
}

// Call is one call whose work goes on across requests.
type Call struct {
	id     string
	owner  string // who may resume it (Start's owner)
	t      *Table
	first  context.Context // the first request's ctx
	cancel context.CancelFunc
	reqs   chan *inputReq
	out    chan outcome // buffered 1: the work's result

	mu      sync.Mutex
	n       int
	key     string    // the input request id the client must answer
	pending *inputReq // awaiting the client's answer
	timer   *time.Timer
}

type inputReq struct {
	params mcp.InputRequest
	resp   chan mcp.InputResponse // buffered 1; nil sent: refused
}

type outcome struct {
	res *mcp.CallToolResult
	err error
}

func (t *Table) max() int {
	if t.Max > 0 {
		return t.Max
	}
	return MaxPaused
}

func (t *Table) ttl() time.Duration {
	if t.TTL > 0 {
		return t.TTL
	}
	return PauseTTL
}

// Len is the number of calls paused now.
func (t *Table) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}

// Start runs work in its own goroutine, bound to Life and to this request
// until the request ends with an input request (then to TTL and the next
// requests), and waits for its first input request or its result. ctx is
// this request's (First gives it to the work, for progress). owner names
// the caller (the key of its runs.Owner, runs.Owner.Key): only a request
// of the same owner resumes the call (Resume).
func (t *Table) Start(ctx context.Context, owner string, work func(ctx context.Context, c *Call) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	life := t.Life
	if life == nil {
		life = context.Background()
	}
	rctx, cancel := context.WithCancel(life)
	id := "rpa-" + hex.EncodeToString(b[:])
	if t.Tag != "" {
		id = "rpa-" + t.Tag + "." + hex.EncodeToString(b[:])
	}
	c := &Call{id: id, owner: owner, t: t, cancel: cancel, first: ctx,
		reqs: make(chan *inputReq), out: make(chan outcome, 1)}
	c.timer = time.AfterFunc(t.ttl(), c.expire)
	c.timer.Stop()
	if t.Calls != nil {
		t.Calls.Add(1)
	}
	go func() {
		if t.Calls != nil {
			defer t.Calls.Done()
		}
		res, err := work(rctx, c)
		c.out <- outcome{res, err}
	}()
	return c.wait(ctx)
}

// TagOf returns the Table.Tag a requestState names ("" when none).
func TagOf(state string) string {
	rest, ok := strings.CutPrefix(state, "rpa-")
	if !ok {
		return ""
	}
	tag, _, ok := strings.Cut(rest, ".")
	if !ok {
		return ""
	}
	return tag
}

// Has reports whether the call a requestState names is paused here.
func (t *Table) Has(state string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.m[state]
	return ok
}

// Resume continues the paused call named by the request's requestState
// with the answers it carries, for owner (Start's owner). An unknown
// requestState, or one whose input request the responses do not answer,
// is JSON-RPC -32602 naming the field; so is a call another owner started,
// with exactly the answer of an unknown requestState (a requestState that
// leaked does not let another caller answer the run's question and take
// its result, nor tell that the call exists).
func (t *Table) Resume(ctx context.Context, owner string, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id := req.Params.RequestState
	t.mu.Lock()
	c := t.m[id]
	t.mu.Unlock()
	if c == nil || c.owner != owner {
		return nil, invalid("requestState", "requestState: no paused call with this id (it finished, expired or was never made); call the tool again")
	}
	c.mu.Lock()
	ir, key := c.pending, c.key
	if ir != nil {
		resp, ok := req.Params.InputResponses[key]
		if !ok {
			c.mu.Unlock()
			return nil, invalid("inputResponses", fmt.Sprintf("inputResponses: no answer to input request %q", key))
		}
		c.pending = nil
		ir.resp <- resp
	}
	c.mu.Unlock()
	return c.wait(ctx)
}

func invalid(field, msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg, Data: []byte(`{"field":"` + field + `"}`)}
}

// register lists c as paused; false when Max are already.
func (c *Call) register() bool {
	t := c.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[string]*Call{}
	}
	if _, ok := t.m[c.id]; ok {
		return true
	}
	if len(t.m) >= t.max() {
		return false
	}
	t.m[c.id] = c
	return true
}

// wait ends the current request: with the work's next input request, or
// its result. A cancelled request cancels the work.
func (c *Call) wait(ctx context.Context) (*mcp.CallToolResult, error) {
	c.timer.Stop() // the clock runs only while no request is waiting
	select {
	case ir := <-c.reqs:
		if !c.register() {
			// Too many paused calls: this question is refused.
			ir.resp <- nil
			return c.wait(ctx)
		}
		c.mu.Lock()
		c.n++
		c.key = fmt.Sprintf("q%d", c.n)
		c.pending = ir
		key := c.key
		c.mu.Unlock()
		c.timer.Reset(c.t.ttl())
		// content is an array in CallToolResult's schema: [] here, never null
		return &mcp.CallToolResult{Content: []mcp.Content{}, InputRequests: mcp.InputRequestMap{key: ir.params}, RequestState: c.id}, nil
	case o := <-c.out:
		c.drop()
		return o.res, o.err
	case <-ctx.Done():
		c.cancel()
		o := <-c.out
		c.drop()
		if o.err == nil && o.res != nil {
			return o.res, nil
		}
		return nil, &jsonrpc.Error{Code: CodeCancelled, Message: "cancelled"}
	}
}

// expire cancels a call nobody resumed in time and drops it.
func (c *Call) expire() {
	c.cancel()
	c.drop()
	if c.t.Log != nil {
		c.t.Log.Info("paused call expired", "ttl", c.t.ttl().String())
	}
}

func (c *Call) drop() {
	c.timer.Stop()
	c.t.mu.Lock()
	delete(c.t.m, c.id)
	c.t.mu.Unlock()
}

// First is the context of the request that started the call (progress
// notifications go to it).
func (c *Call) First() context.Context { return c.first }

// Ask hands r to the client through the current or the next request and
// waits for its answer until ctx ends. It is an AskFunc.
func (c *Call) Ask(ctx context.Context, r mcp.InputRequest) (mcp.InputResponse, error) {
	ir := &inputReq{params: r, resp: make(chan mcp.InputResponse, 1)}
	select {
	case c.reqs <- ir:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-ir.resp:
		if r == nil {
			return nil, fmt.Errorf("too many calls are waiting for input (%d)", c.t.max())
		}
		return r, nil
	case <-ctx.Done():
		c.mu.Lock()
		if c.pending == ir {
			c.pending = nil
		}
		c.mu.Unlock()
		return nil, ctx.Err()
	}
}

// Elicit adapts an AskFunc to elicitation (hitl.Elicit.Defer).
func Elicit(ask AskFunc) func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		r, err := ask(ctx, p)
		if err != nil {
			return nil, err
		}
		er, ok := r.(*mcp.ElicitResult)
		if !ok {
			return nil, fmt.Errorf("the client answered an elicitation with %T", r)
		}
		return er, nil
	}
}

// Sample adapts an AskFunc to sampling (llm.Sampling.Defer).
func Sample(ask AskFunc) func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	return func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		r, err := ask(ctx, p)
		if err != nil {
			return nil, err
		}
		switch x := r.(type) {
		case *mcp.CreateMessageResult:
			return x, nil
		case *mcp.CreateMessageWithToolsResult:
			if len(x.Content) == 0 {
				return nil, errors.New("the client's sampling answer has no content")
			}
			return &mcp.CreateMessageResult{Content: x.Content[0], Model: x.Model, Role: x.Role, StopReason: x.StopReason}, nil
		}
		return nil, fmt.Errorf("the client answered a sampling request with %T", r)
	}
}
