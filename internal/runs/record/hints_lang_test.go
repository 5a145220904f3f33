package record

import (
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// TestHintsInChinese: the packet's hints are sentences of the catalog, in the record's
// language; the values they quote stay as the page gave them.
func TestHintsInChinese(t *testing.T) {
	p := &Packet{URL: "https://x/login", Source: `click "#go"`, Kind: core.KindNotFound, Action: "click"}
	reps := []drivers.SelectorReport{{Selector: "#go", Kind: core.KindCovered, Reason: "covered by div.cookie-banner", Count: 1}}
	zh := strings.Join(hints("zh", p, reps, "", "", "密码错误"), "\n")
	for _, want := range []string{`页面是 /login，显示 "密码错误"：登录被拒绝`, "div.cookie-banner 遮挡了目标"} {
		if !strings.Contains(zh, want) {
			t.Errorf("zh hints lack %q:\n%s", want, zh)
		}
	}
	en := strings.Join(hints("en", p, reps, "", "", "wrong password"), "\n")
	if !strings.Contains(en, "the login was refused") || !strings.Contains(en, "div.cookie-banner covers the target") {
		t.Errorf("en hints:\n%s", en)
	}
}
