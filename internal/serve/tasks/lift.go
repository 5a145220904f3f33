package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// LiftKey is the _meta key under which Lift puts a tools/call's `task`
// param (2025-11-25), for Front to read.
//
// The go-sdk (v1.8.0) decodes tools/call params into CallToolParamsRaw,
// which has no `task` field, and offers no way to decode a standard method
// differently, so the param would be lost before any middleware sees it.
// Lift moves it into _meta on the way in, where the middleware can read
// it; a value a client put under LiftKey itself is replaced. (For upstream:
// a Task field on CallToolParamsRaw would make this unnecessary.)
const LiftKey = "rpa/task"

// LiftTaskIDs is the _meta key under which Lift marks a
// subscriptions/listen that asks for task status notifications
// (notifications.taskIds, which the SDK's params type drops too).
const LiftTaskIDs = "rpa/taskIds"

// Lift returns msg with a tools/call's `task` param copied into
// _meta[LiftKey], and a subscriptions/listen's notifications.taskIds into
// _meta[LiftTaskIDs] (any client-set value of those keys dropped); other
// messages unchanged.
func Lift(msg jsonrpc.Message) jsonrpc.Message {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.Method != "tools/call" && req.Method != "subscriptions/listen" || len(req.Params) == 0 ||
		!bytes.Contains(req.Params, []byte(`"rpa/task`)) && !bytes.Contains(req.Params, []byte(`"task`)) {
		return msg
	}
	obj := map[string]json.RawMessage{}
	if json.Unmarshal(req.Params, &obj) != nil {
		return msg
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := obj["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		return msg // a bad _meta: the SDK refuses the params itself
	}
	delete(meta, LiftKey)
	delete(meta, LiftTaskIDs)
	if t, ok := obj["task"]; ok && req.Method == "tools/call" {
		meta[LiftKey] = t
	}
	if req.Method == "subscriptions/listen" {
		var p struct {
			Notifications struct {
				TaskIDs json.RawMessage `json:"taskIds"`
			} `json:"notifications"`
		}
		if json.Unmarshal(req.Params, &p) == nil && len(p.Notifications.TaskIDs) > 0 && string(p.Notifications.TaskIDs) != "null" {
			meta[LiftTaskIDs] = p.Notifications.TaskIDs
		}
	}
	if len(meta) == 0 {
		delete(obj, "_meta")
	} else {
		b, err := json.Marshal(meta)
		if err != nil {
			return msg
		}
		obj["_meta"] = b
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return msg
	}
	cp := *req
	cp.Params = b
	return &cp
}

// LiftTransport wraps a server transport so that every message read goes
// through Lift.
func LiftTransport(t mcp.Transport) mcp.Transport { return liftTransport{t} }

type liftTransport struct{ mcp.Transport }

func (t liftTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return liftConn{c}, nil
}

type liftConn struct{ mcp.Connection }

func (c liftConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		return msg, err
	}
	return Lift(msg), nil
}

// maxLiftBody bounds the POST body LiftHTTP reads (the SDK's own limit).
const maxLiftBody = mcp.DefaultMaxRequestBodyBytes

// LiftHTTP wraps a Streamable HTTP handler so that a POSTed tools/call goes
// through Lift. A body past the SDK's size limit is passed on as it is
// (the SDK refuses it).
func LiftHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxLiftBody+1))
		rest := r.Body
		if err != nil || len(body) > maxLiftBody {
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(body), rest), rest}
			next.ServeHTTP(w, r)
			return
		}
		rest.Close()
		if bytes.Contains(body, []byte(`"tools/call"`)) || bytes.Contains(body, []byte(`"subscriptions/listen"`)) {
			if msg, err := jsonrpc.DecodeMessage(body); err == nil {
				if out := Lift(msg); out != msg {
					if b, err := jsonrpc.EncodeMessage(out); err == nil {
						body = b
					}
				}
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}
