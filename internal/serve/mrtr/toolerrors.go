package mrtr

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolErrorsExtension is the client capability (in `extensions`, or in
// `experimental`) with which a client asks for the calls rpa refuses with
// -32003 or -32004 to come back as tool errors instead (ToolErrors).
//
// Why: the Go MCP SDK's client turns a JSON-RPC error with code -32003 or
// -32004 (which its own jsonrpc2 package uses for "client is closing" and
// "server is closing") into mcp.ErrConnectionClosed, "connection closed:
// calling "tools/call": ...", and drops the code and data (go-sdk v1.8,
// mcp/transport.go). PROTOCOL.md keeps the codes; a Go agent declares this
// capability to receive them intact.
const ToolErrorsExtension = "dev.rpa/tool-errors"

// MetaToolError is the `_meta` key of such a tool error's result: the
// JSON-RPC error it stands for, {"code", "message", "data"}.
const MetaToolError = "dev.rpa/error"

// ToolErrors is a receiving middleware for an MCP server (add it last, so
// it wraps every other): a tools/call answered with a JSON-RPC error of
// code -32003 or -32004, from a client that declared ToolErrorsExtension
// (per request on 2026-07-28, at initialize before), is answered instead
// with a CallToolResult whose isError is true, whose text is the error's
// message and whose `_meta["dev.rpa/error"]` is the error (code, message,
// data). Other clients, codes and methods are left as they are.
func ToolErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err == nil || method != "tools/call" {
			return res, err
		}
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != -32003 && we.Code != -32004 {
			return res, err
		}
		cr, ok := req.(*mcp.CallToolRequest)
		if !ok || !wantsToolErrors(cr.ClientCapabilities()) {
			return res, err
		}
		e := map[string]any{"code": we.Code, "message": we.Message}
		if len(we.Data) > 0 && json.Valid(we.Data) {
			e["data"] = json.RawMessage(we.Data)
		}
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: we.Message}},
			Meta: mcp.Meta{MetaToolError: e}}, nil
	}
}

// wantsToolErrors reports whether caps declare ToolErrorsExtension.
func wantsToolErrors(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	_, ext := caps.Extensions[ToolErrorsExtension]
	_, exp := caps.Experimental[ToolErrorsExtension]
	return ext || exp
}
