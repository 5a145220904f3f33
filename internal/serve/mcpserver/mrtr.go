//lint:file-ignore SA1019 sampling (CreateMessage*) is deprecated by SEP-2577 but still part of the protocol during its deprecation window; the llm action's sampling hook uses it deliberately.

package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/host/hitl"
)

// Limits of paused calls (multi-round-trip, protocol 2026-07-28).
const (
	// MaxPaused is how many calls may wait paused for their client's input
	// at once; a question beyond it goes to the next channel.
	MaxPaused = 32
	// PauseTTL is how long a paused call waits for the call that carries
	// its answers; then its run is cancelled and its state dropped (its
	// browser profile is freed).
	PauseTTL = 10 * time.Minute
)

// maxPaused and pauseTTL are MaxPaused and PauseTTL (tests shorten them).
var (
	maxPaused = MaxPaused
	pauseTTL  = PauseTTL
)

// multiRoundTrip reports whether the call's client is on a protocol where
// the server may not send requests during a call (2026-07-28 and later).
func multiRoundTrip(req *mcp.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	ip := req.Session.InitializeParams()
	return ip != nil && ip.ProtocolVersion >= hitl.ProtocolMultiRoundTrip
}

// inputReq is one request for the client's input made by a paused run.
type inputReq struct {
	params mcp.InputRequest
	resp   chan mcp.InputResponse // buffered 1
}

type outcome struct {
	res *mcp.CallToolResult
	err error
}

// pauser is a call whose work (a flow run, a hitl_prompt) goes on in its
// own goroutine across several tools/call requests of a multi-round-trip
// client: each request for input ends the current call with that input
// request and the pauser's id as requestState; the next call carrying the
// answers resumes the work where it stopped.
type pauser struct {
	id     string
	srv    *Server
	first  context.Context // the first call's ctx (progress goes to it)
	cancel context.CancelFunc
	reqs   chan *inputReq
	out    chan outcome // buffered 1: the work's result

	mu      sync.Mutex
	n       int
	key     string    // the input request id the client must answer
	pending *inputReq // awaiting the client's answer
	timer   *time.Timer
}

// pauseTable holds the paused calls by id.
type pauseTable struct {
	mu sync.Mutex
	m  map[string]*pauser
}

// startPaused runs work in its own goroutine, bound to the server's
// lifetime and to this call until the call ends with an input request
// (then to PauseTTL and the next calls), and waits for its first input
// request or its result. first is this call's ctx (for progress).
func (s *Server) startPaused(ctx context.Context, work func(ctx context.Context, p *pauser) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	rctx, cancel := context.WithCancel(s.ctx)
	p := &pauser{id: "rpa-" + hex.EncodeToString(b[:]), srv: s, cancel: cancel, first: ctx,
		reqs: make(chan *inputReq), out: make(chan outcome, 1)}
	p.timer = time.AfterFunc(pauseTTL, p.expire)
	p.timer.Stop()
	s.calls.Add(1)
	go func() {
		defer s.calls.Done()
		res, err := work(rctx, p)
		p.out <- outcome{res, err}
	}()
	return p.wait(ctx)
}

// register lists p as paused; false when MaxPaused are already.
func (p *pauser) register() bool {
	t := &p.srv.paused
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[string]*pauser{}
	}
	if _, ok := t.m[p.id]; ok {
		return true
	}
	if len(t.m) >= maxPaused {
		return false
	}
	t.m[p.id] = p
	return true
}

// resumePaused continues the paused call named by the request's
// requestState with the answers it carries.
func (s *Server) resumePaused(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id := req.Params.RequestState
	s.paused.mu.Lock()
	p := s.paused.m[id]
	s.paused.mu.Unlock()
	if p == nil {
		return nil, rpcError(CodeInvalidParams, "requestState: no paused call with this id (it finished, expired or was never made); call the tool again", map[string]any{"field": "requestState"})
	}
	p.mu.Lock()
	ir, key := p.pending, p.key
	if ir != nil {
		resp, ok := req.Params.InputResponses[key]
		if !ok {
			p.mu.Unlock()
			return nil, rpcError(CodeInvalidParams, fmt.Sprintf("inputResponses: no answer to input request %q", key), map[string]any{"field": "inputResponses"})
		}
		p.pending = nil
		ir.resp <- resp
	}
	p.mu.Unlock()
	return p.wait(ctx)
}

// wait ends the current call: with the work's next input request, or its
// result. A cancelled call cancels the work.
func (p *pauser) wait(ctx context.Context) (*mcp.CallToolResult, error) {
	p.timer.Stop() // the clock runs only while no call is waiting
	select {
	case ir := <-p.reqs:
		if !p.register() {
			// Too many paused calls: this question goes to the next channel.
			ir.resp <- nil
			return p.wait(ctx)
		}
		p.mu.Lock()
		p.n++
		p.key = fmt.Sprintf("q%d", p.n)
		p.pending = ir
		key := p.key
		p.mu.Unlock()
		p.timer.Reset(pauseTTL)
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{key: ir.params}, RequestState: p.id}, nil
	case o := <-p.out:
		p.drop()
		return o.res, o.err
	case <-ctx.Done():
		p.cancel()
		o := <-p.out
		p.drop()
		if o.err == nil && o.res != nil {
			return o.res, nil
		}
		return nil, rpcError(CodeBuiltinFailed, "cancelled", nil)
	}
}

// expire cancels a call nobody resumed in time and drops it.
func (p *pauser) expire() {
	p.cancel()
	p.drop()
	p.srv.log.Info("paused call expired", "ttl", pauseTTL.String())
}

func (p *pauser) drop() {
	p.timer.Stop()
	p.srv.paused.mu.Lock()
	delete(p.srv.paused.m, p.id)
	p.srv.paused.mu.Unlock()
}

// ask hands params to the client through the current or the next call and
// waits for its answer until ctx ends.
func (p *pauser) ask(ctx context.Context, params mcp.InputRequest) (mcp.InputResponse, error) {
	ir := &inputReq{params: params, resp: make(chan mcp.InputResponse, 1)}
	select {
	case p.reqs <- ir:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-ir.resp:
		if r == nil {
			return nil, fmt.Errorf("too many calls are waiting for input (%d)", maxPaused)
		}
		return r, nil
	case <-ctx.Done():
		p.mu.Lock()
		if p.pending == ir {
			p.pending = nil
		}
		p.mu.Unlock()
		return nil, ctx.Err()
	}
}

// elicit is hitl.Elicit.Defer.
func (p *pauser) elicit(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	r, err := p.ask(ctx, params)
	if err != nil {
		return nil, err
	}
	er, ok := r.(*mcp.ElicitResult)
	if !ok {
		return nil, fmt.Errorf("the client answered an elicitation with %T", r)
	}
	return er, nil
}

// sample is llm.Sampling.Defer.
func (p *pauser) sample(ctx context.Context, params *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	r, err := p.ask(ctx, params)
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
