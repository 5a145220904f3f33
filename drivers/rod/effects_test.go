package rod_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
)

// TestClickHasItsEffect: a click whose widget declares what it changes
// (aria-expanded, aria-selected, aria-checked) is confirmed and sent
// again when the page did not take it (a panel still fading in, a tab
// that ignores its first click); text= resolves to the menu item, not the
// label inside it that swallows clicks; a switch that never changes
// fails saying so.
func TestClickHasItsEffect(t *testing.T) {
	p := open(t, "effects.html")
	click(t, p, "#region")
	click(t, p, "text=浙江省") // at once: the panel is still fading in
	click(t, p, "text=杭州市")
	waitResult(t, p, "picked:浙江省/杭州市")

	click(t, p, "text=详细地址")
	if got := text(t, p, "#tab"); got != "详细地址" {
		t.Errorf("tab = %q", got)
	}
	click(t, p, "#notify")
	if got := text(t, p, "#notify-state"); got != "on" {
		t.Errorf("notify = %q (toggled twice?)", got)
	}
	el := locate(t, p, drivers.ForPointer, "#broken")
	err := el.Click(tctx(t, 10*time.Second), "left", 1)
	if err == nil || !strings.Contains(err.Error(), `clicking span#broken.switch did not change it (aria-checked stayed "false")`) {
		t.Errorf("broken switch: %v", err)
	}
}

// TestTextFindsTheWidget: text= resolves to the widget that takes the
// click when its text is the label's, and a space a library puts between
// two Han characters ("确 定") does not keep "确定" from matching.
func TestTextFindsTheWidget(t *testing.T) {
	p := open(t, "effects.html")
	for sel, want := range map[string]string{
		"text=导出":       "li#export",
		`text="导出"`:     "li#export",
		"text=确定":       "button.ant-btn",
		`text="确定"`:     "button.ant-btn",
		`aria/确定`:       "button.ant-btn",
		"text=确 定":      "button.ant-btn",
		"text=基本信息":     "span#tab-a",
		`text="请选择地区"`:  "div#region",
		"text=Result: ": "p",
	} {
		el := locate(t, p, drivers.ForRead, sel)
		if got := el.Describe(tctx(t, 5*time.Second)); got != want {
			t.Errorf("%s = %s, want %s", sel, got, want)
		}
	}
	click(t, p, "text=确定")
	if got := text(t, p, "#ok-result"); got != "ok" {
		t.Errorf("ok = %q", got)
	}
	if got := text(t, p, "text=确定"); got != "确 定" {
		t.Errorf("text read = %q, want the text as shown", got)
	}
	// an <input> button matches by its value, and a whole-text match comes
	// before a heading that only contains the text
	if _, err := p.Eval(tctx(t, 5*time.Second), `() => {
		const f = document.createElement('form'); f.innerHTML = '<h4>电费查询</h4><input type="submit" id="q" value="查 询">';
		document.body.append(f); return 1 }`); err != nil {
		t.Fatal(err)
	}
	for _, sel := range []string{"text=查询", `text="查询"`} {
		if got := locate(t, p, drivers.ForRead, sel).Describe(tctx(t, time.Second)); got != "input#q" {
			t.Errorf("%s = %s, want input#q", sel, got)
		}
	}
	// a menu still scaled to nothing (opening) holds its items' text: no
	// ancestor stands in for them (the body did)
	if _, err := p.Eval(tctx(t, 5*time.Second), `() => {
		const m = document.createElement('ul'); m.id = 'opening'; m.style.transform = 'scaleY(0)';
		m.innerHTML = '<li role="menuitem"><span>上海市</span></li>'; document.body.append(m); return 1 }`); err != nil {
		t.Fatal(err)
	}
	if el, _, err := p.Locate(tctx(t, 300*time.Millisecond), []string{"text=上海市"}, drivers.ForRead); err == nil {
		t.Errorf("text=上海市 in a menu scaled to nothing = %s, want no match", el.Describe(tctx(t, time.Second)))
	}
	if _, err := p.Eval(tctx(t, 5*time.Second), `() => { document.getElementById('opening').style.transform = ''; return 1 }`); err != nil {
		t.Fatal(err)
	}
	if got := locate(t, p, drivers.ForRead, "text=上海市").Describe(tctx(t, time.Second)); got != "li" {
		t.Errorf("text=上海市 once shown = %s, want li", got)
	}
}
