package hitl

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
)

// TestRace: the first channel to answer wins and the other's question is
// withdrawn; a channel that cannot ask leaves it to the other; when neither
// can, the error names both.
func TestRace(t *testing.T) {
	withdrawn := make(chan struct{})
	slow := Func{N: ChannelClient, F: func(ctx context.Context, q core.Question) (core.Answer, error) {
		<-ctx.Done()
		close(withdrawn)
		return core.Answer{}, ctx.Err()
	}}
	quick := Func{N: "console", F: func(context.Context, core.Question) (core.Answer, error) {
		return core.Answer{Status: core.AnswerAnswered, Text: "from the console"}, nil
	}}
	none := func(why string) Channel {
		return Func{N: why, F: func(context.Context, core.Question) (core.Answer, error) {
			return core.Answer{}, Unavailable("%s", why)
		}}
	}
	r := Race(slow, quick)
	if r.Name() != ChannelClient {
		t.Errorf("name %q", r.Name())
	}
	ans, err := r.Ask(context.Background(), core.Question{Title: "Code?"})
	if err != nil || ans.Text != "from the console" {
		t.Fatalf("%+v %v", ans, err)
	}
	select {
	case <-withdrawn:
	case <-time.After(10 * time.Second): // only a hang
		t.Fatal("the slower channel's question was not withdrawn")
	}
	if ans, err := Race(none("no console"), quick).Ask(context.Background(), core.Question{}); err != nil || ans.Text != "from the console" {
		t.Errorf("one unavailable: %+v %v", ans, err)
	}
	_, err = Race(none("no client"), none("no console")).Ask(context.Background(), core.Question{})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no client") || !strings.Contains(err.Error(), "no console") {
		t.Errorf("both unavailable: %v", err)
	}
}
