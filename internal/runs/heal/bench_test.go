package heal_test

import (
	"context"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/runs/heal"
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
