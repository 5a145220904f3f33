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

func TestFromRecordingTabs(t *testing.T) {
	r := &Recording{Name: "tabs", StartURL: "http://h/a", MainTab: "M", Steps: []RecordedStep{
		{Kind: "nav", Time: 1, Target: "M", URL: "http://h/a"},
		{Kind: "click", Time: 2, Target: "M", Selectors: []string{"#pop"}, Desc: "link"},
		{Kind: "pagenav", Time: 3, Target: "P", URL: "http://h/popup"},
		{Kind: "click", Time: 4, Target: "P", URL: "http://h/popup", Selectors: []string{"#ok"}, Desc: "button"},
		{Kind: "click", Time: 5, Target: "M", Selectors: []string{"#again"}, Desc: "button"},
		{Kind: "click", Time: 6, Target: "P", Selectors: []string{"#ok2"}, Desc: "button"},
		{Kind: "close", Time: 7, Target: "P"},
		{Kind: "newtab", Time: 8, Target: "N"},
		{Kind: "nav", Time: 9, Target: "N", URL: "http://h/typed"},
		{Kind: "click", Time: 10, Target: "N", Selectors: []string{"#n"}, Desc: "button"},
		{Kind: "close", Time: 11, Target: "Q"}, // a tab the flow never used
	}}
	f, ds := FromRecording(r)
	text := string(format.Flow(f))
	want := `main_tab = url
# the tab the previous step opened
tab "last"
# click button
click "#ok"
# back to the first tab
tab main_tab
# click button
click "#again"
main_tab = url
# back to the tab at http://h/popup
tab "{{base_url}}/popup"
`
	if !strings.Contains(text, want) {
		t.Errorf("got\n%s\nwant it to hold\n%s", text, want)
	}
	for _, w := range []string{"close\n", "close\n# go to http://h/typed\nopen \"{{base_url}}/typed\"\n# click button\nclick \"#n\"\n"} {
		if !strings.Contains(text, w) {
			t.Errorf("flow lacks %q:\n%s", w, text)
		}
	}
	if len(ds) != 1 || !strings.Contains(ds[0].Summary, "a tab opened by hand") {
		t.Errorf("want one warning about the tab opened by hand, got %v", ds)
	}
	if _, lds := lang.Load("tabs.flow", []byte(text)); lds.HasErrors() {
		t.Errorf("lang.Load: %v", lds)
	}
}
