package stdlib

import (
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/lang/actions"
)

func TestUnpack(t *testing.T) {
	c := &Call{Action: actions.Lookup("click"), Args: []any{[]any{"#a", "#b"}},
		Opts: map[string]any{"count": 2.0, "force": true}}
	var sels []string
	button, count, force := "left", 1, false
	if err := c.Unpack("selector", &sels, "button", &button, "count", &count, "force", &force); err != nil {
		t.Fatal(err)
	}
	if len(sels) != 2 || sels[1] != "#b" || button != "left" || count != 2 || !force {
		t.Errorf("got %v %q %d %v", sels, button, count, force)
	}

	// Positional strings take numbers in their plain form; durations parse.
	c = &Call{Action: actions.Lookup("type"), Args: []any{"#q", 3.0}, Opts: map[string]any{"delay": "50ms"}}
	var v string
	var delay time.Duration
	if err := c.Unpack("value", &v, "delay", &delay); err != nil || v != "3" || delay != 50*time.Millisecond {
		t.Errorf("type: %q %v %v", v, delay, err)
	}

	// An absent optional positional leaves the variable alone.
	c = &Call{Action: actions.Lookup("html"), Args: []any{nil}}
	sels = nil
	if err := c.Unpack("selector", &sels); err != nil || sels != nil {
		t.Errorf("html: %v %v", sels, err)
	}

	for _, tc := range []struct {
		action string
		args   []any
		opts   map[string]any
		name   string
		dst    any
		msg    string
	}{
		{"click", []any{"#a"}, map[string]any{"count": "two"}, "count", new(int), `click: count: must be an integer, got a string`},
		{"click", []any{"#a"}, map[string]any{"force": 1}, "force", new(bool), `click: force: must be true or false, got a number`},
		{"click", []any{""}, nil, "selector", new([]string), `click: selector is empty`},
		{"click", []any{nil}, nil, "selector", new([]string), `click: selector must be a selector or a list of selectors, got null`},
		{"fill", []any{"#a", []any{1}}, nil, "value", new(string), `fill: value must be a string, got a list`},
		{"type", []any{"#a", "x"}, map[string]any{"delay": "soon"}, "delay", new(time.Duration), `type: delay: must be a duration, got a string`},
	} {
		c := &Call{Action: actions.Lookup(tc.action), Args: tc.args, Opts: tc.opts}
		err := c.Unpack(tc.name, tc.dst)
		if err == nil || err.Error() != tc.msg || core.KindOf(err) != core.KindExpression {
			t.Errorf("%s %s: got %v (%s), want %q", tc.action, tc.name, err, core.KindOf(err), tc.msg)
		}
	}

	// A name the action does not have is a programming error.
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "no param or option") {
			t.Errorf("recover = %v", r)
		}
	}()
	_ = (&Call{Action: actions.Lookup("click")}).Unpack("colour", new(string))
}
