package rod_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// TestCheckByText: check and uncheck act on the checkbox a flow names by
// its text: a label's control, the hidden input a drawn box stands for
// (layui), the input before a tree node's drawn box, the one checkbox
// of a row; a drawn box of a disabled input is disabled.
func TestCheckByText(t *testing.T) {
	p := open(t, "drawn.html")
	for _, sel := range []string{"text=短信", "text=微信", "text=后端组", "#row-a"} {
		el := locate(t, p, drivers.ForPointer, sel)
		ct, ok := el.(interface {
			CheckTarget(ctx context.Context) (drivers.Element, error)
		})
		if !ok {
			t.Fatal("no CheckTarget")
		}
		target, err := ct.CheckTarget(tctx(t, 5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if on, _ := target.Checked(tctx(t, 5*time.Second)); on {
			t.Fatalf("%s checked at load", sel)
		}
		if err := target.Click(tctx(t, 5*time.Second), "left", 1); err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		if on, err := el.Checked(tctx(t, 5*time.Second)); err != nil || !on {
			t.Errorf("%s: checked = %v, %v", sel, on, err)
		}
	}
	waitResult(t, p, "sms,wechat,be,weekly")
	_, _, err := p.Locate(tctx(t, 300*time.Millisecond), []string{"text=电话"}, drivers.ForPointer)
	if core.KindOf(err) != core.KindDisabled || !strings.Contains(err.Error(), "it draws the disabled input.native-hidden") {
		t.Errorf("电话: %v", err)
	}
}
