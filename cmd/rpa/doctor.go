package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rpa-dev/rpa/internal/doctor"
)

func init() {
	register(command{
		name:    "doctor",
		usage:   "rpa doctor [--json] [--fix] [--browser-bin PATH] [--flows DIR] [--no-launch] [--connect URL [--device-id ID] [--token T]]",
		summary: "check that this machine can run flows (browser, $RPA_HOME, profiles, display, flows, connect settings) and say how to fix what is missing",
		run:     withSignals(runDoctor),
	})
}

// runDoctor runs doctor.Run and prints the report (or its JSON with
// --json). Exit 0 when nothing failed (notes do not fail), 1 when an item
// failed, 2 on bad usage, 130 when interrupted.
func runDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("doctor", stderr)
	asJSON := fs.Bool("json", false, `print {"ok":BOOL,"checks":[{"name","status","detail","fix"}...]}`)
	bin := fs.String("browser-bin", "", "Chromium binary (default: $ROD_BROWSER, else chromium on PATH)")
	flows := fs.String("flows", "", "flows folder to check (default $RPA_HOME/flows)")
	noLaunch := fs.Bool("no-launch", false, "find the browser but do not start it")
	connectURL := fs.String("connect", "", "dial this backend (ws:// or wss://) once and register, as rpa connect does")
	deviceID := fs.String("device-id", "", "device id for --connect (default doctor-HOSTNAME, so a running rpa connect keeps its link)")
	token := fs.String("token", "", "bearer token for --connect (default $RPA_TOKEN)")
	envFile := fs.String("connect-env", "", "settings file of the rpa-connect user service (default ~/.config/rpa/connect.env; - skips)")
	timeout := fs.Duration("timeout", 60*time.Second, "bound on the browser launch and on the dial, each")
	fix := fs.Bool("fix", false, "scrub the profiles a crash left unscrubbed (secrets a run gave the browser), then check")
	if done, code := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rpa doctor: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *token == "" {
		*token = os.Getenv("RPA_TOKEN")
	}
	r := doctor.Run(ctx, doctor.Options{
		BrowserBin: *bin,
		NoLaunch:   *noLaunch,
		FlowsDir:   *flows,
		ConnectEnv: *envFile,
		ConnectURL: *connectURL,
		DeviceID:   *deviceID,
		Token:      *token,
		Timeout:    *timeout,
		Fix:        *fix,
	})
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "rpa doctor: interrupted")
		return exitCancelled
	}
	if *asJSON {
		_ = printJSON(stdout, r)
	} else {
		doctor.Print(stdout, r)
	}
	if !r.OK {
		return exitFailed
	}
	return exitOK
}
