package record_test

import (
	"context"
	"io/fs"
	"os"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/flows"
	"github.com/rpa-dev/rpa/internal/demoapp"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/record"
	"github.com/rpa-dev/rpa/internal/runs/report"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

// BenchmarkEvidence runs the warm reference flow (flows/query_power_data,
// the demo app with its 150 ms server delay, one shared Chromium) without
// a recorder, with default evidence and with evidence full, interleaved
// so load on the machine hits the three alike. Goals: default under 5%
// over none, full under 25%. It also reports the store's growth per
// default run (store-KB/run, goal under 50 KB).
func BenchmarkEvidence(b *testing.B) {
	srv, err := demoapp.Start(demoapp.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	src, err := fs.ReadFile(flows.FS, "query_power_data.flow")
	if err != nil {
		b.Fatal(err)
	}
	f, ds := lang.Load("query_power_data.flow", src)
	if ds.HasErrors() {
		b.Fatal(ds)
	}
	args, err := f.ParseArgs(map[string]string{"username": demoapp.DemoUsername, "password": demoapp.DemoPassword,
		"region": "110000", "base_url": srv.URL})
	if err != nil {
		b.Fatal(err)
	}
	st, err := runs.Open(b.TempDir(), runs.Options{Keep: 1 << 30, MaxBytes: 1 << 40})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	one := func(mode string) time.Duration {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		t0 := time.Now()
		var rec *record.Recorder
		opts := interp.Options{Args: args, Browser: browser}
		if mode != "" {
			rec, err = record.Start(record.Options{Store: st, Flow: f, Args: args, Caller: runs.Caller{Kind: runs.CallerCLI}, Evidence: mode})
			if err != nil {
				b.Fatal(err)
			}
			opts.Events = rec.Hook(nil)
		}
		res, page := interp.Run(ctx, f, opts)
		if rec != nil {
			if fin := rec.Finish(ctx, res, page); fin.Err != nil {
				b.Fatal(fin.Err)
			}
		}
		d := time.Since(t0)
		if page != nil {
			page.Close()
		}
		if !res.Success {
			b.Fatalf("flow failed: %+v", res.Error)
		}
		return d
	}
	for _, m := range []string{"", runs.EvidenceDefault, runs.EvidenceFull} {
		one(m) // warm up
	}
	var none, def, full time.Duration
	var defBytes int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		none += one("")
		def += one(runs.EvidenceDefault)
		l, _ := st.List(runs.Filter{Limit: 1})
		defBytes += l[0].Bytes
		full += one(runs.EvidenceFull)
	}
	n := float64(b.N)
	b.ReportMetric(float64(none.Milliseconds())/n, "none-ms/flow")
	b.ReportMetric(float64(def.Milliseconds())/n, "default-ms/flow")
	b.ReportMetric(float64(full.Milliseconds())/n, "full-ms/flow")
	b.ReportMetric(100*(float64(def)/float64(none)-1), "default-overhead-%")
	b.ReportMetric(100*(float64(full)/float64(none)-1), "full-overhead-%")
	b.ReportMetric(float64(defBytes)/n/1024, "folder-KB/run")
}

// BenchmarkReport writes the report of a failed run with its failure
// screenshot, and of an evidence-full run (a screenshot per page action);
// goal under 200 ms.
func BenchmarkReport(b *testing.B) {
	st, err := runs.Open(b.TempDir(), runs.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	src := coveredFlow
	ids := map[string]string{}
	for name, ev := range map[string]string{"failed": "", "full": runs.EvidenceFull} {
		path := b.TempDir() + "/f.flow"
		writeFlow(b, path, src)
		f, _ := lang.LoadFile(path)
		typed, _ := f.CheckArgs(map[string]any{"base": srv.URL, "user": "ann", "password": secret})
		rec, err := record.Start(record.Options{Store: st, Flow: f, Args: typed, Caller: runs.Caller{Kind: runs.CallerCLI}, Evidence: ev})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		res, page := interp.Run(ctx, f, interp.Options{Args: typed, Browser: browser, Events: rec.Hook(nil)})
		rec.Finish(ctx, res, page)
		cancel()
		if page != nil {
			page.Close()
		}
		ids[name] = rec.ID()
	}
	for _, name := range []string{"failed", "full"} {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := report.WriteFile(st, ids[name], report.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func writeFlow(tb testing.TB, path, src string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		tb.Fatal(err)
	}
}
