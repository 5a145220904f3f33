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
