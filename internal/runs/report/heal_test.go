package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/runs"
)

// TestReportHealSuggestions: the report shows what healing found, for a
// person: the failing line's best candidate (the failure packet's heal and
// heal_patch), a line the run healed (its mark), each with the selectors
// the patch would write and the score, and how to apply them (`rpa heal
// FLOW`); in Chinese too. A run healing found nothing for has no such part.
func TestReportHealSuggestions(t *testing.T) {
	home := t.TempDir()
	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	flowPath := filepath.Join(home, "billing.flow")
	r := &runs.Run{Flow: "billing", FlowPath: flowPath}
	if _, err := st.Begin(r); err != nil {
		t.Fatal(err)
	}
	_ = st.AddStep(r.ID, runs.Step{Index: 1, Action: "fill", Line: 9, Status: "ok", Target: "#cust"})
	_ = st.AddStep(r.ID, runs.Step{Index: 2, Action: "fill", Line: 14, Status: "failed", Error: "no element matches", ErrorKind: "not_found"})
	_ = st.Finish(r.ID, runs.Outcome{Status: runs.StatusFailed, ErrorKind: "not_found", ErrorMessage: "no element matches", ErrorLine: 14, ErrorAction: "fill"})
	// Line 9 healed in this run; line 14 failed with a candidate heal did not act on (mode suggest).
	if err := st.AddMarks([]runs.Mark{{Flow: "billing", Line: 9, Selectors: []string{"#cust"}, At: time.Now(), Run: r.ID, Matched: runs.MatchedHealed, Healed: []string{"#customer", "aria/Customer"}, Score: 0.91}}); err != nil {
		t.Fatal(err)
	}
	packet := `{"line": 14, "action": "fill", "source": "fill \"#cust-name\" who",
	  "heal": {"mode": "suggest", "status": "suggested", "candidates": [{"score": 0.59, "desc": "textbox 'Customer 客户'", "selectors": ["aria/Customer 客户[role=\"textbox\"]"]}]},
	  "heal_patch": {"line": 14, "kind": "suggested", "old": ["#cust-name"], "new": ["aria/Customer 客户[role=\"textbox\"]", "#cust-name"], "note": "x"}}`
	if err := os.WriteFile(filepath.Join(st.RunDir(r.ID), "failure.json"), []byte(packet), 0o644); err != nil {
		t.Fatal(err)
	}
	for lang, wants := range map[string][]string{
		"en": {"<h2>Healing</h2>", "<td>14</td><td>a candidate (not acted on) <span translate=\"no\">textbox &#39;Customer 客户&#39;</span></td>",
			`<code>[&#34;aria/Customer 客户[role=\&#34;textbox\&#34;]&#34;, &#34;#cust-name&#34;]</code></td><td>0.59</td>`,
			"<td>9</td><td>healed to</td><td><code>[&#34;#customer&#34;, &#34;aria/Customer&#34;]</code></td><td>0.91</td>",
			"To apply: <code>rpa heal " + flowPath + "</code> shows the patch"},
		"zh": {"<h2>自愈</h2>", "候选元素（未采用）", "已自愈为", "<td>0.59</td>", "应用方法： <code>rpa heal " + flowPath + "</code> 会显示流程的补丁"},
	} {
		var b bytes.Buffer
		if err := Render(&b, st, r.ID, Options{Lang: lang}); err != nil {
			t.Fatal(err)
		}
		for _, w := range wants {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s report lacks %q", lang, w)
			}
		}
		if i := strings.Index(b.String(), "<h2>"+map[string]string{"en": "Healing", "zh": "自愈"}[lang]); i >= 0 && strings.Index(b.String()[i:], "<td>9</td>") > strings.Index(b.String()[i:], "<td>14</td>") {
			t.Errorf("%s: the lines are not in order", lang)
		}
	}
	// A run without healing: no part.
	r2 := &runs.Run{Flow: "billing"}
	st.Begin(r2)
	st.Finish(r2.ID, runs.Outcome{Status: runs.StatusOK})
	var b bytes.Buffer
	if err := Render(&b, st, r2.ID, Options{Lang: "en"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `id="heal"`) {
		t.Error("a run without healing shows a healing part")
	}
}
