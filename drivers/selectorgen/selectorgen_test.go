package selectorgen_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/drivers/selectorgen"
)

var update = flag.Bool("update", false, "rewrite testdata/selectors.golden")

var (
	browser drivers.Browser
	srv     *httptest.Server
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "rpa-selgen-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	srv = httptest.NewServer(http.FileServer(http.Dir("../../testdata/pages")))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := rodd.New().Launch(ctx, drivers.LaunchOptions{UserDataDir: filepath.Join(dir, "profile")})
	if err != nil {
		fmt.Fprintln(os.Stderr, "launch:", err)
		return 1
	}
	browser = b
	defer b.Close()
	return m.Run()
}

// findJS finds the element matching CSS a[0] in the document or any open
// shadow root.
const findJS = `((s) => { const walk = (r) => { const e = r.querySelector(s); if (e) return e;
  for (const h of r.querySelectorAll('*')) if (h.shadowRoot) { const x = walk(h.shadowRoot); if (x) return x; }
  return null; }; return walk(document); })(a[0])`

type genCase struct {
	page   string
	frames [][]string // iframes to enter, outermost first
	seed   string     // CSS of the element (open shadow roots searched too)
	first  string     // the expected best selector
	gone   string     // wait for this element to leave first (the page changes its structure)
}

var cases = []genCase{
	{page: "basic.html", seed: "#name", first: "#name"},
	{page: "basic.html", seed: "#go", first: "#go"},
	{page: "basic.html", seed: "#next", first: "#next"},
	{page: "dynamic.html", seed: "[name=email]", first: `[data-testid="email"]`},
	{page: "dynamic.html", seed: "[data-testid=save]", first: `[data-testid="save"]`},
	{page: "dynamic.html", seed: `[aria-label="Close dialog"]`, first: `aria/Close dialog[role="button"]`},
	{page: "dynamic.html", seed: "[name=phone]", first: `input[name="phone"]`},
	{page: "dynamic.html", seed: "img", first: `aria/Company logo[role="img"]`},
	{page: "form.html", seed: "input[name=size][value=l]", first: `input[name="size"][value="l"]`},
	{page: "form.html", seed: "input[name=topics][value=sport]", first: `input[name="topics"][value="sport"]`},
	{page: "form.html", seed: "#f-submit", first: "#f-submit"},
	{page: "login.html", seed: "#password", first: "#password"},
	{page: "overlay.html", seed: ".card-link", first: `aria/Open card[role="link"]`, gone: "#spinner"},
	{page: "table.html", seed: "#report tbody tr:nth-child(2) td:nth-child(2)", first: ""},
	{page: "i18n.html", seed: "#note", first: "#note"},
	{page: "shadow.html", seed: ".btn", first: "pierce/button.btn"},
	{page: "frames.html", frames: [][]string{{"#shop-frame"}, {"iframe[name=coupon]"}}, seed: "#coupon", first: "#coupon"},
	{page: "frames.html", frames: [][]string{{"#shop-frame"}, {"iframe[name=coupon]"}}, seed: "#apply", first: "#apply"},
}

// TestSelectorsOnHardPages computes the fallback list of elements of the
// project's hard pages in real Chromium and checks, through drivers/rod's
// engine (the one replay uses), that every selector matches exactly one
// element and that it is the element the list was made for. The lists
// are kept in testdata/selectors.golden (-update to refresh).
func TestSelectorsOnHardPages(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	var golden strings.Builder
	pages := map[string]drivers.Page{}
	defer func() {
		for _, p := range pages {
			_ = p.Close()
		}
	}()
	for i, c := range cases {
		pg := pages[c.page]
		if pg == nil {
			var err error
			if pg, err = browser.NewPage(ctx, srv.URL+"/"+c.page); err != nil {
				t.Fatal(err)
			}
			pages[c.page] = pg
		}
		var f drivers.Frame = pg
		for _, fs := range c.frames {
			fctx, fcancel := context.WithTimeout(ctx, 10*time.Second)
			child, err := f.Frame(fctx, fs)
			fcancel()
			if err != nil {
				t.Fatalf("%s: frame %v: %v", c.page, fs, err)
			}
			f = child
		}
		if c.gone != "" {
			if _, err := f.WaitState(ctx, []string{c.gone}, drivers.StateDetached); err != nil {
				t.Fatalf("%s: %s did not leave: %v", c.page, c.gone, err)
			}
		}
		// wait for late elements (frames.html builds its frames later)
		if _, _, err := f.Locate(ctx, []string{"pierce/" + c.seed}, drivers.Attached); err != nil {
			t.Fatalf("%s %s: %v", c.page, c.seed, err)
		}
		tg, err := selectorgen.Of(ctx, f, findJS, 0, c.seed)
		if err != nil || tg == nil {
			t.Fatalf("%s %s: target %v, %v", c.page, c.seed, tg, err)
		}
		fmt.Fprintf(&golden, "%s %s\n  desc: %s\n  frames: %q\n", c.page, c.seed, tg.Desc, tg.Frames)
		for _, s := range tg.Selectors {
			fmt.Fprintf(&golden, "  %s\n", s)
		}
		if len(tg.Selectors) < 2 {
			t.Errorf("%s %s: only %q", c.page, c.seed, tg.Selectors)
		}
		if c.first != "" && (len(tg.Selectors) == 0 || tg.Selectors[0] != c.first) {
			t.Errorf("%s %s: best selector %q, want %q (all: %q)", c.page, c.seed, first(tg.Selectors), c.first, tg.Selectors)
		}
		if len(c.frames) != len(tg.Frames) {
			t.Errorf("%s %s: frame path %q, want %d frames", c.page, c.seed, tg.Frames, len(c.frames))
		}
		// mark the element, then resolve each selector with the engine
		mark := fmt.Sprintf("p%d", i)
		if _, err := f.Eval(ctx, `(...a) => { const el = `+findJS+`; el.setAttribute('data-probe', a[1]); return true; }`, c.seed, mark); err != nil {
			t.Fatal(err)
		}
		for _, s := range tg.Selectors {
			n, err := f.Count(ctx, s)
			if err != nil || n != 1 {
				t.Errorf("%s %s: %s matches %d elements (%v)", c.page, c.seed, s, n, err)
				continue
			}
			el, _, err := f.Locate(ctx, []string{s}, drivers.Attached)
			if err != nil {
				t.Errorf("%s %s: locate %s: %v", c.page, c.seed, s, err)
				continue
			}
			if got, _, _ := el.Attr(ctx, "data-probe"); got != mark {
				// text= may pick an inner element of a button: accept a descendant
				inside, _ := f.Eval(ctx, `(...a) => { const el = `+findJS+`; return !!el.querySelector('[data-probe]') || el.closest('[data-probe="'+a[1]+'"]') !== null; }`, s, mark)
				if inside != true {
					t.Errorf("%s %s: %s finds another element (%s)", c.page, c.seed, s, el.Describe(ctx))
				}
			}
		}
		// the frame path resolves from the top document
		if len(tg.Frames) == len(c.frames) && len(c.frames) > 0 {
			var cur drivers.Frame = pg
			for _, fs := range tg.Frames {
				fctx, fcancel := context.WithTimeout(ctx, 10*time.Second)
				child, err := cur.Frame(fctx, fs)
				fcancel()
				if err != nil {
					t.Errorf("%s %s: frame path %q: %v", c.page, c.seed, fs, err)
					break
				}
				cur = child
			}
		}
	}
	path := filepath.Join("testdata", "selectors.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(golden.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != golden.String() {
		t.Errorf("selectors differ from %s (-update to refresh):\n%s", path, golden.String())
	}
}

// TestSelectorsTrackTheDocument: after the page changes so that a
// candidate is no longer unique, the next computation leaves it out.
func TestSelectorsTrackTheDocument(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pg, err := browser.NewPage(ctx, srv.URL+"/basic.html")
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	before, err := selectorgen.Of(ctx, pg, findJS, 0, "#go")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(before.Selectors, `text="Greet"`) || !slices.Contains(before.Selectors, `aria/Greet[role="button"]`) {
		t.Fatalf("before: %q", before.Selectors)
	}
	// a second "Greet" button makes text= and aria/ ambiguous
	if _, err := pg.Eval(ctx, `() => { const b = document.createElement('button'); b.textContent = 'Greet'; document.body.appendChild(b); return 1; }`); err != nil {
		t.Fatal(err)
	}
	after, err := selectorgen.Of(ctx, pg, findJS, 0, "#go")
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(after.Selectors, `text="Greet"`) || slices.Contains(after.Selectors, `aria/Greet[role="button"]`) || after.Selectors[0] != "#go" {
		t.Errorf("after: %q", after.Selectors)
	}
	none, err := selectorgen.Of(ctx, pg, findJS, 0, "#nothing-here")
	if err != nil || none != nil {
		t.Errorf("missing element: %v, %v", none, err)
	}
}

func first(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	return ss[0]
}

// TestPositional: selectors that name an element by its place.
func TestPositional(t *testing.T) {
	for sel, want := range map[string]bool{
		"xpath=/html/body/div[1]/button":  true,
		"xpath=//*[@id='main']/div[2]/a":  true,
		"//form/input[2]":                 true,
		"div:nth-of-type(2) > button":     true,
		"pierce/li:nth-child(3)":          true,
		"xpath=//button[@name='go']":      false,
		"#submit":                         false,
		`input[name="q"]`:                 false,
		`aria/Query[role="button"]`:       false,
		"fieldset > button":               false,
		`text="Row [2]"`:                  false,
		`[data-testid="row-2"]`:           false,
		"xpath=//td[text()='a[1]']/../td": true, // a position-looking text counts: erring towards last
	} {
		if got := selectorgen.Positional(sel); got != want {
			t.Errorf("Positional(%q) = %v, want %v", sel, got, want)
		}
	}
}
