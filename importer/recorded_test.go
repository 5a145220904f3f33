package importer

import (
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/format"
)

func TestFromRecording(t *testing.T) {
	r := &Recording{Name: "rec", StartURL: "https://app.example/login", MainTab: "T1", Steps: []RecordedStep{
		{Kind: "nav", Time: 1, Target: "T1", URL: "https://app.example/login"},
		{Kind: "fill", Time: 2, Target: "T1", Selectors: []string{"input[name=\"auth[password]\"]"}, Secret: true, Field: Field{Type: "password", Name: "auth[password]"}, Desc: "input"},
		{Kind: "fill", Time: 3, Target: "T1", Selectors: []string{"#pin"}, Secret: true, Field: Field{Type: "password", ID: "1pin"}, Desc: "input"},
		{Kind: "fill", Time: 4, Target: "T1", Selectors: []string{"#q"}, Value: "kWh", Param: "query", Field: Field{Name: "q"}, Desc: "textbox"},
		{Kind: "click", Time: 5, Target: "T1", Selectors: []string{"#go"}, Desc: `button "Go"`},
		{Kind: "click", Time: 6, Target: "T1", Selectors: []string{"#go"}, Desc: `button "Go"`},
		{Kind: "dblclick", Time: 7, Target: "T1", Selectors: []string{"#go"}, Desc: `button "Go"`},
		{Kind: "pagenav", Time: 8, Target: "T1", URL: "https://app.example/done?token=abc#x"},
		{Kind: "upload", Time: 9, Target: "T1", Selectors: []string{"#file"}, Value: "a.pdf", Field: Field{Name: "doc"}, Desc: "input"},
		{Kind: "click", Time: 10, Target: "T1", Frames: [][]string{{"#outer"}, {"#inner", "iframe"}}, Selectors: []string{"#b"}, Desc: "button"},
		{Kind: "nav", Time: 11, Target: "T1", URL: "https://other.example/x"},
	}}
	f, ds := FromRecording(r)
	if len(ds) != 0 {
		t.Errorf("diagnostics: %v", ds)
	}
	text := string(format.Flow(f))
	for _, w := range []string{
		`param auth_password: secret "Password for the auth[password] field"`,
		`param p_1pin: secret`,
		`param query: string = "kWh"`,
		`param doc_file: string = "a.pdf"`,
		`fill "#q" query`,
		"click \"#go\" count: 2\nwait url: \"{{base_url}}/done\"\n",
		"frame \"#outer\" {\n    frame [\"#inner\", \"iframe\"] {\n        # click button\n        click \"#b\"\n    }\n}\n",
		`open "https://other.example/x"`,
	} {
		if !strings.Contains(text, w) {
			t.Errorf("flow lacks %q:\n%s", w, text)
		}
	}
	if strings.Count(text, `click "#go"`) != 1 {
		t.Errorf("a double click is one step:\n%s", text)
	}
	if _, lds := lang.Load("rec.flow", []byte(text)); lds.HasErrors() {
		t.Errorf("lang.Load: %v\n%s", lds, text)
	}
}
