package ui

import (
	"strings"
	"testing"
)

// TestNotifyTextsPlain: the Questions page hands its notification texts to the script as plain
// attribute text. (An attribute named data-on* is JavaScript to html/template, which quoted the
// text: the status then showed "Desktop notifications are on." with its quotes.)
func TestNotifyTextsPlain(t *testing.T) {
	s, ts := newTestServer(t, Options{})
	page := getPath(t, ts.URL, s.Token(), "/questions")
	for _, want := range []string{`data-notify-on="Desktop notifications are on."`, `data-notify-off="This browser does not allow notifications; the page title shows the count."`} {
		if !strings.Contains(page, want) {
			t.Errorf("questions page lacks %s", want)
		}
	}
}
