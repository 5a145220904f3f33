package rod_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
)

// maskPage has a secret in an ordinary text field, a password field, a
// textarea and a same-origin iframe's field.
const maskPage = `<!doctype html><html><body style="font: 16px sans-serif">
<form><label>User <input id="user" value="ada"></label><br>
<label>Token <input id="token" type="text"></label><br>
<label>Password <input id="pw" type="password"></label><br>
<textarea id="note" rows="2" cols="40"></textarea></form>
<iframe id="f" src="/inner" width="400" height="60"></iframe>
</body></html>`

const maskInner = `<!doctype html><body><input id="deep" size="30"></body>`

func maskServer(t *testing.T) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/inner" {
			fmt.Fprint(w, maskInner)
			return
		}
		fmt.Fprint(w, maskPage)
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// capture fills secret into every field of a fresh tab and takes a
// picture: masked (drivers.Capture) or plain.
func captureWith(t *testing.T, base, secret string, masked bool) []byte {
	t.Helper()
	ctx := tctx(t, 30*time.Second)
	p, err := testBrowser.NewPage(ctx, base+"/")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	fill(t, p, "#token", secret)
	fill(t, p, "#pw", secret)
	fill(t, p, "#note", "note: "+secret)
	inner, err := p.Frame(ctx, []string{"#f"})
	if err != nil {
		t.Fatal(err)
	}
	fill(t, inner, "#deep", secret)
	// Leave no focused field: a caret blinks on its own clock.
	if _, err := p.Eval(ctx, `() => { document.activeElement && document.activeElement.blur(); return 1 }`); err != nil {
		t.Fatal(err)
	}
	var png []byte
	if masked {
		png, err = drivers.Capture(ctx, p, nil, false, drivers.SecretValues([]string{secret}))
	} else {
		png, err = p.Screenshot(ctx, false)
	}
	if err != nil {
		t.Fatal(err)
	}
	// The fields have their values back.
	for _, sel := range []string{"#token", "#pw"} {
		v, err := locate(t, p, drivers.ForRead, sel).Value(ctx)
		if err != nil || v != secret {
			t.Fatalf("%s after the capture = %q, %v; want the value restored", sel, v, err)
		}
	}
	if v, _ := locate(t, inner, drivers.ForRead, "#deep").Value(ctx); v != secret {
		t.Fatalf("#deep after the capture = %q; want the value restored", v)
	}
	return png
}

// TestCaptureHidesSecrets: two pictures of the same page holding two
// different secrets of the same length are byte-identical when taken with
// drivers.Capture, and differ when taken plainly (the test can fail).
func TestCaptureHidesSecrets(t *testing.T) {
	base := maskServer(t)
	a, b := "alpha-7f3a9-zebra", "bravo-1c2d8-quail"
	if plainA, plainB := captureWith(t, base, a, false), captureWith(t, base, b, false); bytes.Equal(plainA, plainB) {
		t.Fatal("plain screenshots of two secrets are identical: the page does not show the fields")
	}
	ma, mb := captureWith(t, base, a, true), captureWith(t, base, b, true)
	if !bytes.Equal(ma, mb) {
		t.Fatal("masked screenshots differ: a secret reaches the pixels")
	}
}

// TestCaptureElement: an element's picture is masked too.
func TestCaptureElement(t *testing.T) {
	base := maskServer(t)
	shot := func(secret string) []byte {
		ctx := tctx(t, 30*time.Second)
		p, err := testBrowser.NewPage(ctx, base+"/")
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		fill(t, p, "#token", secret)
		_, _ = p.Eval(ctx, `() => { document.activeElement.blur(); return 1 }`)
		png, err := drivers.Capture(ctx, p, locate(t, p, drivers.ForRead, "form"), false, drivers.SecretValues([]string{secret}))
		if err != nil {
			t.Fatal(err)
		}
		return png
	}
	if !bytes.Equal(shot("secret-one-1"), shot("secret-two-2")) {
		t.Fatal("masked element screenshots differ")
	}
}
