package msg

import (
	"bytes"
	"os"
	"testing"
)

func TestLocalize(t *testing.T) {
	Register(map[string]Text{
		"out.test.wrote":    {En: "wrote %s", Zh: "已写入 %s"},
		"out.test.rows":     {En: "wrote %s: %d rows", Zh: "已写入 %s：%d 行"},
		"out.test.order":    {En: "%s matched %d of %d", Zh: "%[3]d 次中 %[1]s 匹配了 %[2]d 次"},
		"out.test.wrap":     {En: "run store: %s", Zh: "运行记录库：%s"},
		"out.test.denied":   {En: "permission denied", Zh: "没有权限"},
		"out.test.quoted":   {En: "no param %q here", Zh: "这里没有参数 %q"},
		"out.test.score":    {En: "score %.2f", Zh: "得分 %.2f"},
		"out.test.percent":  {En: "at 100%% of the %s", Zh: "%s 的 100%%"},
		"not.out.test.line": {En: "ok then", Zh: "好的"},
	})
	for _, c := range []struct{ in, want string }{
		{"wrote a.csv", "已写入 a.csv"},
		{"wrote a.csv: 3 rows\n", "已写入 a.csv：3 行\n"},                       // the specific line wins
		{"\"#b\" matched 2 of 5", "5 次中 \"#b\" 匹配了 2 次"},                   // reordered
		{"rpa runs: run store: permission denied", "rpa runs: 运行记录库：没有权限"}, // a prefix kept, an argument localized
		{`x.flow:3:1: no param "a\"b" here`, `x.flow:3:1: 这里没有参数 "a\"b"`},  // %q
		{"score 0.59", "得分 0.59"},
		{"at 100% of the x", "x 的 100%"},
		{"  wrote b\r", "  已写入 b\r"},                     // indentation and the line's end kept
		{"ok then", "ok then"},                           // not an output line
		{`{"error": "wrote a"}`, `{"error": "wrote a"}`}, // JSON stays
		{`  "error": "wrote a",`, `  "error": "wrote a",`},
		{`  "rows": 3,`, `  "rows": 3,`},
		{`"a.csv": wrote b`, `"a.csv": 已写入 b`}, // a quoted text and a message: not JSON
		{"nothing known", "nothing known"},
	} {
		if got := Localize("zh", c.in); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
		if got := Localize("en", c.in); got != c.in {
			t.Errorf("en %q: %q", c.in, got)
		}
	}
}

func TestWriter(t *testing.T) {
	Register(map[string]Text{"out.test.writer": {En: "removed %d run(s)", Zh: "已删除 %d 条运行记录"}})
	var b bytes.Buffer
	w := Writer("zh", &b)
	w.Write([]byte("removed 3 run(s)\nremoved 1 run(s)\rpassphrase: "))
	if b.String() != "已删除 3 条运行记录\n已删除 1 条运行记录\rpassphrase: " {
		t.Fatalf("%q", b.String())
	}
	// Bytes that are not text pass as they are.
	b.Reset()
	bin := []byte("removed 3 run(s)\xff\n")
	w.Write(bin)
	if !bytes.Equal(b.Bytes(), bin) {
		t.Fatalf("binary: %q", b.Bytes())
	}
	// A file's writer keeps its descriptor (a terminal is asked through it).
	if f, ok := Writer("zh", os.Stderr).(interface{ Fd() uintptr }); !ok || f.Fd() != os.Stderr.Fd() {
		t.Fatal("the writer on a file has no Fd")
	}
	if Writer("en", &b) != &b {
		t.Fatal("English wraps the writer")
	}
}

// TestEngineLines: the engine's messages a failed step says, as a run record or the console
// shows them, in Chinese (engine.go), the selectors and names in them kept as they are.
func TestEngineLines(t *testing.T) {
	for in, want := range map[string]string{
		`click: no element matches "#go", "text=Go"`:                                                                                       `click: 没有元素匹配 "#go", "text=Go"`,
		`wait: timed out after 10s waiting for "#t": "#t" matches table#t, which is not visible (display: none)`:                           `wait：等待 "#t"，10s 后超时："#t" 匹配到 table#t，但它不可见（display: none）`,
		`timed out after 30s (button#submit is covered by div#consent)`:                                                                    `30s 后超时（button#submit 被 div#consent 挡住了）`,
		`wait: gave up after 1.2s waiting for text "done": the page is a sign-in page: it asks for a password`:                             `wait：等待 文本 "done"，1.2s 后放弃：页面是登录页：它要求输入密码`,
		`button#off is disabled (aria-disabled="true")`:                                                                                    `button#off 已禁用（aria-disabled="true"）`,
		`wait: timed out after 1s waiting for text "x": the page had settled (nothing loaded or changed for 1.5s)`:                         `wait：等待 文本 "x"，1s 后超时：页面已稳定（1.5s 内没有加载或变化）`,
		`select: no option at index 7 (3 options)`:                                                                                         `select: 索引 7 处没有选项（共 3 个选项）`,
		`select: option "Beijing" is disabled`:                                                                                             `select: 选项 "Beijing" 已禁用`,
		`select: index must be a whole number >= 0, got "x"`:                                                                               `select: 索引必须是大于等于 0 的整数，实际为 "x"`,
		`select: div#region is not a select`:                                                                                               `select: div#region 不是下拉框（select）`,
		`fill: select#region is a select: use select`:                                                                                      `fill: select#region 是下拉框：请用 select`,
		`select: select#city shows "Shanghai" after choosing "Beijing" (the page changed it back)`:                                         `select: 选择 "Beijing" 后 select#city 显示 "Shanghai"（页面把它改回去了）`,
		`select: unknown by "name" (value, label, index)`:                                                                                  `select: 未知的 by "name"（可用 value、label、index）`,
		`fill: textbox "User" does not keep the focus: the page moves it to textbox "Search"`:                                              `fill: textbox "User" 留不住焦点：页面把焦点移到了 textbox "Search"`,
		`fill: the value would have gone to textbox "Search": focus moved away from textbox "User" while typing (the text was held back)`:  `fill: 值本会输入到 textbox "Search"：输入时焦点离开了 textbox "User"（文本未输入）`,
		`type: the keys would have gone to body: focus moved away from input#q while typing (3 of 8 characters typed, the rest held back)`: `type: 按键本会输入到 body：输入时焦点离开了 input#q（已输入 3/8 个字符，其余未输入）`,
		`fill: input#pw holds another value after the fill`:                                                                                `fill: 填写后 input#pw 的值不是所填的值`,
		`fill: input#q holds "ab", not "abc" after the fill; the focus is on body now (it moved away while typing)`:                        `fill: 填写后 input#q 的值是 "ab"，而不是 "abc"；焦点现在在 body 上（输入时移开了）`,
		`upload: button#pick is not a file input, and clicking it opened no file chooser within 2s`:                                        `upload: button#pick 不是文件输入框，点击它在 2s 内也没有打开文件选择框`,
		`download "r.xlsx" was canceled`:                                                                                                   `下载 "r.xlsx" 的状态为 canceled`,
		`download "r.xlsx" did not finish in time`:                                                                                         `下载 "r.xlsx" 未能及时完成`,
	} {
		if got := Localize("zh", in); got != want {
			t.Errorf("%s\n got %s\nwant %s", in, got, want)
		}
	}
}
