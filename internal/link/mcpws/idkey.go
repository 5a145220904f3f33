package mcpws

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// IDKey is a comparable map key for a JSON-RPC id: "s:abc" for a string
// id, "n:12" for a number, "null" for an absent id (a notification). The
// connect and gateway ends both key their pending calls with it.
func IDKey(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case string:
		return "s:" + v
	case int64:
		return fmt.Sprintf("n:%d", v)
	case nil:
		return "null"
	default:
		return fmt.Sprintf("?:%v", v)
	}
}
