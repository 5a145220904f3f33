package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/lang"
)

// TestCallerTextNotEchoed: a caller's text longer than lang.MaxEcho that
// names a profile, a run, a tool, an argument, a resource or a prompt is
// named by its length in the error (message and data) and in the server's
// "call refused" log line, never sent back whole (a 100 kB tool name was
// answered twice, in message and data.tool); a short one is still quoted.
func TestCallerTextNotEchoed(t *testing.T) {
	st, err := runs.Open(t.TempDir(), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, logs := newServer(t, Options{FlowsDir: copyFlows(t, "hit.flow"), NoWatch: true, Runs: st})
	c := connectRaw(t, s)
	long := strings.Repeat("x", 5000)
	hit := func(extra map[string]any) map[string]any {
		a := map[string]any{"base_url": "http://127.0.0.1:1", "n": 1, "p": "a"}
		for k, v := range extra {
			a[k] = v
		}
		return map[string]any{"name": "workflow_hit", "arguments": a}
	}
	for _, c2 := range []struct {
		name   string
		params map[string]any
		code   int64
		text   string // the caller's text
		short  string // what the error says of a short one
	}{
		{"profileId", hit(map[string]any{"profileId": long}), -32602, long, ""},
		{"short profileId", hit(map[string]any{"profileId": "a b"}), -32602, "", `"a b"`},
		{"resumeRunId", hit(map[string]any{"resumeRunId": long}), -32602, long, ""},
		{"short resumeRunId", hit(map[string]any{"resumeRunId": "20261201T125300123-ffff"}), -32602, "", `"20261201T125300123-ffff"`},
		{"unknown argument", hit(map[string]any{long: 1}), -32602, long, ""},
		{"unknown tool", map[string]any{"name": strings.Repeat("t", 100_000), "arguments": map[string]any{}}, 0, strings.Repeat("t", 100_000), ""},
		{"short unknown tool", map[string]any{"name": "nope", "arguments": map[string]any{}}, 0, "", `"nope"`},
	} {
		r := c.Call("tools/call", c2.params)
		code, msg := wireCode(t, r)
		raw, _ := json.Marshal(r.Error)
		if r.Error == nil || (c2.code != 0 && code != c2.code) {
			t.Errorf("%s: code %d %.300s", c2.name, code, msg)
			continue
		}
		if c2.text != "" {
			if strings.Contains(string(raw), c2.text[:lang.MaxEcho+1]) || !strings.Contains(msg, "too long") || len(raw) > 2000 {
				t.Errorf("%s: the caller's text came back (%d bytes): %.400s", c2.name, len(raw), raw)
			}
		} else if !strings.Contains(msg, c2.short) {
			t.Errorf("%s: %q does not quote %s", c2.name, msg, c2.short)
		}
	}
	for _, m := range []struct {
		method string
		params map[string]any
	}{
		{"resources/read", map[string]any{"uri": "rpa://runs/" + long}},
		{"prompts/get", map[string]any{"name": long}},
	} {
		r := c.Call(m.method, m.params)
		raw, _ := json.Marshal(r.Error)
		if _, msg := wireCode(t, r); r.Error == nil || strings.Contains(string(raw), long[:lang.MaxEcho+1]) || !strings.Contains(msg, "too long to show") {
			t.Errorf("%s: the caller's text came back (%d bytes): %.300s", m.method, len(raw), raw)
		}
	}
	if l := logs.String(); strings.Contains(l, long[:lang.MaxEcho+1]) || strings.Contains(l, strings.Repeat("t", lang.MaxEcho+1)) {
		t.Errorf("the log holds a caller's long text (%d bytes of log)", len(l))
	}
}
