package rod_test

import (
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
)

// TestTypeAppends: Type into a field that is not focused puts the caret at
// the end, as a click into it would, so the keys append to the value (a
// textarea and a contenteditable too); into a focused field it keeps the
// selection, so select all then type replaces.
func TestTypeAppends(t *testing.T) {
	p := open(t, "form.html")
	ctx := tctx(t, 10*time.Second)
	area := locate(t, p, drivers.ForInput, "#f-area")
	if err := area.Type(ctx, " two", 0); err != nil {
		t.Fatal(err)
	}
	if v, _ := area.Value(ctx); v != "line one two" {
		t.Errorf("textarea value = %q, want %q", v, "line one two")
	}
	if err := p.Press(ctx, "Control+A"); err != nil {
		t.Fatal(err)
	}
	if err := area.Type(ctx, "new", 0); err != nil {
		t.Fatal(err)
	}
	if v, _ := area.Value(ctx); v != "new" {
		t.Errorf("after select all: value = %q, want new", v)
	}
	if _, err := p.Eval(ctx, `() => {
		const d = document.createElement('div');
		d.id = 'ce'; d.contentEditable = 'true'; d.textContent = 'Hello';
		document.body.appendChild(d);
	}`); err != nil {
		t.Fatal(err)
	}
	ce := locate(t, p, drivers.ForInput, "#ce")
	if err := ce.Type(ctx, " world", 0); err != nil {
		t.Fatal(err)
	}
	if got := text(t, p, "#ce"); got != "Hello world" {
		t.Errorf("contenteditable = %q, want Hello world", got)
	}
}
