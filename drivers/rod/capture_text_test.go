package rod_test

import (
	"bytes"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
)

// textPage prints the secret (query k) in page text: a paragraph, an open
// shadow root and a same-origin frame.
func textServer(t *testing.T) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := html.EscapeString(r.URL.Query().Get("k"))
		if r.URL.Path == "/inner" {
			fmt.Fprintf(w, `<!doctype html><body style="font: 16px sans-serif"><p>Inner: %s</p></body>`, k)
			return
		}
		fmt.Fprintf(w, `<!doctype html><html><body style="font: 16px sans-serif">
<h1>Welcome</h1><p id="k">Your key: <b>%s</b> (keep it)</p>
<div id="host"></div>
<iframe id="f" src="/inner?k=%s" width="400" height="60"></iframe>
<script>document.getElementById("host").attachShadow({mode: "open"}).innerHTML = "<span>Shadow: " + %q + "</span>";</script>
</body></html>`, k, k, r.URL.Query().Get("k"))
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// TestCaptureHidesSecretText: a page that prints a secret in its text
// (a paragraph, an open shadow root, a same-origin frame) gives
// byte-identical pictures for two secrets of one length under
// drivers.Capture, different ones plainly; the text is back after it.
func TestCaptureHidesSecretText(t *testing.T) {
	base := textServer(t)
	shot := func(secret string, masked bool) []byte {
		ctx := tctx(t, 30*time.Second)
		p, err := testBrowser.NewPage(ctx, base+"/?k="+secret)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		inner, err := p.Frame(ctx, []string{"#f"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := inner.Eval(ctx, `() => document.body.innerText`); err != nil {
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
		v, err := p.Eval(ctx, `() => document.getElementById("k").textContent + "|" + document.getElementById("host").shadowRoot.textContent`)
		if want := "Your key: " + secret + " (keep it)|Shadow: " + secret; err != nil || v != want {
			t.Fatalf("text after the capture = %v, %v; want %q", v, err, want)
		}
		return png
	}
	a, b := "Zq7-SECRETVAL-k9", "Xw2-OTHERKEYS-m4"
	if bytes.Equal(shot(a, false), shot(b, false)) {
		t.Fatal("plain screenshots of two secrets are identical: the page does not show its text")
	}
	if !bytes.Equal(shot(a, true), shot(b, true)) {
		t.Fatal("masked screenshots differ: a secret in the page text reaches the pixels")
	}
}
