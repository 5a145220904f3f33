package rod_test

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
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
	ctx := tctx(t, 5*time.Second)
	title, err := p.Title(ctx)
	if err != nil || title != "Basic page" {
		t.Errorf("title = %q, %v", title, err)
	}
	// fill replaces the whole value, an empty fill clears it
	fill(t, p, "#name", "Grace")
	el := locate(t, p, drivers.ForInput, "#name")
	if v, _ := el.Value(ctx); v != "Grace" {
		t.Errorf("value after refill = %q", v)
	}
	fill(t, p, "#name", "")
	if v, _ := el.Value(ctx); v != "" {
		t.Errorf("value after empty fill = %q", v)
	}
}

func TestLocateFailureKinds(t *testing.T) {
	p := open(t, "basic.html")
	cases := []struct {
		sel  string
		want drivers.Checks
		kind core.Kind
		msg  string
	}{
		{"#nope", drivers.ForPointer, core.KindNotFound, `no element matches "#nope"`},
		{"#secret", drivers.ForPointer, core.KindNotVisible, "div#secret.hidden is not visible"},
		{"#off", drivers.ForPointer, core.KindDisabled, "button#off is disabled"},
		{"#ro", drivers.ForInput, core.KindDisabled, "input#ro is read-only"},
		{"#go", drivers.ForInput, core.KindDisabled, "button#go is not editable"},
		{"#offscreen", drivers.ForPointer, core.KindNotVisible, "button#offscreen is outside the viewport"},
	}
	for _, c := range cases {
		t.Run(c.sel, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			_, _, err := p.Locate(ctx, []string{c.sel}, c.want)
			if kindOf(err) != c.kind || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err = %v (kind %q), want kind %q containing %q", err, kindOf(err), c.kind, c.msg)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err does not wrap the deadline: %v", err)
			}
		})
	}
}

func TestCancelLocateReturnsFast(t *testing.T) {
	p := open(t, "basic.html")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(300 * time.Millisecond); cancel() }()
	start := time.Now()
	_, _, err := p.Locate(ctx, []string{"#never"}, drivers.ForPointer)
	if d := time.Since(start); d > 20*time.Second { // only a hang: nothing else ends the wait
		t.Errorf("Locate returned %v after start (cancel at 300ms)", d)
	}
	if !errors.Is(err, context.Canceled) || kindOf(err) != core.KindNotFound {
		t.Errorf("err = %v", err)
	}
}

func TestClickButtonsAndCount(t *testing.T) {
	p := open(t, "basic.html")
	ctx := tctx(t, 10*time.Second)
	el := locate(t, p, drivers.ForPointer, "#twice")
	if err := el.Click(ctx, "left", 2); err != nil {
		t.Fatal(err)
	}
	waitResult(t, p, "double")
	el = locate(t, p, drivers.ForPointer, "#ctx")
	if err := el.Click(ctx, "right", 1); err != nil {
		t.Fatal(err)
	}
	waitResult(t, p, "context:2")
	if err := el.Click(ctx, "nose", 1); err == nil {
		t.Error("bad button accepted")
	}
}

func TestTypeAndPress(t *testing.T) {
	p := open(t, "basic.html")
	ctx := tctx(t, 10*time.Second)
	el := locate(t, p, drivers.ForInput, "#name")
	if err := el.Type(ctx, "ab", 10*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := p.Press(ctx, "Control+A"); err != nil {
		t.Fatal(err)
	}
	if err := el.Type(ctx, "Zoë!", 0); err != nil {
		t.Fatal(err)
	}
	if v, _ := el.Value(ctx); v != "Zoë!" {
		t.Errorf("value = %q, want Zoë! (Control+A should have selected ab)", v)
	}
	keys := text(t, p, "#keys")
	if !strings.Contains(keys, "Control(ctrl) a(ctrl)") || !strings.HasPrefix(keys, "a b Control") {
		t.Errorf("keys seen = %q", keys)
	}
	for _, bad := range []string{"", "Foo", "A+B", "Control+Bogus"} {
		if err := p.Press(ctx, bad); err == nil {
			t.Errorf("Press(%q) accepted", bad)
		}
	}
}

func TestNavigation(t *testing.T) {
	p := open(t, "basic.html")
	ctx := tctx(t, 15*time.Second)
	click(t, p, "text=Next page")
	if err := p.WaitURL(ctx, "basic2"); err != nil {
		t.Fatal(err)
	}
	if got := text(t, p, "#title"); got != "Second page" {
		t.Fatalf("after click: %q", got)
	}
	if err := p.WaitURL(ctx, `re:/basic2\.html$`); err != nil {
		t.Fatal(err)
	}
	if err := p.Back(ctx); err != nil {
		t.Fatal(err)
	}
	if u, _ := p.URL(ctx); !strings.HasSuffix(u, "/basic.html") {
		t.Fatalf("after back: %s", u)
	}
	if err := p.Forward(ctx); err != nil {
		t.Fatal(err)
	}
	if u, _ := p.URL(ctx); !strings.HasSuffix(u, "/basic2.html") {
		t.Fatalf("after forward: %s", u)
	}
	if err := p.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if got := text(t, p, "#title"); got != "Second page" {
		t.Fatalf("after reload: %q", got)
	}
	if err := p.Navigate(ctx, url("basic.html#x")); err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(ctx, url("basic.html#y")); err != nil { // same document
		t.Fatal(err)
	}
	if err := p.Forward(ctx); err == nil || kindOf(err) != core.KindNavigation {
		t.Errorf("forward at the end of history: %v", err)
	}
	if err := p.Navigate(ctx, "http://127.0.0.1:1/nothing"); kindOf(err) != core.KindNavigation {
		t.Errorf("navigate to a closed port: %v", err)
	}
	if err := p.WaitURL(ctx, "re:("); err == nil {
		t.Error("bad regexp accepted")
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := p.WaitURL(short, "never"); kindOf(err) != core.KindTimeout {
		t.Errorf("WaitURL timeout: %v", err)
	}
}

func TestScriptRedirect(t *testing.T) {
	p := open(t, "basic.html")
	ctx := tctx(t, 10*time.Second)
	if err := p.Navigate(ctx, url("redirect.html?x=1")); err != nil {
		t.Fatal(err)
	}
	if u, _ := p.URL(ctx); !strings.HasSuffix(u, "/basic2.html?x=1") {
		t.Errorf("url after redirect = %s", u)
	}
	q, err := testBrowser.NewPage(ctx, url("redirect.html"))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if got := text(t, q, "#title"); got != "Second page" {
		t.Errorf("new tab after redirect: %q", got)
	}
}

func TestWaitIdle(t *testing.T) {
	p := open(t, "basic.html")
	ctx := tctx(t, 10*time.Second)
	if _, err := p.Eval(ctx, `() => { fetch('/api/slow'); return 1 }`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := p.WaitIdle(ctx, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Errorf("WaitIdle returned after %v while /api/slow takes 300ms", d)
	}
}

func TestReadsAndScroll(t *testing.T) {
	p := open(t, "basic.html")
	ctx := tctx(t, 10*time.Second)
	el := locate(t, p, drivers.ForRead, "#name")
	if v, ok, err := el.Attr(ctx, "id"); v != "name" || !ok || err != nil {
		t.Errorf("attr id = %q %v %v", v, ok, err)
	}
	if _, ok, _ := el.Attr(ctx, "nope"); ok {
		t.Error("absent attribute reported present")
	}
	if d := el.Describe(ctx); d != "input#name" {
		t.Errorf("describe = %q", d)
	}
	if pw, _ := el.IsPassword(ctx); pw {
		t.Error("text input reported as password")
	}
	h, err := el.HTML(ctx)
	if err != nil || !strings.HasPrefix(h, `<input id="name"`) {
		t.Errorf("html = %q, %v", h, err)
	}
	box := locate(t, p, drivers.ForRead, "#box")
	if err := box.ScrollContent(ctx, "bottom"); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitText(ctx, "Scroll position: bottom"); err != nil {
		t.Fatal(err)
	}
	if err := box.ScrollContent(ctx, "sideways"); err == nil {
		t.Error("bad scroll target accepted")
	}
	if err := locate(t, p, drivers.ForRead, "#last").ScrollIntoView(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := p.Count(ctx, "p"); err != nil || n != 9 {
		t.Errorf("count p = %d, %v", n, err)
	}
	if ok, _ := p.Exists(ctx, "#nope"); ok {
		t.Error("exists #nope")
	}
	if ok, _ := p.Exists(ctx, "xpath=//h1[text()='Basic page']"); !ok {
		t.Error("xpath exists failed")
	}
	if _, err := p.Count(ctx, "a[[["); err == nil || !strings.Contains(err.Error(), "bad CSS selector") {
		t.Errorf("bad selector: %v", err)
	}
	for _, bad := range []string{"", "text=", "aria/", "pierce/", "xpath="} {
		if _, _, err := p.Locate(ctx, []string{bad}, drivers.ForRead); err == nil || !strings.Contains(err.Error(), "empty selector") {
			t.Errorf("Locate(%q): %v", bad, err)
		}
	}
	if _, err := p.Count(ctx, "xpath=//*[@"); err == nil {
		t.Error("bad xpath accepted")
	}
	body, err := p.Text(ctx)
	if err != nil || !strings.Contains(body, "Hello rpa world") || strings.Contains(body, "Secret text") {
		t.Errorf("page text = %q, %v", body, err)
	}
	v, err := p.Eval(ctx, `(a, b) => ({sum: a + b, t: document.title})`, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := v.(map[string]any); m["sum"] != 5.0 || m["t"] != "Basic page" {
		t.Errorf("eval = %#v", v)
	}
	png, err := p.Screenshot(ctx, false)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("screenshot: %v", err)
	}
	full, err := p.Screenshot(ctx, true)
	if err != nil || !bytes.HasPrefix(full, []byte("\x89PNG")) {
		t.Errorf("full screenshot: %v", err)
	}
	shot, err := locate(t, p, drivers.ForRead, "#go").Screenshot(ctx)
	if err != nil || !bytes.HasPrefix(shot, []byte("\x89PNG")) || len(shot) >= len(png) {
		t.Errorf("element screenshot: %d bytes, %v", len(shot), err)
	}
}

func TestWaitState(t *testing.T) {
	p := open(t, "late.html")
	ctx := tctx(t, 10*time.Second)
	if i, err := p.WaitState(ctx, []string{"#late"}, drivers.StateVisible); err != nil || i != 0 {
		t.Fatalf("wait #late visible: %d %v", i, err)
	}
	if i, err := p.WaitState(ctx, []string{"#nothing", "#go"}, drivers.StateAttached); err != nil || i != 1 {
		t.Errorf("attached: %d %v", i, err)
	}
	if _, err := p.WaitState(ctx, []string{"#nothing"}, drivers.StateDetached); err != nil {
		t.Errorf("detached: %v", err)
	}
	if _, err := p.Eval(ctx, `() => { document.getElementById('late').style.display = 'none'; return 1 }`); err != nil {
		t.Fatal(err)
	}
	if _, err := p.WaitState(ctx, []string{"#late"}, drivers.StateHidden); err != nil {
		t.Errorf("hidden: %v", err)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := p.WaitState(short, []string{"#late"}, drivers.StateVisible); kindOf(err) != core.KindNotVisible {
		t.Errorf("timeout kind: %v", err)
	}
	if _, err := p.WaitState(ctx, []string{"#late"}, "sideways"); err == nil {
		t.Error("bad state accepted")
	}
}

// TestElementScreenshotScrolled checks the element shot shows the element
// when the page is scrolled: a solid red box far down the page.
func TestElementScreenshotScrolled(t *testing.T) {
	p := open(t, "basic.html")
	ctx := tctx(t, 10*time.Second)
	if _, err := p.Eval(ctx, `() => {
		const d = document.createElement('div');
		d.id = 'red';
		d.style.cssText = 'margin-top: 2000px; width: 40px; height: 30px; background: rgb(255,0,0)';
		document.body.appendChild(d);
		return 1 }`); err != nil {
		t.Fatal(err)
	}
	full, err := p.Screenshot(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	fimg, err := png.Decode(bytes.NewReader(full))
	if err != nil {
		t.Fatal(err)
	}
	if fb := fimg.Bounds(); fb.Dx() < 1200 || fb.Dy() < 2030 {
		t.Errorf("full page shot is %v", fb)
	}
	if v, _ := p.Eval(ctx, `() => [innerWidth, innerHeight]`); v.([]any)[1] != 720.0 {
		t.Errorf("viewport after a full shot: %v", v)
	}
	shot, err := locate(t, p, drivers.ForRead, "#red").Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	if b.Dx() != 40 || b.Dy() != 30 {
		t.Errorf("size %v", b)
	}
	r, g, bl, _ := img.At(b.Min.X+b.Dx()/2, b.Min.Y+b.Dy()/2).RGBA()
	if r>>8 != 255 || g>>8 != 0 || bl>>8 != 0 {
		t.Errorf("centre pixel = %d,%d,%d, want red", r>>8, g>>8, bl>>8)
	}
}

// TestLocateOnBusyPage: a locate whose wait runs out while the page's
// script is busy (a long task) says the page did not answer, as a timeout,
// not that no element matches (which sent people looking for a wrong
// selector: TestBigTable under load said `no element matches "#big"`).
// On the old code the message was "no element matches".
func TestLocateOnBusyPage(t *testing.T) {
	p := open(t, "basic.html")
	// a long task of 3 s, started after this evaluation came back
	if _, err := p.Eval(tctx(t, 5*time.Second), `() => { setTimeout(() => { const end = Date.now() + 3000; while (Date.now() < end); }, 0); return true; }`); err != nil {
		t.Fatal(err)
	}
	_, _, err := p.Locate(tctx(t, 300*time.Millisecond), []string{"#go"}, drivers.ForPointer)
	if kindOf(err) != core.KindTimeout || !strings.Contains(err.Error(), `the page did not answer while looking for "#go" (its script stayed busy for the whole wait)`) {
		t.Fatalf("err = %v (kind %q), want a timeout saying the page did not answer", err, kindOf(err))
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err does not wrap the deadline: %v", err)
	}
}
