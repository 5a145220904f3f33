package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats.go"
)

// Paused 2026-07-28 calls in a cluster (package mrtr): a call paused for its agent's input lives
// on the replica whose request started it; its requestState names that replica (mrtr.Table.Tag),
// and a resumed request that lands on another replica (a load balancer without stickiness) is
// sent there over NATS and answered from there: the next input request or the result.

// resumeSubject is where a replica takes resumed requests of its paused calls.
func resumeSubject(name string) string { return "rpa.resume." + name }

// resumeReply is a replica's answer to a resumed request (Blob: the answer was over the NATS
// limit and waits in the object store).
type resumeReply struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  *jsonrpc.Error  `json:"error,omitempty"`
	Blob   string          `json:"blob,omitempty"`
}

// resumeRequest is a resumed request sent to the replica holding its paused call: the params
// and the agent that sent them (runs.Owner.Key; mrtr.Table.Resume lets only the call's own
// agent resume it).
type resumeRequest struct {
	Owner  string                 `json:"owner"`
	Params *mcp.CallToolParamsRaw `json:"params"`
}

// resumeElsewhere sends req of agent owner, resuming a call paused on replica holder, there and
// returns its answer. A holder that is gone took the call with it: the agent is told to call
// again.
func (r *replica) resumeElsewhere(ctx context.Context, holder, owner string, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(resumeRequest{Owner: owner, Params: req.Params})
	if err != nil {
		return nil, err
	}
	m, err := r.n.Conn().RequestWithContext(ctx, resumeSubject(holder), b)
	if errors.Is(err, nats.ErrNoResponders) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Data: json.RawMessage(`{"field":"requestState"}`),
			Message: fmt.Sprintf("requestState: the gateway replica %q holding this paused call is gone, and the call with it; call the tool again", holder)}
	}
	if err != nil {
		return nil, err
	}
	var rep resumeReply
	if err := json.Unmarshal(m.Data, &rep); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "bad answer from the cluster: " + err.Error()}
	}
	if rep.Blob != "" {
		data, err := r.n.Blob(ctx, rep.Blob, true)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(data, &rep); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "bad answer from the cluster: " + err.Error()}
		}
	}
	if rep.Error != nil {
		return nil, rep.Error
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(rep.Result, &res); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "bad answer from the cluster: " + err.Error()}
	}
	return &res, nil
}

// onResume resumes, here, a paused call whose resumed request landed on another replica (in
// its own goroutine: the call may run on for minutes). The other replica's agent going away
// does not reach it: the call then goes on to its next question or result, or its pause TTL.
func (r *replica) onResume(m *nats.Msg) {
	go func() {
		var rep resumeReply
		var q resumeRequest
		if err := json.Unmarshal(m.Data, &q); err != nil || q.Params == nil {
			rep.Error = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad resumed request"}
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			res, err := r.g.paused.Resume(ctx, q.Owner, &mcp.CallToolRequest{Params: q.Params})
			cancel()
			switch {
			case err != nil:
				rep.Error = rpcErr(err)
			default:
				rep.Result, err = json.Marshal(res)
				if err != nil {
					rep.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
				}
			}
		}
		b, _ := json.Marshal(rep)
		if !r.n.Fits(len(b)) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			name, err := r.n.PutBlob(ctx, b)
			cancel()
			if err != nil {
				b, _ = json.Marshal(resumeReply{Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "cannot pass the answer on: " + err.Error()}})
			} else {
				b, _ = json.Marshal(resumeReply{Blob: name})
			}
		}
		_ = m.Respond(b)
	}()
}
