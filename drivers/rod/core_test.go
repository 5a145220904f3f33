package rod_test

import (
	"testing"

	"github.com/rpa-dev/rpa/drivers"
)

func TestFillClickText(t *testing.T) {
	p := open(t, "basic.html")
	fill(t, p, "#name", "Ada")
	click(t, p, "#go")
	waitResult(t, p, "hello:Ada:true")
	if got := text(t, p, "#intro"); got != "Hello rpa world" {
		t.Errorf("text = %q", got)
	}
	title, err := p.Title(tctx(t, 5e9))
	if err != nil || title != "Basic page" {
		t.Errorf("title = %q, %v", title, err)
	}
	_ = drivers.ForRead
}
