package mrtr

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Cache scopes of the results that carry caching hints (ttlMs, cacheScope:
// server/discover, tools/list, prompts/list, resources/list,
// resources/templates/list and resources/read; MCP 2026-07-28, "Caching").
// The go-sdk sends them on every protocol version and fills an unset scope
// with CachePublic.
const (
	// CachePublic marks a result that holds nothing of its caller's: any
	// client or shared cache may serve it to any caller of the server.
	CachePublic = "public"
	// CachePrivate marks a result that depends on its caller (its MCP
	// session or bearer token): a cache may reuse it only for that caller.
	CachePrivate = "private"
)

// CachePolicy decides the cacheScope of a server's results
// (mcp.ServerOptions.SetCacheable; PROTOCOL.md, "Caching"): a result is
// private unless it is the same for every caller.
type CachePolicy struct {
	// ListsPerCaller says resources/list holds the caller's own
	// resources (its runs, its kept answers), so it is private.
	ListsPerCaller bool
	// PrivateURIs are URI prefixes whose resources belong to a caller
	// (rpa://runs/): their reads are private whatever their handler set
	// (a desktop's answer relayed by the gateway included).
	PrivateURIs []string
}

// SetCacheable is p as mcp.ServerOptions.SetCacheable. c holds what the
// handler set ("" when it set nothing):
//
//   - server/discover, tools/list, prompts/list, resources/templates/list:
//     public unless the handler said otherwise: the server builds them from
//     its registrations, the same for every caller;
//   - resources/list: private with ListsPerCaller, else as above;
//   - resources/read: private unless its handler set CachePublic (a
//     resource the same for every caller), and always under PrivateURIs;
//   - any other result: private.
func (p CachePolicy) SetCacheable(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
	shared := func() {
		if c.CacheScope != CachePrivate {
			c.CacheScope = CachePublic
		}
	}
	switch r := req.(type) {
	case *mcp.ServerRequest[*mcp.DiscoverParams], *mcp.ListToolsRequest, *mcp.ListPromptsRequest, *mcp.ListResourceTemplatesRequest:
		shared()
	case *mcp.ListResourcesRequest:
		if p.ListsPerCaller {
			c.CacheScope = CachePrivate
		} else {
			shared()
		}
	case *mcp.ReadResourceRequest:
		if c.CacheScope != CachePublic || r.Params == nil || p.private(r.Params.URI) {
			c.CacheScope = CachePrivate
		}
	default:
		c.CacheScope = CachePrivate
	}
}

// private reports whether uri is under one of p.PrivateURIs.
func (p CachePolicy) private(uri string) bool {
	for _, pre := range p.PrivateURIs {
		if strings.HasPrefix(uri, pre) {
			return true
		}
	}
	return false
}
