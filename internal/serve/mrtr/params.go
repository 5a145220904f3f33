package mrtr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sjson "github.com/segmentio/encoding/json"

	"github.com/rpa-dev/rpa/lang"
)

// The go-sdk (v1.8.0) decodes a request's params before any middleware
// runs, and when they do not decode its error quotes them whole
// ("unmarshaling %q into a *mcp.CallToolParamsRaw", mcp/shared.go): a
// tools/call with a malformed field sent an agent's arguments back, a
// password among them, and a 5 MB one whole. So every transport asks
// ParamsError first (stdio in its read loop, the desktop link through
// CheckTransport, Streamable HTTP through CheckHTTP) and answers such a
// request -32602 naming the field, never quoting a value; a request that
// decodes goes on to the SDK unchanged. (For upstream: the SDK's error
// could name the field without %q of the params.)

// sdkParams maps each method the SDK's server decodes itself to a new value
// of the type it decodes that method's params into (mcp/server.go,
// serverMethodInfos; initialize decodes into initializeParams, a copy of
// the SDK's unexported initializeParamsV2). Custom methods (tasks/*) decode
// their own params (tasks.Params).
var sdkParams = map[string]func() any{
	"initialize":               func() any { return new(initializeParams) },
	"completion/complete":      func() any { return new(mcp.CompleteParams) },
	"server/discover":          func() any { return new(mcp.DiscoverParams) },
	"ping":                     func() any { return new(mcp.PingParams) },
	"prompts/list":             func() any { return new(mcp.ListPromptsParams) },
	"prompts/get":              func() any { return new(mcp.GetPromptParams) },
	"tools/list":               func() any { return new(mcp.ListToolsParams) },
	"tools/call":               func() any { return new(mcp.CallToolParamsRaw) },
	"resources/list":           func() any { return new(mcp.ListResourcesParams) },
	"resources/templates/list": func() any { return new(mcp.ListResourceTemplatesParams) },
	"resources/read":           func() any { return new(mcp.ReadResourceParams) },
	//lint:ignore SA1019 the SDK still decodes the deprecated methods' params
	"logging/setLevel":          func() any { return new(mcp.SetLoggingLevelParams) },
	"resources/subscribe":       func() any { return new(mcp.SubscribeParams) },
	"subscriptions/listen":      func() any { return new(mcp.SubscriptionsListenParams) },
	"resources/unsubscribe":     func() any { return new(mcp.UnsubscribeParams) },
	"notifications/cancelled":   func() any { return new(mcp.CancelledParams) },
	"notifications/initialized": func() any { return new(mcp.InitializedParams) },
	//lint:ignore SA1019 as above
	"notifications/roots/list_changed": func() any { return new(mcp.RootsListChangedParams) },
	"notifications/progress":           func() any { return new(mcp.ProgressNotificationParams) },
}

// initializeParams is the SDK's initializeParamsV2 (mcp/protocol.go):
// capabilities.roots decodes into a pointer of its own.
type initializeParams struct {
	mcp.InitializeParams
	Capabilities *struct {
		mcp.ClientCapabilities
		//lint:ignore SA1019 as the SDK's
		Roots *mcp.RootCapabilities `json:"roots,omitempty"`
	} `json:"capabilities"`
}

// maxDepth is the SDK's bound on the nesting of a message's JSON
// (internal/json, defaultMaxDepth).
const maxDepth = 1000

// sdkDecode decodes b into v as the SDK decodes params (its internal/json:
// segmentio/encoding with struct fields matched case-sensitively, nesting
// bounded by maxDepth), so that it fails exactly when the SDK's decode does.
func sdkDecode(b []byte, v any) error {
	if tooDeep(b) {
		return errTooDeep
	}
	d := sjson.NewDecoder(bytes.NewReader(b))
	d.DontMatchCaseInsensitiveStructFields()
	return d.Decode(v)
}

var errTooDeep = errors.New("nested too deep")

// tooDeep reports whether the objects and arrays of b nest deeper than
// maxDepth (strings skipped), as the SDK's checkMaxDepth.
func tooDeep(b []byte) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > maxDepth {
				return true
			}
		case (c == '}' || c == ']') && depth > 0:
			depth--
		}
	}
	return false
}

// ParamsError is the -32602 error for a request (or notification) whose
// params the SDK would fail to decode into its method's params type, nil
// when they decode, when the method is not one the SDK decodes itself, or
// when there are no params (the SDK's own answer to those quotes nothing).
// The error names the field (message "name: want a string,
// got a number", data {"field": "name"}) and quotes no value.
func ParamsError(req *jsonrpc.Request) *jsonrpc.Error {
	newParams, ok := sdkParams[req.Method]
	if !ok || len(req.Params) == 0 {
		return nil
	}
	decode := func(b []byte) error { return sdkDecode(b, newParams()) }
	if decode(req.Params) == nil {
		return nil
	}
	field, msg := BadParam(req.Params, decode)
	data, _ := json.Marshal(map[string]string{"field": field})
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg, Data: data}
}

// BadParam explains why params (a JSON value) do not decode, given decode,
// which decodes a JSON object into a new value of the params type: it
// names the field at fault (a dotted path of JSON names; "params" when no
// one field is) and says what was wrong with it ("name: want a string, got
// a number"), never quoting a value; a field name longer than lang.MaxEcho
// is named by its length. With a type error (encoding/json's or
// segmentio's UnmarshalTypeError, whose Value may hold the value itself,
// and is not used) the field is the error's; otherwise each top-level
// field is decoded alone and the first (by name) that fails is named.
func BadParam(params []byte, decode func([]byte) error) (field, msg string) {
	t := bytes.TrimSpace(params)
	if len(t) == 0 || t[0] != '{' {
		return "params", "params: want an object, got " + jsonKind(t)
	}
	if tooDeep(t) {
		return "params", fmt.Sprintf("params: nested deeper than %d levels", maxDepth)
	}
	var te *json.UnmarshalTypeError
	if err := decode(t); errors.As(err, &te) && te.Field != "" {
		field = te.Field
		msg = field + ": want " + goKind(te.Type)
		if raw, ok := lookup(t, field); ok {
			msg += ", got " + jsonKind(raw)
		}
		return echoField(field), echoField(field) + msg[len(field):]
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(t, &obj) == nil {
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			one, err := json.Marshal(map[string]json.RawMessage{k: obj[k]})
			if err != nil {
				continue
			}
			if err := decode(one); errors.As(err, &te) {
				return echoField(k), echoField(k) + ": want " + goKind(te.Type) + ", got " + jsonKind(obj[k])
			} else if err != nil {
				return echoField(k), echoField(k) + ": not a valid " + strings.TrimPrefix(strings.TrimPrefix(jsonKind(obj[k]), "a "), "an ")
			}
		}
	}
	return "params", "params: not valid for the method"
}

// echoField is a field name as an error shows it: itself, or its length
// when longer than lang.MaxEcho (a map's keys are the caller's text).
func echoField(f string) string {
	if len(f) > lang.MaxEcho {
		return lang.Echo(f)
	}
	return f
}

// lookup returns the JSON value at a dotted path of object keys in b.
func lookup(b []byte, path string) (json.RawMessage, bool) {
	raw := json.RawMessage(b)
	for _, k := range strings.Split(path, ".") {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil, false
		}
		if raw = obj[k]; raw == nil {
			return nil, false
		}
	}
	return raw, true
}

// jsonKind names the JSON type of the value b ("a string", "an object", ...).
func jsonKind(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "true or false"
	case 'n':
		return "null"
	}
	return "a number"
}

// goKind names the JSON type a Go type decodes from.
func goKind(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Bool:
		return "true or false"
	case reflect.Interface:
		return "a value"
	}
	return "a number"
}

// CheckTransport wraps a server transport so that a request read whose
// params do not decode (ParamsError) is answered on the connection itself
// and never reaches the SDK; such a notification is dropped. rpa connect's
// link to the gateway reads through it.
func CheckTransport(t mcp.Transport) mcp.Transport { return checkTransport{t} }

type checkTransport struct{ mcp.Transport }

func (t checkTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return checkConn{c}, nil
}

type checkConn struct{ mcp.Connection }

func (c checkConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return msg, err
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			return msg, nil
		}
		e := ParamsError(req)
		if e == nil {
			return msg, nil
		}
		if req.IsCall() {
			if err := c.Connection.Write(ctx, &jsonrpc.Response{ID: req.ID, Error: e}); err != nil {
				return nil, err
			}
		}
	}
}

// MessageProblem says why body is not a JSON-RPC 2.0 message (err is
// jsonrpc.DecodeMessage's error, whose text may quote the message: the
// version tag whole, a field of the wrong type whole, 32 bytes of a syntax
// error), naming the field and quoting nothing: "not valid JSON (at byte
// 12)", "message: want an object, got a string", `jsonrpc: want "2.0"`,
// "method: want a string, got an array".
func MessageProblem(body []byte, err error) string {
	if !json.Valid(body) {
		return NotJSON(body)
	}
	if tooDeep(body) {
		return fmt.Sprintf("nested deeper than %d levels", maxDepth)
	}
	if t := bytes.TrimSpace(body); len(t) == 0 || t[0] != '{' {
		// the message itself is no object (a string, null, a number):
		// there are no params nor version tag to speak of
		return "message: want an object, got " + jsonKind(t)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		// each field alone, in a notification that decodes without it
		_, msg := BadParam(body, func(b []byte) error {
			m := map[string]json.RawMessage{"jsonrpc": json.RawMessage(`"2.0"`), "method": json.RawMessage(`"m"`)}
			if err := json.Unmarshal(b, &m); err != nil {
				return err
			}
			b, _ = json.Marshal(m)
			_, err := jsonrpc.DecodeMessage(b)
			return err
		})
		return msg
	}
	var tag struct {
		V json.RawMessage `json:"jsonrpc"`
	}
	if json.Unmarshal(body, &tag) != nil {
		return "want a JSON object"
	}
	if string(tag.V) != `"2.0"` {
		return `jsonrpc: want "2.0"`
	}
	if err != nil && strings.Contains(err.Error(), "invalid ID type") {
		return "id: want a string or a number"
	}
	return "not a JSON-RPC 2.0 message"
}

// NotJSON says where b, which is not valid JSON, stops being JSON: "not
// valid JSON (at byte 12)", the byte's position counted from 1 (Go's
// json.SyntaxError.Offset, the bytes read when it found the error), or
// "not valid JSON: it ends early (after byte 30)" when b stops in the
// middle of a value. No byte of b is quoted.
func NotJSON(b []byte) string {
	var se *json.SyntaxError
	if err := json.Unmarshal(b, new(json.RawMessage)); !errors.As(err, &se) {
		return "not valid JSON"
	}
	if se.Offset >= int64(len(b)) && strings.Contains(se.Error(), "end of JSON input") {
		return fmt.Sprintf("not valid JSON: it ends early (after byte %d)", len(b))
	}
	return fmt.Sprintf("not valid JSON (at byte %d)", se.Offset)
}

// CheckHTTP wraps a Streamable HTTP handler so that a POSTed request whose
// params do not decode (ParamsError) is answered here: HTTP 200 with the
// JSON-RPC error (application/json), or 202 Accepted for a notification
// (dropped). A body that is not a JSON-RPC message (or a batch of them) is
// answered HTTP 400 "malformed payload: " and MessageProblem, as the SDK
// answers it but without its error's quote of the message; a batch with
// params that do not decode is answered 400 naming the message and the
// field. Anything else, a body past the SDK's size limit among it, passes
// on unchanged (the body left readable). rpa serve --http, rpa ui
// --serve-http and the gateway's /mcp serve through it.
func CheckHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, ok := HoldBody(w, r)
		if !ok {
			return
		}
		if t := bytes.TrimSpace(body); len(t) == 0 || len(body) > maxHeldBody {
			next.ServeHTTP(w, r)
			return
		} else if t[0] == '[' {
			if problem := batchProblem(t); problem != "" {
				http.Error(w, "malformed payload: "+problem, http.StatusBadRequest)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		msg, err := jsonrpc.DecodeMessage(body)
		if err != nil {
			http.Error(w, "malformed payload: "+MessageProblem(body, err), http.StatusBadRequest)
			return
		}
		req, ok := msg.(*jsonrpc.Request)
		var e *jsonrpc.Error
		if ok {
			e = ParamsError(req)
		}
		if e == nil {
			next.ServeHTTP(w, r)
			return
		}
		if !req.IsCall() {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		raw, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Error: e})
		if err != nil {
			http.Error(w, "invalid params", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(raw)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(raw)
	})
}

// batchProblem says what is wrong with a batch's messages ("message 2:
// ..."), "" when each is a JSON-RPC message whose params decode (or b is
// not an array of JSON values: the SDK answers that itself, quoting
// nothing).
func batchProblem(b []byte) string {
	var batch []json.RawMessage
	if json.Unmarshal(b, &batch) != nil {
		if !json.Valid(b) {
			return NotJSON(b)
		}
		return ""
	}
	for i, raw := range batch {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return fmt.Sprintf("message %d: %s", i+1, strings.TrimPrefix(MessageProblem(raw, err), "message: "))
		}
		if req, ok := msg.(*jsonrpc.Request); ok {
			if e := ParamsError(req); e != nil {
				return fmt.Sprintf("message %d: %s", i+1, e.Message)
			}
		}
	}
	return ""
}
