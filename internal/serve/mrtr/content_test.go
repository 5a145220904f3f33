package mrtr

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestInputRequiredContentArray: the result that pauses a call for an
// input request carries "content":[] (an array in CallToolResult's
// schema), not null.
func TestInputRequiredContentArray(t *testing.T) {
	tb := &Table{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := tb.Start(ctx, "owner", func(ctx context.Context, c *Call) (*mcp.CallToolResult, error) {
		_, err := c.Ask(ctx, &mcp.ElicitParams{Message: "Code please"})
		return nil, err
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if res.RequestState == "" || !strings.Contains(string(b), `"content":[]`) {
		t.Errorf("the paused call's result: %s", b)
	}
}
