package stdlib_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

// TestTwoBrowsersInParallel runs two flows at once, each on its own browser
// (profile), and checks that each saw only its own page (run with -race).
func TestTwoBrowsersInParallel(t *testing.T) {
	if browser == nil {
		t.Skip("RPA_SKIP_BROWSER set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	second, err := rodd.New().Launch(ctx, drivers.LaunchOptions{UserDataDir: filepath.Join(tmpRoot, "profile2")})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	f, ds := lang.Load("p.flow", []byte(`flow p
param base: string
param name: string
open "{{ base }}/basic.html"
for i in 3 {
  fill "#name" (name + string(i))
  click "#go"
  wait "#result" text: (name + string(i))
}
r = text "#result"
return r
`))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	var wg sync.WaitGroup
	results := make([]*interp.Result, 2)
	for i, b := range []drivers.Browser{browser, second} {
		args := argsOf(t, f, map[string]any{"base": srv.URL, "name": []string{"Ada", "Bob"}[i]})
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, p := interp.Run(ctx, f, interp.Options{Browser: b, Args: args})
			if p != nil {
				_ = p.Close()
			}
			results[i] = res
		}()
	}
	wg.Wait()
	for i, want := range []string{"hello:Ada2:true", "hello:Bob2:true"} {
		if !results[i].Success || results[i].Outputs != want {
			t.Errorf("flow %d: %v %+v", i, results[i].Outputs, results[i].Error)
		}
	}
}

// TestCancelInBrowser cancels a run that waits for an element that never
// comes: Run returns within a second with the partial result.
func TestCancelInBrowser(t *testing.T) {
	if browser == nil {
		t.Skip("RPA_SKIP_BROWSER set")
	}
	f, ds := lang.Load("c.flow", []byte("flow c\nparam base: string\nopen \"{{ base }}/basic.html\"\nclick \"#never\" wait: 30s\n"))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	var once sync.Once
	go func() {
		<-started
		time.Sleep(300 * time.Millisecond)
		cancel()
	}()
	res, p := interp.Run(ctx, f, interp.Options{Browser: browser, Args: argsOf(t, f, map[string]any{"base": srv.URL}), Events: func(e interp.Event) {
		if e.Kind == interp.EventStarted && e.Action == "click" {
			once.Do(func() { close(started) })
		}
	}})
	if p != nil {
		defer p.Close()
	}
	if res.Error == nil || res.Error.Kind != "cancelled" || len(res.Results) != 2 || res.Results[0].Status != "ok" {
		t.Fatalf("%+v %+v", res.Error, res.Results)
	}
	if res.DurationMs > 300+1000+5000 { // open + 300ms + < 1s to stop (open may be slow here)
		t.Fatalf("took %dms", res.DurationMs)
	}
	if d := res.Results[1].DurationMs; d > 1300 {
		t.Fatalf("click ran %dms after being cancelled at ~300ms", d)
	}
}
