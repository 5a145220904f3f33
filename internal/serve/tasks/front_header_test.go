package tasks

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestParamsErrorBeforeHeader: on 2026-07-28, params of tasks/* that do not decode (an
// ill-typed taskId or inputResponses) are refused naming their field, whatever the Mcp-Name
// header; they were refused as "the Mcp-Name header ... does not match params.taskId" (the
// taskId of params that do not decode is not known). A header that does not match a taskId
// that decodes is still refused.
func TestParamsErrorBeforeHeader(t *testing.T) {
	ts := newTestServer(t, Options{})
	f := &Front{M: ts.m}
	for _, c := range []struct {
		method, header, params, want string
	}{
		{MethodUpdate, "t1", `{"taskId":"t1","inputResponses":"garbage"}`, "inputResponses: want an object, got a string"},
		{MethodUpdate, "t1", `{"taskId":"t1","inputResponses":5}`, "inputResponses: "},
		{MethodUpdate, "t1", `{"taskId":"t1","inputResponses":[1]}`, "inputResponses: "},
		{MethodUpdate, "t1", `{"taskId":"t1","inputResponses":{"q1":"str"}}`, "inputResponses.q1: want an object, got a string"},
		{MethodUpdate, "t1", `{"taskId":"t1","inputResponses":{"q1":{"x":1}}}`, "inputResponses.q1: want an answer"},
		{MethodGet, "5", `{"taskId":5}`, "taskId: want a string, got a number"},
		{MethodCancel, "t1", `{"taskId":["t1"]}`, "taskId: want a string, got an array"},
		{MethodGet, "other", `{"taskId":"t1"}`, `the Mcp-Name header "other" does not match params.taskId`},
	} {
		var p Params
		if err := json.Unmarshal([]byte(c.params), &p); err != nil {
			t.Fatal(err)
		}
		info := callInfo{modern: true, declares: true, header: http.Header{"Mcp-Name": {c.header}}}
		_, err := f.serve(context.WithValue(context.Background(), callKey{}, info), c.method, nil, &p)
		je, _ := err.(*jsonrpc.Error)
		if je == nil || je.Code != jsonrpc.CodeInvalidParams || !strings.HasPrefix(je.Message, c.want) {
			t.Errorf("%s %s (Mcp-Name %s): %v, want -32602 %q", c.method, c.params, c.header, err, c.want)
		}
	}
}
