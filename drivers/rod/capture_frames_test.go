package rod_test

import (
	"bytes"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
)

// TestCaptureHidesSecretInCrossOriginFrames: a secret shown by frames of
// other origins — another port (same site, same process), another site
// (out of process), and one whose document never finishes loading (it
// cannot be entered: hidden instead) — gives byte-identical pictures for two
// secrets of one length under drivers.Capture; the page is as it was after.
func TestCaptureHidesSecretInCrossOriginFrames(t *testing.T) {
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := html.EscapeString(r.URL.Query().Get("k"))
		if r.URL.Path == "/hang" {
			fmt.Fprintf(w, `<!doctype html><body style="font: 16px sans-serif"><p>Loading: %s</p>`, k)
			w.(http.Flusher).Flush()
			<-r.Context().Done() // never ends the document
			return
		}
		fmt.Fprintf(w, `<!doctype html><body style="font: 16px sans-serif"><p>Code: %s</p><input id="i" value="%s"></body>`, k, k)
	}))
	defer inner.Close()
	crossSite := strings.Replace(inner.URL, "127.0.0.1", "localhost", 1)
	outer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := r.URL.Query().Get("k")
		fmt.Fprintf(w, `<!doctype html><body style="font: 16px sans-serif"><h1>Portal</h1>
<iframe id="xo" src="%s/inner?k=%s" width="300" height="80"></iframe>
<iframe id="xs" src="%s/inner?k=%s" width="300" height="80"></iframe>
<iframe id="hang" src="%s/hang?k=%s" width="300" height="80" style="border: 2px solid red"></iframe>
</body>`, inner.URL, k, crossSite, k, inner.URL, k)
	}))
	defer outer.Close()

	shot := func(secret string, masked bool) []byte {
		ctx := tctx(t, 30*time.Second)
		p, err := testBrowser.NewPage(ctx, outer.URL+"/?k="+secret)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		for _, id := range []string{"#xo", "#xs"} {
			f, err := p.Frame(ctx, []string{id})
			if err != nil {
				t.Fatal(err)
			}
			if err := f.WaitText(ctx, "Code: "+secret); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(300 * time.Millisecond) // the hanging frame paints its first text
		var png []byte
		if masked {
			png, err = drivers.Capture(ctx, p, nil, false, drivers.SecretValues([]string{secret}))
		} else {
			png, err = p.Screenshot(ctx, false)
		}
		if err != nil {
			t.Fatal(err)
		}
		v, err := p.Eval(ctx, `() => [document.querySelectorAll("[data-rpa-mask]").length, document.getElementById("hang").getAttribute("style")].join("|")`)
		if want := "0|border: 2px solid red"; err != nil || v != want {
			t.Errorf("page after the capture: %v, %v; want %q", v, err, want)
		}
		f, err := p.Frame(ctx, []string{"#xs"})
		if err != nil {
			t.Fatal(err)
		}
		if v, err := f.Eval(ctx, `() => document.getElementById("i").value + "|" + document.querySelectorAll("[data-rpa-mask]").length`); err != nil || v != secret+"|0" {
			t.Errorf("cross-site frame after the capture: %v, %v", v, err)
		}
		return png
	}
	a, b := "Zq7-SECRETVAL-k9", "Xw2-OTHERKEYS-m4"
	if bytes.Equal(shot(a, false), shot(b, false)) {
		t.Fatal("plain screenshots of two secrets are identical: the frames do not show it")
	}
	if !bytes.Equal(shot(a, true), shot(b, true)) {
		t.Fatal("masked screenshots differ: a secret in a cross-origin frame reaches the pixels")
	}
}
