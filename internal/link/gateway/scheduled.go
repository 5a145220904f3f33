package gateway

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/lang"
)

// Offered returns the device id of a linked desktop (on any replica of a cluster) that offers
// tool name: device itself when it is linked and offers it, else "" ; with device "" the first
// desktop by id that offers it, "" when none does.
func (g *Gateway) Offered(name, device string) string {
	for _, o := range g.offers(name) {
		if device == "" || o.id == device {
			return o.id
		}
	}
	return ""
}

// CallTool runs tool name with args on a linked desktop for a caller of the gateway itself rather
// than an agent (a schedule of the cluster, package schedule/clustered): on device, or with
// device "" on the desktop Offered picks. The desktop may be linked to any replica. id names the
// call on the desktop (the JSON-RPC id it gets): a desktop that already answered that id (within
// its dedup window, connect.DefaultDedupTTL) sends the kept answer again instead of running it a
// second time, so a caller that retries a call it may have sent uses the same id.
//
// Errors are *jsonrpc.Error: CodeNoSuchTool when no linked desktop offers the tool (or device is
// not linked), CodeUnreachable when the desktop dropped mid-call; the tool's own failure is the
// result's IsError, as for an agent.
func (g *Gateway) CallTool(ctx context.Context, id, device, name string, args map[string]json.RawMessage) (*mcp.CallToolResult, error) {
	if !g.drain.enter() {
		return nil, &jsonrpc.Error{Code: CodeUnreachable, Message: msgRestarting}
	}
	defer g.drain.leave()
	var pick *offer
	for _, o := range g.offers(name) {
		if device == "" || o.id == device {
			pick = &o
			break
		}
	}
	if pick == nil {
		where := "no linked desktop offers"
		if device != "" {
			where = fmt.Sprintf("desktop %s is not linked or does not offer", lang.Echo(device))
		}
		return nil, &jsonrpc.Error{Code: CodeNoSuchTool, Message: fmt.Sprintf("%s tool %s", where, lang.Echo(name))}
	}
	a := map[string]json.RawMessage{}
	for k, v := range args {
		a[k] = v
	}
	if !pick.dt.hasDeviceID {
		delete(a, DeviceIDArg)
	}
	resp, err := g.toolsCall(ctx, pick, map[string]any{"name": name, "arguments": a}, &call{ctx: ctx, pctx: ctx, tool: name, id: id})
	if err != nil {
		return nil, desktopError(err)
	}
	if resp.Error != nil {
		return nil, rpcErr(resp.Error)
	}
	return callResult(resp)
}
