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

// TestPageHintsInChinese: the sentences about a page that is to blame (a
// sign-in page, an error, an HTTP error document) are the catalog's.
func TestPageHintsInChinese(t *testing.T) {
	for kind, want := range map[string]string{
		drivers.PageSignIn:    "会话已过期或登录没有成功",
		drivers.PageError:     "页面拒绝了流程提交的内容",
		drivers.PageHTTPError: "服务器出错或地址不对",
	} {
		p := &Packet{URL: "https://x/a", Page: &drivers.PageState{Kind: kind, Text: "the page says so"}}
		if zh := strings.Join(hints("zh", p, nil, "", "", ""), "\n"); !strings.Contains(zh, "the page says so："+want) || !strings.Contains(zh, "不是选择器的问题") {
			t.Errorf("%s: %s", kind, zh)
		}
		if en := strings.Join(hints("en", p, nil, "", "", ""), "\n"); !strings.Contains(en, "the selectors are not to blame") {
			t.Errorf("%s en: %s", kind, en)
		}
	}
}
