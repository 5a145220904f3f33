package rod_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/launcher/flags"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
)

// plainRod starts a second browser driven by rod with its defaults, for
// comparison in the same run.
func plainRod(b *testing.B) *rod.Browser {
	b.Helper()
	bin, err := rodd.FindBrowser("")
	if err != nil {
		b.Skip(err)
	}
	args, _ := rodd.Args(drivers.LaunchOptions{UserDataDir: filepath.Join(b.TempDir(), "plain")})
	l := launcher.New().Bin(bin).Leakless(false)
	for _, a := range args {
		k, v, _ := cut(a[2:])
		if v == "" {
			l.Set(flags.Flag(k))
		} else {
			l.Set(flags.Flag(k), v)
		}
	}
	u, err := l.Launch()
	if err != nil {
		b.Fatal(err)
	}
	br := rod.New().ControlURL(u)
	if err := br.Connect(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = br.Close(); l.Kill() })
	return br
}

func BenchmarkLocateClick(b *testing.B) {
	ctx := context.Background()
	b.Run("rpa", func(b *testing.B) {
		p, err := testBrowser.NewPage(ctx, url("basic.html"))
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			el, _, err := p.Locate(ctx, []string{"#go"}, drivers.ForPointer)
			if err != nil {
				b.Fatal(err)
			}
			if err := el.Click(ctx, "left", 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rod-defaults", func(b *testing.B) {
		br := plainRod(b)
		p := br.MustPage(url("basic.html")).MustWaitLoad()
		defer p.Close()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			p.MustElement("#go").MustClick()
		}
	})
}

// BenchmarkFlow is the reference flow: sign in, choose a region, press
// Query (data.json answers after 150 ms), read the 50-row table; a new tab
// per flow.
func BenchmarkFlow(b *testing.B) {
	ctx := context.Background()
	b.Run("rpa", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := rpaFlow(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rod-defaults", func(b *testing.B) {
		br := plainRod(b)
		for i := 0; i < b.N; i++ {
			p := br.MustPage(url("login.html")).MustWaitLoad()
			p.MustElement("#user").MustInput("ada")
			p.MustElement("#password").MustInput("secret")
			p.MustElement("#signin").MustClick()
			p.MustWaitLoad()
			p.MustElement("#region").MustSelect("North")
			p.MustElement("#query").MustClick()
			p.MustElement(`body[data-result="rows:50"]`)
			rows := p.MustElements("#data tbody tr")
			n := 0
			for _, r := range rows {
				for _, c := range r.MustElements("td") {
					_ = c.MustText()
					n++
				}
			}
			if n != 150 {
				b.Fatalf("%d cells", n)
			}
			p.MustClose()
		}
	})
}

func rpaFlow(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	p, err := testBrowser.NewPage(ctx, url("login.html"))
	if err != nil {
		return err
	}
	defer p.Close()
	step := func(sel string, want drivers.Checks, do func(drivers.Element) error) error {
		el, _, err := p.Locate(ctx, []string{sel}, want)
		if err != nil {
			return err
		}
		return do(el)
	}
	if err := step("#user", drivers.ForInput, func(e drivers.Element) error { return e.Fill(ctx, "ada") }); err != nil {
		return err
	}
	if err := step("#password", drivers.ForInput, func(e drivers.Element) error { return e.Fill(ctx, "secret") }); err != nil {
		return err
	}
	if err := step("#signin", drivers.ForPointer, func(e drivers.Element) error { return e.Click(ctx, "left", 1) }); err != nil {
		return err
	}
	if err := p.WaitURL(ctx, "query.html"); err != nil {
		return err
	}
	if err := step("#region", drivers.ForInput, func(e drivers.Element) error { return e.Select(ctx, "North", "") }); err != nil {
		return err
	}
	if err := step("#query", drivers.ForPointer, func(e drivers.Element) error { return e.Click(ctx, "left", 1) }); err != nil {
		return err
	}
	var g *drivers.Grid
	if err := step("#data tbody tr", drivers.ForRead, func(drivers.Element) error { return nil }); err != nil {
		return err
	}
	if err := step("#data", drivers.ForRead, func(e drivers.Element) (err error) { g, err = e.Table(ctx); return err }); err != nil {
		return err
	}
	if len(g.Body) != 50 {
		return fmt.Errorf("%d rows", len(g.Body))
	}
	return nil
}

func TestReferenceFlow(t *testing.T) {
	if err := rpaFlow(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func cut(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '=' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// BenchmarkSplitGrid is `table` on a 500-row grid split across tables
// (splitgrid.html's #g-full: header, body and two full fixed copies, so
// 1,500 rows in the DOM): locate and read, per op.
func BenchmarkSplitGrid(b *testing.B) {
	ctx := context.Background()
	p, err := testBrowser.NewPage(ctx, url("splitgrid.html?rows=500&ms=0"))
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := p.WaitState(wctx, []string{"#g-full td"}, drivers.StateVisible); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		el, _, err := p.Locate(ctx, []string{"#g-full"}, drivers.ForRead)
		if err != nil {
			b.Fatal(err)
		}
		g, err := el.Table(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(g.Body) != 500 {
			b.Fatalf("%d rows", len(g.Body))
		}
	}
}

// BenchmarkFill is one fill of the demo flow's kind (locate a text field,
// fill it), alternating two values so every fill changes the field: the
// cost of `fill` with its focus hold, text guard and value check.
func BenchmarkFill(b *testing.B) {
	ctx := context.Background()
	p, err := testBrowser.NewPage(ctx, url("basic.html"))
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	vals := []string{"admin", "demo-pass-42"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		el, _, err := p.Locate(ctx, []string{"#name"}, drivers.ForInput)
		if err != nil {
			b.Fatal(err)
		}
		if err := el.Fill(ctx, vals[i%2]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFillVerify is what the value check adds to every fill (its
// goal is 2 ms at most): fill's closing check alone (rodd.VerifyFill: a
// round trip that lets the page react for a tick and compares the value
// and the focus) on the demo flow's kind of field, which holds the value.
// Compare with BenchmarkFill, the whole fill.
func BenchmarkFillVerify(b *testing.B) {
	ctx := context.Background()
	p, err := testBrowser.NewPage(ctx, url("basic.html"))
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	el, _, err := p.Locate(ctx, []string{"#name"}, drivers.ForInput)
	if err != nil {
		b.Fatal(err)
	}
	if err := el.Fill(ctx, "admin"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ok, err := rodd.VerifyFill(ctx, el, "admin")
		if err != nil || !ok {
			b.Fatalf("check: %v, %v", ok, err)
		}
	}
}
