package rod_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/launcher"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
)

// The hard-page classes of issue 13, each on its own testdata page.

// clickAll clicks each selector in turn (located with the pointer checks).
func clickAll(t *testing.T, f drivers.Frame, sels ...string) {
	t.Helper()
	for _, s := range sels {
		click(t, f, s)
	}
}

func TestStickyBarsAndScrollContainers(t *testing.T) {
	p := open(t, "sticky.html")
	// row 30 and 31 sit under the sticky bar, row 43 under the fixed
	// footer; #deep is below the folds of two nested scroll boxes, #wide
	// scrolled out of a horizontal one.
	clickAll(t, p, "#row-30 button", "#row-31 button", "#row-43 button", "#deep", "#wide")
	waitResult(t, p, "clicked:Row 30,Row 31,Row 43,deep,wide")
	if got := text(t, p, "#bar-hits"); got != "0" {
		t.Errorf("bar hits = %s", got)
	}
	// A cover that never goes is still reported, naming it.
	v, err := p.Eval(tctx(t, 5*time.Second), `() => { const d = document.createElement('div'); d.id = 'wall';
		d.style.cssText = 'position:fixed;inset:0;z-index:99'; document.body.appendChild(d); return 1 }`)
	if err != nil || v == nil {
		t.Fatal(err)
	}
	_, _, err = p.Locate(tctx(t, 800*time.Millisecond), []string{"#row-50 button"}, drivers.ForPointer)
	if core.KindOf(err) != core.KindCovered || !strings.Contains(err.Error(), "covered by div#wall") {
		t.Fatalf("under a full-page wall: %v", err)
	}
}

func TestVirtualisedGrid(t *testing.T) {
	p := open(t, "grid.html")
	// row 10's node exists (overscan) but is clipped by the grid; the
	// scroll re-renders and recycles the row nodes.
	click(t, p, `.gr[data-row="10"] .open`)
	waitResult(t, p, "open:Item 0010")
	if got := text(t, p, `text=Item 0012`); got != "Item 0012" {
		t.Errorf("text = %q", got)
	}
	click(t, p, `text=Item 0014`) // the row's name span
	el := locate(t, p, drivers.ForRead, "#tbox")
	if err := el.ScrollContent(tctx(t, 5*time.Second), "bottom"); err != nil {
		t.Fatal(err)
	}
	ctx := tctx(t, 10*time.Second)
	var first string
	for ctx.Err() == nil {
		g, err := locate(t, p, drivers.ForRead, "#page").Table(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Body) == 8 {
			first = g.Body[0][0].Text
			if first == "33" {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if first != "33" {
		t.Errorf("virtualised table after scrolling starts at %q, want 33", first)
	}
}

func TestClickLandsWhereAimed(t *testing.T) {
	t.Run("stylesheet arrives after locate", func(t *testing.T) {
		p := open(t, "latecss.html?ms=400")
		el := locate(t, p, drivers.ForPointer, "#save")
		// wait for the late stylesheet: #save moved 200 px down
		ctx := tctx(t, 10*time.Second)
		for ctx.Err() == nil {
			v, err := p.Eval(ctx, `() => document.getElementById('banner').offsetHeight`)
			if err == nil && v == float64(200) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err := el.Click(tctx(t, 10*time.Second), "left", 1); err != nil {
			t.Fatal(err)
		}
		waitResult(t, p, "saved")
		if got := text(t, p, "#decoy-hits"); got != "0" {
			t.Errorf("decoy hits = %s", got)
		}
	})
	t.Run("layout shifts between aim and press", func(t *testing.T) {
		// the first mouse move inserts the banner: the press would land on
		// Delete; it is stopped in the page and the click aimed again
		p := open(t, "latecss.html?shift=move&ms=60000")
		click(t, p, "#save")
		waitResult(t, p, "saved")
		if got := text(t, p, "#decoy-hits"); got != "0" {
			t.Errorf("decoy hits = %s", got)
		}
	})
	t.Run("flow-like: click right after open", func(t *testing.T) {
		p := open(t, "latecss.html?ms=400")
		click(t, p, "#save")
		waitResult(t, p, "saved")
	})
}

func TestStyledToggles(t *testing.T) {
	p := open(t, "toggles.html")
	ctx := tctx(t, 20*time.Second)
	for _, id := range []string{"#terms", "#news", "#dark", "#alerts", "#promo", "#plan-pro"} {
		el := locate(t, p, drivers.ForPointer, id)
		if err := el.Click(ctx, "left", 1); err != nil {
			t.Fatalf("click %s: %v", id, err)
		}
		if on, err := el.Checked(ctx); err != nil || !on {
			t.Fatalf("%s checked = %v, %v", id, on, err)
		}
	}
	waitResult(t, p, "terms,news,dark,alerts,promo,plan=pro")
	// and off again
	el := locate(t, p, drivers.ForPointer, "#news")
	if err := el.Click(ctx, "left", 1); err != nil {
		t.Fatal(err)
	}
	waitResult(t, p, "terms,dark,alerts,promo,plan=pro")
	got, err := p.Form(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"terms": true, "news": false, "dark": true, "alerts": true, "promo": true, "plan": "pro"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("form = %v, want %v", got, want)
	}
}

func TestCascadingSelects(t *testing.T) {
	p := open(t, "cascade.html")
	ctx := tctx(t, 20*time.Second)
	for _, c := range []struct{ sel, v, by string }{{"#country", "Germany", ""}, {"#region", "by", "value"}, {"#city", "Late Town", "label"}} {
		if err := locate(t, p, drivers.ForInput, c.sel).Select(ctx, c.v, c.by); err != nil {
			t.Fatalf("select %s %s: %v", c.sel, c.v, err)
		}
	}
	waitResult(t, p, "de/by/late")
	sctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	err := locate(t, p, drivers.ForInput, "#city").Select(sctx, "Atlantis", "")
	if core.KindOf(err) != core.KindNotFound || !strings.Contains(err.Error(), `no option matches "Atlantis"`) ||
		!strings.Contains(err.Error(), `"late" (Late Town)`) {
		t.Errorf("missing option (the options listed by value and label): %v", err)
	}
}

func TestTextNormalisation(t *testing.T) {
	p := open(t, "invisible.html")
	ctx := tctx(t, 20*time.Second)
	if got := text(t, p, "#title"); got != "Offene Rechnungen" {
		t.Errorf("title = %q", got)
	}
	g, err := locate(t, p, drivers.ForRead, "#inv").Table(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cells := func(rows [][]drivers.Cell) [][]string {
		var out [][]string
		for _, r := range rows {
			var line []string
			for _, c := range r {
				line = append(line, c.Text)
			}
			out = append(out, line)
		}
		return out
	}
	if got, want := cells(g.Head), [][]string{{"Rechnungsnummer", "Betrag (EUR)", "Status"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("head = %q, want %q", got, want)
	}
	if got, want := cells(g.Body), [][]string{{"A-2024-0001", "1 200,00", ""}, {"A-2024-0002", "35,50", "offen"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("body = %q, want %q", got, want)
	}
	click(t, p, "text=A-2024-0002")
	waitResult(t, p, "row:A-2")
	click(t, p, `text="Jetzt bezahlen"`)
	waitResult(t, p, "paid")
	if err := locate(t, p, drivers.ForInput, "#bank").Select(ctx, "Volks bank", "label"); err != nil {
		t.Fatal(err)
	}
	waitResult(t, p, "bank:v")
	f, err := p.Form(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f["ref"] != "RE-77 A" {
		t.Errorf("form ref = %q", f["ref"])
	}
	if err := p.WaitText(ctx, "Offene Rechnungen"); err != nil {
		t.Error(err)
	}
	if body, _ := p.Text(ctx); strings.ContainsAny(body, "\u200b\u200c\u200d\ufeff\u00ad\u00a0") {
		t.Errorf("page text keeps invisible characters: %q", body)
	}
}

// isolated is a Chromium started as a person or a remote pool runs it:
// site isolation on (its default; no rod flags), attached over DevTools.
var isolated struct {
	once sync.Once
	ws   string
	err  error
	stop func()
}

func isolatedWS(t *testing.T) string {
	t.Helper()
	isolated.once.Do(func() {
		isolated.ws, isolated.stop, isolated.err = startIsolated()
	})
	if isolated.err != nil {
		t.Fatalf("isolated chromium: %v", isolated.err)
	}
	return isolated.ws
}

// startIsolated starts a Chromium with site isolation on and returns its
// DevTools WebSocket URL and a func that kills it (process group) and
// removes its profile.
func startIsolated() (string, func(), error) {
	bin, err := rodd.FindBrowser("")
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "rpa-isolated-")
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(bin, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--remote-debugging-port=0", "--user-data-dir="+filepath.Join(dir, "profile"), "about:blank")
	rodd.SetProcessGroup(cmd)
	parser := launcher.NewURLParser()
	cmd.Stderr = parser
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, err
	}
	stop := func() {
		rodd.KillProcessGroup(cmd)
		_ = cmd.Wait()
		_ = os.RemoveAll(dir)
	}
	select {
	case u := <-parser.URL:
		ws, err := launcher.ResolveURL(u)
		if err != nil {
			stop()
			return "", nil, err
		}
		return ws, stop, nil
	case <-time.After(30 * time.Second):
		stop()
		return "", nil, context.DeadlineExceeded
	}
}

// stopIsolated ends the site-isolated Chromium (TestMain).
func stopIsolated() {
	if isolated.stop != nil {
		isolated.stop()
	}
}

func TestSiteIsolatedFrames(t *testing.T) {
	ws := isolatedWS(t)
	ctx := tctx(t, 60*time.Second)
	b, err := rodd.New().Launch(ctx, drivers.LaunchOptions{Remote: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, mode := range []string{"same-origin", "cross-site"} {
		t.Run(mode, func(t *testing.T) {
			page := url("frames.html")
			if mode == "cross-site" {
				page += "?xorigin=" + strings.Replace(srv2.URL, "127.0.0.1", "localhost", 1) + "/"
			}
			p, err := b.NewPage(ctx, page)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			shop, err := p.Frame(ctx, []string{"#shop-frame"})
			if err != nil {
				t.Fatal(err)
			}
			coupon, err := shop.Frame(ctx, []string{"iframe[name=coupon]"})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := rodd.IsOutOfProcess(coupon), mode == "cross-site"; got != want {
				t.Errorf("coupon frame out of process = %v, want %v", got, want)
			}
			fill(t, coupon, "#coupon", "SAVE-2024")
			click(t, coupon, "text=Apply")
			waitResult(t, p, "applied:SAVE-2024")
			if got := text(t, coupon, "#msg"); got != "Coupon SAVE-2024 applied" {
				t.Errorf("msg = %q", got)
			}
		})
	}
}
