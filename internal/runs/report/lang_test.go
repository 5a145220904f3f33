package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/runs"
)

// TestChineseReport: with Lang "zh" every heading, label and note of the report is Chinese;
// the run's own values (flow, kinds, selectors, outputs) stay as they are.
func TestChineseReport(t *testing.T) {
	st, err := runs.Open(t.TempDir(), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := &runs.Run{Flow: "usage", Args: map[string]any{"region": "110000"}}
	if _, err := st.Begin(r); err != nil {
		t.Fatal(err)
	}
	_ = st.AddStep(r.ID, runs.Step{Index: 1, Action: "click", Line: 3, Status: "ok", Target: "#go", Selector: "#go2", SelectorIndex: 1})
	_ = st.AddStep(r.ID, runs.Step{Index: 2, Action: "table", Line: 4, Status: "failed", Error: `no element matches "#t"`, ErrorKind: "not_found"})
	_ = st.SetOutputs(r.ID, json.RawMessage(`{"rows":[{"date":"d1","kWh":"1"}],"n":1}`), 0)
	_ = st.Finish(r.ID, runs.Outcome{Status: runs.StatusFailed, ErrorKind: "not_found", ErrorMessage: "no rows", ErrorLine: 4, ErrorAction: "table"})
	var zh, en bytes.Buffer
	if err := Render(&zh, st, r.ID, Options{Lang: "zh"}); err != nil {
		t.Fatal(err)
	}
	if err := Render(&en, st, r.ID, Options{Lang: "en"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<html lang="zh">`, "<h2>参数</h2>", "<h2>输出</h2>", "<h2>错误</h2>", "<h2>时间线</h2>", "1 行", "列表中的第 2 个备选选择器生效", "失败</span>", "密文显示为 ***", "<th>date</th><th>kWh</th>", `<div class="s-failed">没有元素匹配 &#34;#t&#34;</div>`} {
		if !strings.Contains(zh.String(), want) {
			t.Errorf("zh report lacks %q", want)
		}
	}
	for _, english := range []string{"Arguments", "Outputs", "Timeline", "fallback", "Written by", ">failed<", "at line", "actions"} {
		if strings.Contains(zh.String(), english) {
			t.Errorf("zh report holds %q", english)
		}
		if english != ">failed<" && !strings.Contains(en.String(), english) {
			t.Errorf("en report lacks %q", english)
		}
	}
}
