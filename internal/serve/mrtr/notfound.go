package mrtr

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/lang"
)

// notHandled starts the SDK's HTTP 400 text for a method the server does
// not have (jsonrpc2.ErrNotHandled, which the package does not export).
const notHandled = "JSON RPC not handled"

// maxHeldBody bounds how much of a POST body HoldBody keeps (the SDK's own
// default limit).
const maxHeldBody = mcp.DefaultMaxRequestBodyBytes

// HoldBody reads r's body (up to maxHeldBody and one byte more, so the SDK
// still sees a body past its limit as such) and puts the bytes read back as
// r.Body, so the handler after reads the same request. A body that cannot be
// read is answered HTTP 400 and ok is false. MethodNotFound and mcpserver's
// cancel wrapper look into a POST this way before passing it on.
func HoldBody(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxHeldBody+1))
	r.Body.Close()
	if err != nil {
		http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, true
}

// MethodNotFound turns the SDK's HTTP 400 "JSON RPC not handled" for a
// POSTed call (a method the server does not have, on a 2025-11-25 or older
// session) into a JSON-RPC -32601 error response with the call's id (HTTP
// 200), as over stdio; any other HTTP 400 passes unchanged. (go-sdk v1.8.0
// answers so for 2026-07-28 requests itself.) rpa serve --http and the
// gateway's /mcp wrap their handlers with it.
func MethodNotFound(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, ok := HoldBody(w, r)
		if !ok {
			return
		}
		hw := &holdWriter{ResponseWriter: w}
		next.ServeHTTP(hw, r)
		if !hw.held {
			return
		}
		var call struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if bytes.HasPrefix(hw.buf.Bytes(), []byte(notHandled)) && json.Unmarshal(body, &call) == nil && len(call.ID) > 0 && string(call.ID) != "null" {
			raw, _ := json.Marshal(struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   jsonrpc.Error   `json:"error"`
			}{"2.0", call.ID, jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found: " + methodName(call.Method)}})
			w.Header().Del("X-Content-Type-Options")
			w.Header().Set("Content-Type", "application/json")
			w.Header().Del("Content-Length")
			w.WriteHeader(http.StatusOK)
			w.Write(raw)
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		w.Write(hw.buf.Bytes())
	})
}

// methodName is a caller's method name for an error: as it is, or named by
// its length (lang.Echo) when longer than lang.MaxEcho.
func methodName(m string) string {
	if len(m) > lang.MaxEcho {
		return lang.Echo(m)
	}
	return m
}

// holdWriter holds back an HTTP 400 answer (a short text) so that
// MethodNotFound can replace it; everything else passes through.
type holdWriter struct {
	http.ResponseWriter
	held bool
	buf  bytes.Buffer
}

func (h *holdWriter) WriteHeader(code int) {
	if code == http.StatusBadRequest {
		h.held = true
		return
	}
	h.ResponseWriter.WriteHeader(code)
}

func (h *holdWriter) Write(p []byte) (int, error) {
	if h.held {
		return h.buf.Write(p)
	}
	return h.ResponseWriter.Write(p)
}

// Flush passes through (the SDK streams SSE events).
func (h *holdWriter) Flush() {
	if f, ok := h.ResponseWriter.(http.Flusher); ok && !h.held {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (h *holdWriter) Unwrap() http.ResponseWriter { return h.ResponseWriter }
