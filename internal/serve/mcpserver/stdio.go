package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/serve/mrtr"
	"github.com/rpa-dev/rpa/lang"
)

// DefaultStdioDrain is how long a stdio session whose input ended keeps
// running to deliver the replies of the calls still in flight.
const DefaultStdioDrain = 30 * time.Second

// DefaultMaxLine bounds one inbound line of the stdio transport (16 MiB,
// the SDK's own limit).
const DefaultMaxLine = 16 << 20

// StdioTransport is the newline-delimited JSON-RPC transport of `rpa serve
// --stdio`. Unlike the SDK's mcp.StdioTransport, a line that is not JSON is
// answered with JSON-RPC -32700 (parse error, id null) and a line that is
// JSON but not a JSON-RPC message (or a batch, which rpa does not take)
// with -32600 (invalid request, with the line's id when it has one), and
// the session goes on. When the input ends, the session waits (at most
// Drain) until every call it has read is answered, so replies are not lost
// to an early exit. A call the client cancelled (notifications/cancelled)
// gets no answer at all: the MCP specification says receivers SHOULD NOT
// send a response for a cancelled request, and the SDK would send one.
type StdioTransport struct {
	// In and Out default to os.Stdin and os.Stdout.
	In  io.Reader
	Out io.Writer
	// MaxLine bounds one inbound line in bytes (DefaultMaxLine when 0); a
	// longer line is answered -32700 and skipped.
	MaxLine int
	// Drain bounds the wait for replies after the input ends
	// (DefaultStdioDrain when 0).
	Drain time.Duration
	// Logger receives one line per refused input line (never its content).
	// Nil: discard.
	Logger *slog.Logger
}

// Connect implements mcp.Transport: it starts reading In.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{
		in: t.In, out: t.Out, maxLine: t.MaxLine, drain: t.Drain, log: t.Logger,
		incoming: make(chan jsonrpc.Message),
		eof:      make(chan error, 1),
		closed:   make(chan struct{}),
		pending:  map[jsonrpc.ID]bool{},
		cancels:  map[jsonrpc.ID]bool{},
		idle:     make(chan struct{}),
	}
	if c.in == nil {
		c.in = os.Stdin
	}
	if c.out == nil {
		c.out = os.Stdout
	}
	if c.maxLine <= 0 {
		c.maxLine = DefaultMaxLine
	}
	if c.drain <= 0 {
		c.drain = DefaultStdioDrain
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	close(c.idle) // nothing pending yet
	go c.readLoop()
	return c, nil
}

type stdioConn struct {
	in      io.Reader
	out     io.Writer
	maxLine int
	drain   time.Duration
	log     *slog.Logger

	incoming chan jsonrpc.Message // decoded messages, from readLoop
	eof      chan error           // the input's end (io.EOF or a read error)
	closed   chan struct{}
	once     sync.Once

	writeMu sync.Mutex

	mu      sync.Mutex
	pending map[jsonrpc.ID]bool // calls read and not yet answered
	cancels map[jsonrpc.ID]bool // pending calls the client cancelled: their answer is dropped
	idle    chan struct{}       // closed while pending is empty
}

// readLoop reads lines, refuses the undecodable ones itself and hands the
// rest to Read.
func (c *stdioConn) readLoop() {
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, tooLong, err := readLine(r, c.maxLine)
		if tooLong {
			c.refuse(jsonrpc.CodeParseError, fmt.Sprintf("Parse error: line longer than %d bytes", c.maxLine), nil)
		} else if len(bytes.TrimSpace(line)) > 0 {
			if msg := c.decode(line); msg != nil {
				select {
				case c.incoming <- msg:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			c.eof <- err
			return
		}
	}
}

// readLine returns the next line without its newline; a line over max
// bytes is consumed and reported as tooLong.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+2 { // +2: "\r\n"
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, tooLong, err
	}
}

// decode returns the message of a line (not blank), or answers the line
// itself and returns nil. A line that is not JSON is answered with the
// position of the first byte that is not (counted from the line's start,
// its newline left out).
func (c *stdioConn) decode(line []byte) jsonrpc.Message {
	if !json.Valid(line) {
		c.refuse(jsonrpc.CodeParseError, "Parse error: the line is "+mrtr.NotJSON(bytes.TrimRight(line, "\r\n")), nil)
		return nil
	}
	line = bytes.TrimSpace(line)
	if line[0] == '[' {
		c.refuse(jsonrpc.CodeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported; send one message per line", nil)
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if req, ok := msg.(*jsonrpc.Request); err == nil && ok && len(req.Method) > lang.MaxEcho {
		// No method is that long; the SDK's answer would quote it whole.
		if req.IsCall() {
			id, _ := json.Marshal(req.ID.Raw())
			c.refuse(jsonrpc.CodeMethodNotFound, "Method not found: "+lang.Echo(req.Method), id)
		}
		return nil
	}
	if req, ok := msg.(*jsonrpc.Request); err == nil && ok {
		// Params the SDK cannot decode: its answer would quote them whole.
		if e := mrtr.ParamsError(req); e != nil {
			if req.IsCall() {
				id, _ := json.Marshal(req.ID.Raw())
				c.refuseErr(e, id)
			}
			return nil
		}
	}
	if err == nil {
		return msg
	}
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(line, &probe)
	id := json.RawMessage(nil)
	if len(probe.ID) > 0 && (probe.ID[0] == '"' || probe.ID[0] == '-' || (probe.ID[0] >= '0' && probe.ID[0] <= '9')) {
		id = probe.ID
	}
	c.refuse(jsonrpc.CodeInvalidRequest, "Invalid Request: "+mrtr.MessageProblem(line, err), id)
	return nil
}

// refuse writes a JSON-RPC error response for an input line (id null
// unless given).
func (c *stdioConn) refuse(code int64, msg string, id json.RawMessage) {
	c.refuseErr(&jsonrpc.Error{Code: code, Message: msg}, id)
}

// refuseErr is refuse with the whole error (data too).
func (c *stdioConn) refuseErr(e *jsonrpc.Error, id json.RawMessage) {
	c.log.Warn("stdio: refused an input line", "code", e.Code, "error", e.Message)
	if id == nil {
		id = json.RawMessage("null")
	}
	raw, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, e})
	if err != nil {
		return
	}
	_ = c.writeLine(raw)
}

func (c *stdioConn) writeLine(raw []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(raw, '\n'))
	return err
}

// Read implements mcp.Connection. After the input ends it returns io.EOF
// (or the read error) once every call read so far is answered, or Drain
// has passed.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case msg := <-c.incoming:
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.mu.Lock()
			if len(c.pending) == 0 {
				c.idle = make(chan struct{})
			}
			c.pending[req.ID] = true
			c.mu.Unlock()
		} else if ok && req.Method == "notifications/cancelled" {
			if id, ok := CancelledID(req.Params); ok {
				c.mu.Lock()
				if c.pending[id] {
					c.cancels[id] = true
				}
				c.mu.Unlock()
			}
		}
		return msg, nil
	case err := <-c.eof:
		c.mu.Lock()
		idle := c.idle
		c.mu.Unlock()
		timer := time.NewTimer(c.drain)
		defer timer.Stop()
		select {
		case <-idle:
		case <-timer.C:
			c.log.Warn("stdio: input ended; gave up waiting for calls in flight", "after", c.drain.String())
		case <-ctx.Done():
		case <-c.closed:
		}
		return nil, err
	}
}

// Write implements mcp.Connection: one message per line.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-c.closed:
		return errors.New("stdio connection closed")
	default:
	}
	if r, ok := msg.(*jsonrpc.Response); ok {
		msg = WithErrorCode(r)
	}
	raw, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	resp, isResp := msg.(*jsonrpc.Response)
	drop := false
	if isResp {
		c.mu.Lock()
		drop = c.cancels[resp.ID]
		delete(c.cancels, resp.ID)
		c.mu.Unlock()
	}
	if !drop {
		err = c.writeLine(raw)
	}
	if isResp {
		c.mu.Lock()
		if c.pending[resp.ID] {
			delete(c.pending, resp.ID)
			if len(c.pending) == 0 {
				close(c.idle)
			}
		}
		c.mu.Unlock()
	}
	return err
}

// WithErrorCode returns r, or a copy of it whose error gets a JSON-RPC
// code when it has none: the SDK answers a request other than initialize
// and ping sent before initialize with a plain Go error, which goes out as
// code 0, a code JSON-RPC 2.0 (section 5.1) does not define. That case is
// -32600 Invalid Request (the request is not valid before the session is
// initialized: MCP's lifecycle allows only pings until then); another
// codeless error is -32603 Internal error. The message is kept.
func WithErrorCode(r *jsonrpc.Response) *jsonrpc.Response {
	if r == nil || r.Error == nil {
		return r
	}
	var we *jsonrpc.Error
	if errors.As(r.Error, &we) && we.Code != 0 {
		return r
	}
	code := int64(jsonrpc.CodeInternalError)
	if strings.Contains(r.Error.Error(), "invalid during session initialization") {
		code = jsonrpc.CodeInvalidRequest
	}
	c := *r
	c.Error = &jsonrpc.Error{Code: code, Message: r.Error.Error()}
	if we != nil {
		c.Error = &jsonrpc.Error{Code: code, Message: we.Message, Data: we.Data}
	}
	return &c
}

// CancelledID returns the request id a notifications/cancelled names
// (params.requestId, a string or an integer).
func CancelledID(params json.RawMessage) (jsonrpc.ID, bool) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	return id, err == nil && id.IsValid()
}

// Close implements mcp.Connection. It does not close In or Out (the
// process's stdin and stdout).
func (c *stdioConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements mcp.Connection: stdio sessions have no id.
func (c *stdioConn) SessionID() string { return "" }
