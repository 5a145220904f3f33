package mcpserver

import (
	"context"

	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/stdlib"
)

// Question is what hitl_prompt (and the `ask` action) asks a person:
// Title, Message, Input ("text", "password" or "number") and Timeout. It
// is interp's Host.Ask question.
type Question = interp.Question

// Answer statuses.
const (
	AnswerAnswered  = stdlib.AnswerAnswered
	AnswerDeclined  = stdlib.AnswerDeclined
	AnswerCancelled = stdlib.AnswerCancelled
	AnswerTimeout   = stdlib.AnswerTimeout
)

// Answer is a person's reply: Status (one of the Answer* constants) and
// Text when answered. It is interp's Host.Ask answer.
type Answer = interp.Answer

// AskFunc asks a person. It returns when answered, declined, or when ctx
// ends (then with ctx.Err() or an Answer of status timeout).
type AskFunc func(ctx context.Context, q Question) (Answer, error)
