package heal_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/runs/heal"
	"github.com/rpa-dev/rpa/lang"
)

// bigPage fills a tab with n elements, every one a candidate of a button's
// group (buttons and links in rows, with labels and wrappers), and returns
// the tab and the fingerprint of one button whose id is then renamed.
func bigPage(b *testing.B, n int) (drivers.Page, *drivers.Fingerprint) {
	ctx := context.Background()
	p, err := browser.NewPage(ctx, srv.URL+"/form.html")
	if err != nil {
		b.Fatal(err)
	}
	_, err = p.Eval(ctx, `(n) => {
		const m = document.getElementById('main');
		let h = '';
		for (let i = 0; i < n; i++) {
			h += i % 2 ? '<a href="/item/' + i + '" class="link l' + (i % 7) + '">Item ' + i + '</a>'
			           : '<div class="row"><button type="button" id="b' + i + '" class="btn b' + (i % 5) + '">Action ' + i + '</button></div>';
		}
		m.insertAdjacentHTML('beforeend', h);
	}`, n)
	if err != nil {
		b.Fatal(err)
	}
	el, _, err := p.Locate(ctx, []string{"#b1000"}, drivers.Attached)
	if err != nil {
		b.Fatal(err)
	}
	fp, err := p.(drivers.Healer).Fingerprint(ctx, el)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := p.Eval(ctx, `() => { document.getElementById('b1000').id = 'renamed'; }`); err != nil {
		b.Fatal(err)
	}
	return p, fp
}

// BenchmarkCandidates scores a page of 2,000 candidate elements against a
// fingerprint (one page evaluation, selectors of the best 5 included).
// Goal: under 50 ms per op.
func BenchmarkCandidates(b *testing.B) {
	needBrowser(b)
	p, fp := bigPage(b, 2000)
	defer p.Close()
	h := p.(drivers.Healer)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cs, err := h.Candidates(ctx, fp, 5, true)
		if err != nil {
			b.Fatal(err)
		}
		if len(cs) == 0 || cs[0].Fingerprint == nil || cs[0].Fingerprint.ID != "renamed" {
			b.Fatalf("best candidate %+v", cs)
		}
	}
}

// BenchmarkHealthyRun runs form.flow on the unchanged page with healing
// off and on (suggest: every locate fingerprints its element; marks kept
// in a run store), alternating so that the machine's load falls on both
// alike, and reports the mean run time of each and the overhead of on in
// percent. Goal: under 3%.
func BenchmarkHealthyRun(b *testing.B) {
	needBrowser(b)
	f := loadFlow(b, "../../../testdata/heal/form.flow")
	store := openStore(b)
	args := map[string]any{"url": srv.URL + "/form.html"}
	var off, on time.Duration
	for i := 0; i < b.N; i++ {
		for _, mode := range []heal.Mode{heal.Off, heal.Suggest} {
			t0 := time.Now()
			o := runFlow(b, f, args, mode, store, core.Host{})
			d := time.Since(t0)
			if !o.res.Success {
				b.Fatal(o.res.Error)
			}
			if mode == heal.Off {
				off += d
			} else {
				on += d
			}
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(off.Milliseconds())/n, "off-ms/run")
	b.ReportMetric(float64(on.Milliseconds())/n, "on-ms/run")
	b.ReportMetric(100*(float64(on)-float64(off))/float64(off), "overhead-%")
}

// BenchmarkHealedStep measures what healing adds to a step: form.flow
// with the README's element wait (10s), run on form.html and on
// m01-id-renamed.html (#customer renamed) in auto, alternating; it reports
// the healed step's time, the same step's time when its selector matches,
// and the difference. Goal (issue 22): under 2000 extra-ms (the page is
// scored once it has settled, not after the whole wait).
func BenchmarkHealedStep(b *testing.B) {
	needBrowser(b)
	src, err := os.ReadFile("../../../testdata/heal/form.flow")
	if err != nil {
		b.Fatal(err)
	}
	f, ds := lang.Load("form.flow", []byte(strings.Replace(string(src), "wait: 3s", "wait: 10s", 1)))
	if ds.HasErrors() {
		b.Fatal(ds)
	}
	store := openStore(b)
	if o := runFlow(b, f, map[string]any{"url": srv.URL + "/form.html"}, heal.Auto, store, core.Host{}); !o.res.Success {
		b.Fatal(o.res.Error)
	}
	var found, healed int64
	for i := 0; i < b.N; i++ {
		ok := runFlow(b, f, map[string]any{"url": srv.URL + "/form.html"}, heal.Auto, store, core.Host{})
		h := runFlow(b, f, map[string]any{"url": srv.URL + "/m01-id-renamed.html"}, heal.Auto, store, core.Host{})
		if !ok.res.Success || !h.res.Success {
			b.Fatalf("%+v %+v", ok.res.Error, h.res.Error)
		}
		n := 0
		for j, s := range h.res.Results {
			if s.Heal != nil && s.Heal.Status == "healed" {
				healed += s.DurationMs
				found += ok.res.Results[j].DurationMs
				n++
			}
		}
		if n != 1 {
			b.Fatalf("%d steps healed%s", n, stepsOf(h.res))
		}
	}
	nb := float64(b.N)
	b.ReportMetric(float64(healed)/nb, "healed-step-ms")
	b.ReportMetric(float64(found)/nb, "found-step-ms")
	b.ReportMetric(float64(healed-found)/nb, "extra-ms")
}
