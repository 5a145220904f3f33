package importer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang/diag"
)

// TestChromeIllTyped: a Chrome Recorder member of the wrong kind is an
// error naming the step and the member, at the member's line; it never
// becomes 0, false or "" silently.
func TestChromeIllTyped(t *testing.T) {
	rec := func(steps ...string) string {
		return `{"title": "t", "steps": [
{"type": "navigate", "url": "https://example.com/"},
` + strings.Join(steps, ",\n") + `
]}`
	}
	for _, c := range []struct {
		name, src, want string
	}{
		{"viewport width", rec(`{"type": "setViewport", "width": "abc", "height": 600}`), `step 2 (setViewport): "width" must be a number, found string "abc"`},
		{"viewport height", rec(`{"type": "setViewport", "width": 800, "height": null}`), `step 2 (setViewport): "height" must be a number, found null`},
		{"viewport scale", rec(`{"type": "setViewport", "width": 800, "height": 600, "deviceScaleFactor": "2"}`), `"deviceScaleFactor" must be a number, found string "2"`},
		{"viewport mobile", rec(`{"type": "setViewport", "width": 800, "height": 600, "isMobile": "true"}`), `step 2 (setViewport): "isMobile" must be a bool, found string "true"`},
		{"viewport touch", rec(`{"type": "setViewport", "width": 800, "height": 600, "hasTouch": 1}`), `"hasTouch" must be a bool, found number 1`},
		{"viewport landscape", rec(`{"type": "setViewport", "width": 800, "height": 600, "isLandscape": "no"}`), `"isLandscape" must be a bool, found string "no"`},
		{"number out of range", rec(`{"type": "setViewport", "width": 1e400, "height": 600}`), `step 2 (setViewport): "width": number 1e400 is out of range`},
		{"scroll x", rec(`{"type": "scroll", "x": "10px", "y": 0}`), `step 2 (scroll): "x" must be a number, found string "10px"`},
		{"scroll y", rec(`{"type": "scroll", "x": 0, "y": [1]}`), `step 2 (scroll): "y" must be a number, found an array`},
		{"click offsetX", rec(`{"type": "click", "selectors": [["#a"]], "offsetX": "5", "offsetY": 2}`), `step 2 (click): "offsetX" must be a number, found string "5"`},
		{"click offsetY", rec(`{"type": "click", "selectors": [["#a"]], "offsetX": 5, "offsetY": true}`), `step 2 (click): "offsetY" must be a number, found bool true`},
		{"click duration", rec(`{"type": "click", "selectors": [["#a"]], "duration": "100ms"}`), `"duration" must be a number, found string "100ms"`},
		{"click button", rec(`{"type": "click", "selectors": [["#a"]], "button": 2}`), `step 2 (click): "button" must be a string, found number 2`},
		{"step timeout", rec(`{"type": "click", "selectors": [["#a"]], "timeout": "5000"}`), `step 2 (click): "timeout" must be a number, found string "5000"`},
		{"target", rec(`{"type": "click", "selectors": [["#a"]], "target": 0}`), `step 2 (click): "target" must be a string, found number 0`},
		{"navigate url", rec(`{"type": "navigate", "url": 123}`), `step 2 (navigate): "url" must be a string, found number 123`},
		{"change value", rec(`{"type": "change", "selectors": [["input#q"]], "value": {"v": 1}}`), `step 2 (change): "value" must be a string, found an object`},
		{"key", rec(`{"type": "keyDown", "key": 13}`), `step 2 (keyDown): "key" must be a string, found number 13`},
		{"wait count", rec(`{"type": "waitForElement", "selectors": [["#a"]], "count": "2"}`), `step 2 (waitForElement): "count" must be a number, found string "2"`},
		{"wait visible", rec(`{"type": "waitForElement", "selectors": [["#a"]], "visible": "false"}`), `step 2 (waitForElement): "visible" must be a bool, found string "false"`},
		{"wait operator", rec(`{"type": "waitForElement", "selectors": [["#a"]], "operator": 1}`), `"operator" must be a string, found number 1`},
		{"type", rec(`{"type": 3}`), `step 2: "type" must be a string, found number 3`},
		{"frame index", rec(`{"type": "click", "selectors": [["#a"]], "frame": ["0"]}`), `step 2 (click): frame index 1 must be a whole number of 0 or more, found string "0"`},
		{"frame fraction", rec(`{"type": "click", "selectors": [["#a"]], "frame": [0, 1.5]}`), `frame index 2 must be a whole number of 0 or more, found number 1.5`},
		{"asserted url", rec(`{"type": "click", "selectors": [["#a"]], "assertedEvents": [{"type": "navigation", "url": 5}]}`), `step 2 (click), asserted event 1: "url" must be a string, found number 5`},
		{"asserted event", rec(`{"type": "click", "selectors": [["#a"]], "assertedEvents": ["navigation"]}`), `step 2 (click), asserted event 1: expected an object, found string "navigation"`},
		{"selector part", rec(`{"type": "click", "selectors": [["#a", 7]]}`), `step 2 (click): selector 1, part 2 must be a string, found number 7`},
		{"selector", rec(`{"type": "click", "selectors": [["#a"], 7]}`), `step 2 (click): selector 2 must be a string or a list of strings, found number 7`},
		{"recording timeout", `{"title": "t", "timeout": "5s", "steps": []}`, `recording: "timeout" must be a number, found string "5s"`},
		{"recording title", `{"title": 5, "steps": []}`, `recording: "title" must be a string, found number 5`},
	} {
		_, ds := Import("rec.json", []byte(c.src), Options{Format: FormatChrome})
		var found *diag.Diagnostic
		for i, d := range ds {
			if strings.Contains(d.Summary, c.want) {
				found = ds[i]
			}
		}
		if found == nil {
			t.Errorf("%s: no diagnostic containing %q in %v", c.name, c.want, ds)
			continue
		}
		if found.Severity != diag.Error {
			t.Errorf("%s: %s is not an error", c.name, found.OneLine())
		}
		// at the step's line (the recording's for its own members), on
		// the member when it is one
		want := 3
		if !strings.HasPrefix(c.src, "{\"title\": \"t\", \"steps\": [\n") {
			want = 1
		}
		if found.Subject.Start.Line != want {
			t.Errorf("%s: %s is not on line %d", c.name, found.OneLine(), want)
		} else if m := memberOf(c.want); m != "" {
			line := strings.Split(c.src, "\n")[want-1]
			if at := found.Subject.Start.Col - 1; at >= len(line) || !strings.HasPrefix(line[at:], m) {
				t.Errorf("%s: %s is not at %s", c.name, found.OneLine(), m)
			}
		}
	}
}

// memberOf is the quoted member name a message starts its complaint with
// (`"width" must be ...`), "" when none.
func memberOf(msg string) string {
	i := strings.Index(msg, `: "`)
	if i < 0 {
		return ""
	}
	j := strings.Index(msg[i+3:], `"`)
	return msg[i+2 : i+3+j+1]
}

// TestSideIllTyped: a .side member of the wrong kind is an error naming
// the member and where it is (test, command), at the member; "target": 123
// is not read as "" (which made `open` say `"" is not an absolute URL`).
func TestSideIllTyped(t *testing.T) {
	side := func(cmd string) string {
		return `{"id": "p", "version": "2.0", "name": "p", "url": "http://h", "tests": [{"id": "t", "name": "Login", "commands": [
{"id": "1", "command": "open", "target": "/", "value": ""},
` + cmd + `
]}]}`
	}
	for _, c := range []struct {
		name, src, want string
		line            int
	}{
		{"target", side(`{"id": "2", "command": "open", "target": 123, "value": ""}`), `test "Login", command 2 (open): "target" must be a string, found number 123`, 3},
		{"value", side(`{"id": "2", "command": "type", "target": "id=q", "value": 42}`), `test "Login", command 2 (type): "value" must be a string, found number 42`, 3},
		{"command", side(`{"id": "2", "command": ["open"], "target": "/", "value": ""}`), `test "Login", command 2: "command" must be a string, found an array`, 3},
		{"comment", side(`{"id": "2", "command": "click", "target": "id=a", "value": "", "comment": false}`), `command 2 (click): "comment" must be a string, found bool false`, 3},
		{"opensWindow", side(`{"id": "2", "command": "click", "target": "id=a", "value": "", "opensWindow": "true", "windowHandleName": "w"}`), `command 2 (click): "opensWindow" must be a bool, found string "true"`, 3},
		{"windowHandleName", side(`{"id": "2", "command": "click", "target": "id=a", "value": "", "opensWindow": true, "windowHandleName": 7}`), `command 2 (click): "windowHandleName" must be a string, found number 7`, 3},
		{"windowTimeout", side(`{"id": "2", "command": "click", "target": "id=a", "value": "", "windowTimeout": "2000"}`), `"windowTimeout" must be a number, found string "2000"`, 3},
		{"targets", side(`{"id": "2", "command": "click", "target": "id=a", "value": "", "targets": "id=a"}`), `command 2 (click): "targets" must be an array, found string "id=a"`, 3},
		{"targets entry", side(`{"id": "2", "command": "click", "target": "id=a", "value": "", "targets": [["id=a", "id"], ["css=#a", 1]]}`), `test "Login", command 2 (click): targets[1] must be a [locator, kind] list of strings, found an array`, 3},
		{"command object", side(`"click"`), `test "Login", command 2: expected an object, found string "click"`, 3},
		{"project url", `{"version": "2.0", "url": 80, "tests": []}`, `project: "url" must be a string, found number 80`, 1},
		{"project tests", `{"version": "2.0", "url": "http://h", "tests": {}}`, `project: "tests" must be an array, found an object`, 1},
		{"test name", `{"version": "2.0", "url": "http://h", "tests": [{"name": 1, "commands": []}]}`, `test 1: "name" must be a string, found number 1`, 1},
		{"test commands", `{"version": "2.0", "url": "http://h", "tests": [{"name": "a", "commands": {}}]}`, `test 1: "commands" must be an array, found an object`, 1},
		{"test object", `{"version": "2.0", "url": "http://h", "tests": ["a"]}`, `test 1: expected an object, found string "a"`, 1},
	} {
		_, ds := Import("p.side", []byte(c.src), Options{})
		var found *diag.Diagnostic
		for _, d := range ds {
			if strings.Contains(d.Summary, c.want) {
				found = d
			}
			if strings.Contains(d.Summary, "absolute URL") {
				t.Errorf("%s: %s", c.name, d.OneLine())
			}
		}
		if found == nil {
			t.Errorf("%s: no diagnostic containing %q in %v", c.name, c.want, ds)
			continue
		}
		if found.Severity != diag.Error {
			t.Errorf("%s: %s is not an error", c.name, found.OneLine())
		}
		if found.Subject.Start.Line != c.line {
			t.Errorf("%s: %s is not on line %d", c.name, found.OneLine(), c.line)
		} else if m := memberOf(c.want); m != "" {
			line := strings.Split(c.src, "\n")[c.line-1]
			if at := found.Subject.Start.Col - 1; at >= len(line) || !strings.HasPrefix(line[at:], m) {
				t.Errorf("%s: %s is not at %s", c.name, found.OneLine(), m)
			}
		}
	}
}

// TestMaxInput: an input over MaxInput is one error saying so (it is not
// parsed); one of MaxInput bytes is read.
func TestMaxInput(t *testing.T) {
	src := bytes.Repeat([]byte(" "), MaxInput+1)
	copy(src, `{"title": "t", "steps": []}`)
	_, ds := Import("big.json", src, Options{})
	if len(ds) != 1 || !strings.Contains(ds[0].Summary, "the input is over 32 MB") || ds[0].Subject.Start.Line != 1 {
		t.Errorf("diagnostics %v", ds)
	}
	if _, ds := Import("big.json", src[:MaxInput], Options{}); ds.HasErrors() {
		t.Errorf("an input of MaxInput bytes: %v", ds)
	}
}

// TestJSONFlowIllTyped: a JSON flow member of the wrong kind is an error
// naming the step and the member ("url": 123 was "attrs.url is
// required", "description": 5 was dropped, "seconds": "2" was "must be a
// positive number").
func TestJSONFlowIllTyped(t *testing.T) {
	flow := func(step string) string {
		return `{"name": "f", "steps": [
{"type": "navigate", "attrs": {"url": "https://example.com/"}},
` + step + `
]}`
	}
	for _, c := range []struct {
		name, src, want string
		line            int
	}{
		{"url", flow(`{"type": "navigate", "attrs": {"url": 123}}`), `step 2 (navigate), attrs: "url" must be a string, found number 123`, 3},
		{"value", flow(`{"type": "input", "attrs": {"selector": "#q", "value": 5}}`), `step 2 (input), attrs: "value" must be a string, found number 5`, 3},
		{"description", flow(`{"type": "click", "attrs": {"selector": "#a", "description": 5}}`), `step 2 (click), attrs: "description" must be a string, found number 5`, 3},
		{"seconds", flow(`{"type": "wait", "attrs": {"seconds": "2"}}`), `step 2 (wait), attrs: "seconds" must be a number, found string "2"`, 3},
		{"type", flow(`{"type": 1, "attrs": {}}`), `step 2: "type" must be a string, found number 1`, 3},
		{"attrs", flow(`{"type": "click", "attrs": ["#a"]}`), `step 2 (click): "attrs" must be an object, found an array`, 3},
		{"body", flow(`{"type": "loop", "attrs": {"items": "xs", "var": "x"}, "body": {}}`), `step 2 (loop): "body" must be an array, found an object`, 3},
		{"name", `{"name": 7, "steps": [{"type": "click", "attrs": {"selector": "#a"}}]}`, `flow: "name" must be a string, found number 7`, 1},
	} {
		_, ds := Import("f.json", []byte(c.src), Options{Format: FormatJSONFlow})
		var found *diag.Diagnostic
		for _, d := range ds {
			if strings.Contains(d.Summary, c.want) {
				found = d
			}
		}
		if found == nil {
			t.Errorf("%s: no diagnostic containing %q in %v", c.name, c.want, ds)
			continue
		}
		if found.Severity != diag.Error || found.Subject.Start.Line != c.line {
			t.Errorf("%s: %s is not an error on line %d", c.name, found.OneLine(), c.line)
		}
	}
}
