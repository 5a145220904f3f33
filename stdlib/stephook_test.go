package stdlib_test

import (
	"bytes"
	"context"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

// TestStepHookChromium: interp's StepHook in real Chromium. Paused before
// the click, the page has not been clicked, the fill's argument and the
// param are *** (args and scopes), and the step's picture masks the field
// holding the secret (it differs from the driver's plain screenshot of
// the same moment); after the click the page shows it.
func TestStepHookChromium(t *testing.T) {
	if browser == nil {
		t.Skip("RPA_SKIP_BROWSER set")
	}
	const secret = "hunter2-very-secret"
	f, ds := lang.Load("t.flow", []byte("flow t\nparam base: string\nparam pw: secret\nopen \"{{ base }}/form.html\"\nfill \"#typed\" pw\nclick \"#news\"\nn = text \"#clicks\"\nreturn n\n"))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	args, err := f.CheckArgs(map[string]any{"base": srv.URL, "pw": secret})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	var fillArgs string
	var atClick struct {
		clicks   any
		vars     string
		pic, raw []byte
	}
	hook := func(hctx context.Context, st *interp.Step) error {
		if st.Phase != interp.StepBefore {
			return nil
		}
		switch st.Line {
		case 5:
			fillArgs = jsonOf(st.Args)
		case 6:
			pages, err := browser.Pages(hctx)
			if err != nil {
				return err
			}
			for _, p := range pages {
				if u, _ := p.URL(hctx); strings.HasSuffix(u, "/form.html") {
					atClick.clicks, _ = p.Eval(hctx, `() => document.getElementById("clicks").textContent`)
					atClick.raw, _ = p.Screenshot(hctx, false)
				}
			}
			atClick.vars = jsonOf(st.Scopes())
			atClick.pic, err = st.Picture(hctx)
			return err
		}
		return nil
	}
	res, last := interp.Run(ctx, f, interp.Options{Args: args, Browser: browser, StepHook: hook})
	if last != nil {
		defer last.Close()
	}
	if !res.Success {
		t.Fatalf("failed: %+v%s", res.Error, steps(res))
	}
	if jsonOf(res.Outputs) != `"1"` {
		t.Errorf("outputs %s, want the one click", jsonOf(res.Outputs))
	}
	if fillArgs != `["#typed","***"]` {
		t.Errorf("fill's args %s", fillArgs)
	}
	if atClick.clicks != "0" {
		t.Errorf("paused before the click, the page shows %v clicks", atClick.clicks)
	}
	if !strings.Contains(atClick.vars, `{"Name":"pw","Value":"***"}`) || strings.Contains(atClick.vars, secret) {
		t.Errorf("scopes %s", atClick.vars)
	}
	img, err := png.Decode(bytes.NewReader(atClick.pic))
	if err != nil || img.Bounds().Dx() < 100 {
		t.Fatalf("picture: %v (%d bytes)", err, len(atClick.pic))
	}
	if len(atClick.raw) == 0 || bytes.Equal(atClick.raw, atClick.pic) {
		t.Errorf("the step's picture is the plain screenshot: the secret field was not masked")
	}
}
