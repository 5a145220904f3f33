package interp

import (
	"context"
	"testing"

	"strings"

	"github.com/rpa-dev/rpa/drivers/fake"
)

// BenchmarkInterpOverhead measures the interpreter's own cost per action
// (replay engine, events, results, masking) against the fake driver: a
// flow of 100 actions (click, fill from a secret, text bound to a name,
// an assignment), reported per action.
func BenchmarkInterpOverhead(b *testing.B) { benchOverhead(b, nil) }

// benchOverhead runs BenchmarkInterpOverhead's flow with hook as
// Options.StepHook.
func benchOverhead(b *testing.B, hook StepHook) {
	br := fake.New()
	page := br.AddPage("http://x")
	page.Add("#a", &fake.Element{Txt: "A"})
	page.Add("#u", &fake.Element{})
	const n = 25
	var sb strings.Builder
	sb.WriteString("flow bench\nparam pw: secret\n")
	for i := 0; i < n; i++ {
		sb.WriteString("click \"#a\"\nfill \"#u\" pw\nt = text \"#a\"\nfill \"#u\" \"user {{ t }}\"\n")
	}
	f := load(b, sb.String())
	events := 0
	opts := Options{Browser: br, Page: page, Args: argsOf(b, f, map[string]any{"pw": "hunter2"}), Events: func(Event) { events++ }, StepHook: hook}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, _ := Run(context.Background(), f, opts)
		if !res.Success {
			b.Fatal(res.Error)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*4*n), "ns/action")
}
