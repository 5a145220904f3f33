package hitl

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/core"
)

// ProtocolMultiRoundTrip is the first MCP protocol version on which a
// server may not send requests to the client during a call: elicitation
// and sampling travel as the call's input requests instead (Elicit.Defer).
const ProtocolMultiRoundTrip = "2026-07-28"

// AnswerField is the property of the form an elicitation asks for.
const AnswerField = "answer"

// Elicit is the client channel: the calling MCP client through
// elicitation/create.
type Elicit struct {
	// Session is the calling client's session (the call request's
	// Session); nil makes the channel unavailable.
	Session *mcp.ServerSession
	// Pages serves the one-time loopback pages of URL-mode elicitation
	// (password questions). Nil: password questions skip this channel
	// (over the WebSocket link, whose backend is not on this machine).
	Pages *URLPages
	// Defer, when set, carries the elicitation instead of a request on the
	// session: on sessions at ProtocolMultiRoundTrip or later, where the
	// server may not send it as a request, the call returns it as an input
	// request and Defer waits for the next call's response; for a task,
	// the question becomes the task's input (package tasks). Nil: sent on
	// the session, and sessions at ProtocolMultiRoundTrip or later fall
	// through to the next channel.
	Defer func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error)
}

// Name returns "client".
func (e *Elicit) Name() string { return ChannelClient }

// Ask asks q through the client (see the package doc).
func (e *Elicit) Ask(ctx context.Context, q core.Question) (core.Answer, error) {
	if e == nil || e.Session == nil {
		return core.Answer{}, Unavailable("no MCP client is calling")
	}
	ip := e.Session.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return core.Answer{}, Unavailable("the MCP client did not declare elicitation")
	}
	caps := ip.Capabilities.Elicitation
	send := e.Session.Elicit
	switch {
	case e.Defer != nil:
		send = e.Defer
	case ip.ProtocolVersion >= ProtocolMultiRoundTrip:
		return core.Answer{}, Unavailable("the MCP client is on protocol %s (multi-round-trip) and this call cannot pause", ip.ProtocolVersion)
	}
	if q.Input == "password" {
		return e.askURL(ctx, q, caps, send)
	}
	if caps.Form == nil && caps.URL != nil {
		return core.Answer{}, Unavailable("the MCP client declared only URL-mode elicitation")
	}
	res, err := send(ctx, FormParams(q))
	if err != nil {
		return core.Answer{}, sendError(ctx, err)
	}
	switch res.Action {
	case "accept":
	case "decline":
		return core.Answer{Status: core.AnswerDeclined}, nil
	default:
		return core.Answer{Status: core.AnswerCancelled}, nil
	}
	text, err := answerText(res.Content[AnswerField])
	if err != nil {
		return core.Answer{}, err
	}
	return core.Answer{Status: core.AnswerAnswered, Text: text}, nil
}

// sendError maps a failed elicitation: the end of ctx stays itself, any
// other failure (the link's -32601 "try the next channel", a client that
// could not show the form) falls through to the next channel.
func sendError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) && je.Code == jsonrpc.CodeMethodNotFound {
		return Unavailable("the MCP client cannot elicit (%s)", je.Message)
	}
	return Unavailable("elicitation failed: %v", err)
}

// FormParams is the form-mode elicitation of a text or number question:
// one required property "answer" (a string, or a number for input
// "number"), titled by the question. Never used for passwords.
func FormParams(q core.Question) *mcp.ElicitParams {
	typ := "string"
	if q.Input == "number" {
		typ = "number"
	}
	prop := map[string]any{"type": typ, "title": q.Title}
	if q.Message != "" {
		prop["description"] = q.Message
	}
	return &mcp.ElicitParams{
		Mode:    "form",
		Message: message(q),
		RequestedSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{AnswerField: prop},
			"required":   []string{AnswerField},
		},
	}
}

func message(q core.Question) string {
	if q.Message == "" {
		return q.Title
	}
	return q.Title + "\n\n" + q.Message
}

// answerText turns an accepted form value into the answer text.
func answerText(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case nil:
		return "", errors.New("the MCP client accepted the question without an answer")
	}
	return "", fmt.Errorf("the MCP client answered a %T, want a string or number", v)
}

// askURL asks a password question through URL-mode elicitation: the client
// shows the person a one-time page on loopback where the answer is typed;
// it never passes through the client.
func (e *Elicit) askURL(ctx context.Context, q core.Question, caps *mcp.ElicitationCapabilities,
	send func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error)) (core.Answer, error) {
	if e.Pages == nil {
		return core.Answer{}, Unavailable("a password is never asked through form elicitation, and this link has no URL mode")
	}
	if caps.URL == nil {
		return core.Answer{}, Unavailable("a password is never asked through form elicitation, and the MCP client did not declare URL mode")
	}
	pg, err := e.Pages.Open(q)
	if err != nil {
		return core.Answer{}, Unavailable("cannot serve the answer page: %v", err)
	}
	defer pg.Close()
	type sent struct {
		res *mcp.ElicitResult
		err error
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	ch := make(chan sent, 1)
	go func() {
		res, err := send(sctx, &mcp.ElicitParams{Mode: "url", Message: message(q) + "\n\nOpen the page to answer (the answer stays on this computer).",
			URL: pg.URL, ElicitationID: pg.ID})
		ch <- sent{res, err}
	}()
	for {
		select {
		case a := <-pg.Answer:
			if e.Session != nil && e.Defer == nil {
				_ = e.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: pg.ID})
			}
			return a, nil
		case s := <-ch:
			ch = nil // the client's reply only says whether the person went to the page
			if s.err != nil {
				return core.Answer{}, sendError(ctx, s.err)
			}
			switch strings.ToLower(s.res.Action) {
			case "decline":
				return core.Answer{Status: core.AnswerDeclined}, nil
			case "cancel":
				return core.Answer{Status: core.AnswerCancelled}, nil
			}
		case <-ctx.Done():
			return core.Answer{}, ctx.Err()
		}
	}
}
