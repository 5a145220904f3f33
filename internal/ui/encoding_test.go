package ui

import (
	"bytes"
	"html"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gbkFlow is a flow saved in GBK: its description and log text are Chinese in GBK bytes
// ("查询电费" = B2E9 D1AF B5E7 B7D1), not UTF-8.
var gbkFlow = []byte("flow gbk \"\xb2\xe9\xd1\xaf\xb5\xe7\xb7\xd1\"\n\nlog \"\xb2\xe9\xd1\xaf\"\n")

// TestEditorRefusesNonUTF8: a flow file that is not UTF-8 (GBK, or holding NUL bytes) is never
// written by the editor or the publish dialog: /api/save and /api/publish refuse it (422, the
// message saying how to convert it), even with the right hash, and the bytes stay as they were.
func TestEditorRefusesNonUTF8(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{"gbk.flow": gbkFlow, "nul.flow": []byte("flow nul \"has a NUL\"\n\nlog \"a\x00b\"\n")}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, ts := newTestServer(t, Options{FlowsDir: dir})
	for name, src := range files {
		// What the browser sends back for the text it was shown (bytes replaced by U+FFFD).
		text := strings.ToValidUTF8(string(src), "\uFFFD")
		code, v := api(t, ts.URL, s.Token(), "/api/save", map[string]any{"file": name, "text": text, "hash": hashOf(src)})
		msg, _ := v["error"].(string)
		if code != 422 || !strings.Contains(msg, "is not UTF-8") || !strings.Contains(msg, "iconv -f GB18030 -t UTF-8 "+name) {
			t.Errorf("save %s: %d %v", name, code, v)
		}
		code, v = api(t, ts.URL, s.Token(), "/api/publish", map[string]any{"file": name, "hash": hashOf(src), "name": strings.TrimSuffix(name, ".flow"), "description": "x"})
		if msg, _ := v["error"].(string); code != 422 || !strings.Contains(msg, "is not UTF-8") {
			t.Errorf("publish %s: %d %v", name, code, v)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, name)); !bytes.Equal(got, src) {
			t.Errorf("%s was rewritten:\n% x\nwas\n% x", name, got, src)
		}
	}
	// The page says why, in Chinese too.
	req, _ := http.NewRequest("GET", ts.URL+"/flows/gbk.flow/edit", nil)
	req.Header.Set(TokenHeader, s.Token())
	req.Header.Set("Accept-Language", "zh-CN,zh;q=0.9")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := html.UnescapeString(string(b))
	if !strings.Contains(page, "不是 UTF-8 文本") || !strings.Contains(page, "GB18030") {
		t.Errorf("the Chinese editor page does not say the file is not UTF-8:\n%s", page)
	}
}

// TestEditorShowsNonUTF8ReadOnly: in a real browser the editor shows a GBK flow read-only with
// the message; saving (the form submitted, Ctrl+S) writes nothing.
func TestEditorShowsNonUTF8ReadOnly(t *testing.T) {
	c := newConsole(t, map[string]string{"gbk.flow": string(gbkFlow)})
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/flows/gbk.flow/edit?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	waitText(t, pg, "gbk.flow is not UTF-8 text")
	waitText(t, pg, "iconv -f GB18030 -t UTF-8 gbk.flow")
	v, err := pg.Eval(step(t), `() => { const t = document.getElementById("text"); document.getElementById("editor").requestSubmit(); t.focus(); t.dispatchEvent(new KeyboardEvent("keydown", {key: "s", ctrlKey: true, bubbles: true})); return [t.readOnly, document.getElementById("save").disabled, !document.getElementById("publish")] }`)
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := v.([]any); len(a) != 3 || a[0] != true || a[1] != true || a[2] != true {
		t.Errorf("readOnly, save disabled, no publish dialog: %v", v)
	}
	if _, err := pg.Eval(step(t), `() => new Promise((ok) => setTimeout(ok, 300))`); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(c.dir, "gbk.flow")); !bytes.Equal(got, gbkFlow) {
		t.Errorf("gbk.flow was rewritten:\n% x", got)
	}
	c.checkPage(t, pg, "edit_not_utf8")
}
