package mcpserver

import (
	"context"

	"github.com/rpa-dev/rpa/core"
)

// AskFunc asks a person. It returns when answered, declined, or when ctx
// ends (then with ctx.Err() or an Answer of status timeout).
type AskFunc func(ctx context.Context, q core.Question) (core.Answer, error)
