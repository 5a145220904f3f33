package mcpserver

import (
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/interp"
)

// taps maps (server, progress token) to a watcher of that call's events.
var taps sync.Map // tapKey → func(interp.Event)

type tapKey struct {
	s   *Server
	tok string
}

// WatchCall makes fn receive every interp event (started and finished actions, log lines; masked
// as interp masks them) of the workflow calls of s whose progressToken is tok, until stop is
// called. It is how an in-process client (the console, package ui) shows a run's steps live: it
// calls the tool with that token over an in-memory session. fn is called on the run's goroutine
// and must not block.
func (s *Server) WatchCall(tok string, fn func(interp.Event)) (stop func()) {
	k := tapKey{s, tok}
	taps.Store(k, fn)
	return func() { taps.Delete(k) }
}

// tapEvents adds the watcher of req's progress token (WatchCall) to events.
func (s *Server) tapEvents(req *mcp.CallToolRequest, events func(interp.Event)) func(interp.Event) {
	if req == nil || req.Params == nil {
		return events
	}
	tok := req.Params.GetProgressToken()
	if tok == nil {
		return events
	}
	v, ok := taps.Load(tapKey{s, fmt.Sprint(tok)})
	if !ok {
		return events
	}
	fn := v.(func(interp.Event))
	if events == nil {
		return fn
	}
	return func(ev interp.Event) { events(ev); fn(ev) }
}
