package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rpa-dev/rpa/flows"
	"github.com/rpa-dev/rpa/internal/demoapp"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
)

func init() {
	register(command{
		name:    "demo",
		usage:   "rpa demo [--region CODE] [--flow NAME] [--show] [--json] [--browser-bin PATH] | rpa demo --serve ADDR",
		summary: "serve the demo power-system app on loopback and run the example flow query_power_data against it",
		run: withSignals(func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
			return runDemo(ctx, args, runIO{stdin: os.Stdin, stdout: stdout, stderr: stderr})
		}),
	})
}

// runDemo is `rpa demo`: it serves internal/demoapp on a free loopback
// port, runs an embedded example flow (flows.FS, query_power_data by
// default) against it headless with the demo credentials, and prints the
// rows as a table plus a summary. With --serve ADDR it only serves the app
// until interrupted (for trying flows with `rpa run`).
func runDemo(ctx context.Context, args []string, rio runIO) int {
	stdout, stderr := rio.stdout, rio.stderr
	fset := newFlags("demo", stderr)
	region := fset.String("region", "110000", "region code to query (110000, 310000, 330100, 440300, 510100; 000000 has no data)")
	flowName := fset.String("flow", "query_power_data", "which example flow to run (query_power_data, all_pages, region_total, compare_regions)")
	show := fset.Bool("show", false, "show the browser window")
	asJSON := fset.Bool("json", false, "print only the result JSON (with runId and report)")
	bin := fset.String("browser-bin", "", "Chromium binary (default: $ROD_BROWSER, else chromium on PATH)")
	serve := fset.String("serve", "", "only serve the demo app on ADDR (e.g. 127.0.0.1:8080) until Ctrl-C")
	delay := fset.Duration("delay", 150*time.Millisecond, "the app's server delay before it answers a query")
	if done, code := parseFlags(fset, args); done {
		return code
	}
	if fset.NArg() > 0 {
		return fail(stderr, exitUsage, "demo", fmt.Errorf("unexpected argument %q", fset.Arg(0)))
	}
	appDelay := *delay
	if appDelay == 0 {
		appDelay = -1 // demoapp: negative = no delay
	}
	if *serve != "" {
		err := demoapp.ServeUntil(ctx, *serve, demoapp.Options{Delay: appDelay}, func(url string) {
			fmt.Fprintf(stderr, "rpa demo: serving the demo app on %s (user %s, password %s); Ctrl-C stops\n", url, demoapp.DemoUsername, demoapp.DemoPassword)
		})
		if err != nil {
			return fail(stderr, exitUsage, "demo", err)
		}
		return exitOK
	}
	all, err := flows.Examples()
	if err != nil {
		return fail(stderr, exitFailed, "demo", err)
	}
	srv, err := demoapp.Start(demoapp.Options{Delay: appDelay})
	if err != nil {
		return fail(stderr, exitFailed, "demo", err)
	}
	defer srv.Close()
	f, kv, err := flows.Example(all, *flowName, srv.URL, *region)
	if err != nil {
		return fail(stderr, exitUsage, "demo", err)
	}
	if !*asJSON {
		fmt.Fprintf(stderr, "demo app on %s; running %s (region %s)\n", srv.URL, f.File.Name, *region)
	}
	typed, err := f.ParseArgs(kv)
	if err != nil {
		return fail(stderr, exitUsage, "demo", err)
	}
	rf := &runFlags{cmd: "demo", json: *asJSON, nolog: true}
	rf.run.Show, rf.run.Bin = *show, *bin
	rf.run.Flows = func(name string) (*lang.Flow, bool) { g, ok := all[name]; return g, ok }
	out, code := execute(ctx, f, typed, rf, rio)
	switch {
	case out == nil:
	case *asJSON:
		_ = printJSON(stdout, resultJSON(out))
	default:
		if !demoapp.PrintRows(stdout, out.Result.Outputs) {
			interp.PrintOutcome(stdout, io.Discard, f, out.Result)
		}
		interp.PrintOutcome(io.Discard, stderr, f, out.Result)
		if out.Record != "" {
			fmt.Fprintln(stderr, out.Record)
		}
	}
	return code
}
