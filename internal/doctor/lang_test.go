package doctor

import (
	"bytes"
	"strings"
	"testing"
)

// TestPrintChinese: under RPA_LANG=zh the report's statuses, item names,
// details and fixes are Chinese where the catalog has them, the paths as
// they are, the columns aligned by display width; in English it is as before.
func TestPrintChinese(t *testing.T) {
	r := Report{Checks: []Check{
		{Name: "home", Status: OK, Detail: "/tmp/h is writable"},
		{Name: "display", Status: Note, Detail: "none (DISPLAY and WAYLAND_DISPLAY are unset): headless, so `ask` goes to the terminal or the MCP client", Fix: "only needed for desktop dialogs: run rpa inside the desktop session"},
		{Name: "flows", Status: Fail, Detail: "1 of 2 flow file(s) in /tmp/h/flows check clean; first error: /tmp/h/flows/bad.flow:3:1: error: unknown action \"clik\"; did you mean \"click\"?", Fix: "`rpa check /tmp/h/flows` shows every error with its line; fix or remove those files (they are not served)"},
	}}
	t.Setenv("RPA_LANG", "zh")
	var b bytes.Buffer
	Print(&b, r)
	got := b.String()
	for _, want := range []string{
		"正常  rpa 文件夹  /tmp/h 可写\n",
		"提示  显示环境    无（未设置 DISPLAY 和 WAYLAND_DISPLAY）",
		"解决：只有桌面对话框需要：请在桌面会话中运行 rpa\n",
		"失败  流程        /tmp/h/flows 中的 2 个流程文件有 1 个检查通过；第一个错误：/tmp/h/flows/bad.flow:3:1: 错误：未知的动作 \"clik\"；是不是想写 \"click\"？\n",
		"解决：`rpa check /tmp/h/flows` 会列出每个错误及其行号",
		"1 项未通过；请按上面所示解决。",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	t.Setenv("RPA_LANG", "en")
	b.Reset()
	Print(&b, r)
	if got := b.String(); !strings.Contains(got, "ok    home     /tmp/h is writable\n") || !strings.Contains(got, "1 item(s) failed; fix them as shown above.") {
		t.Errorf("English:\n%s", got)
	}
}
