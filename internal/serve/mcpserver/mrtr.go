package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/serve/mrtr"
)

// Limits of paused calls (multi-round-trip, protocol 2026-07-28; package
// mrtr keeps them).
const (
	// MaxPaused is how many calls may wait paused for their client's input
	// at once; a question beyond it goes to the next channel.
	MaxPaused = mrtr.MaxPaused
	// PauseTTL is how long a paused call waits for the call that carries
	// its answers; then its run is cancelled and its state dropped (its
	// browser profile is freed).
	PauseTTL = mrtr.PauseTTL
)

// multiRoundTrip reports whether the call's client is on a protocol where
// the server may not send requests during a call (2026-07-28 and later).
func multiRoundTrip(req *mcp.CallToolRequest) bool { return mrtr.MultiRoundTrip(req) }
