// Package doctor checks that a machine is ready to run rpa: the browser
// (found, its version, one headless launch), $RPA_HOME (writable), the
// profiles (in use by a running rpa, or held by an orphaned browser), the
// display and dialog backend of the
// desktop channel for asking a person, the flows folder (how many flows
// check clean), and the settings of `rpa connect` (the file the
// rpa-connect user service reads and, when asked, one dial and register at
// the backend). `rpa doctor` prints the report; each failing item carries a
// line saying how to fix it.
//
// Every check returns one Check. What a headless server does not need (a
// display, a dialog backend, a connect setup) is reported as a note, never
// as a failure.
package doctor

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/internal/host/home"
)

// Status is the outcome of one check.
type Status string

// The statuses of a Check. Only Fail makes the report fail.
const (
	OK   Status = "ok"   // in place
	Fail Status = "fail" // rpa cannot do its job until this is fixed
	Note Status = "note" // worth knowing, not needed everywhere (e.g. no display on a server)
)

// Check is the result of one item.
type Check struct {
	// Name is the item's short name: "browser", "browser launch", "home",
	// "profiles", "display", "dialogs", "flows", "connect settings", "connect".
	Name string `json:"name"`
	// Status is ok, fail or note.
	Status Status `json:"status"`
	// Detail says what was found (a path, a version, a count, an error).
	Detail string `json:"detail"`
	// Fix says how to fix a failing item (always set on Fail), or what to
	// do about a note; "" when there is nothing to do.
	Fix string `json:"fix,omitempty"`
}

// Report is every check in order. OK is false when any check failed.
type Report struct {
	OK     bool    `json:"ok"`
	Checks []Check `json:"checks"`
}

// Options selects what Run checks. The zero value checks this machine's
// defaults without dialling anywhere.
type Options struct {
	// Home is rpa's data folder; "" means home.Dir() ($RPA_HOME, else ~/.rpa).
	Home string
	// BrowserBin is the Chromium binary; "" finds it as every command does
	// ($ROD_BROWSER, /usr/bin/chromium, chromium on PATH; see drivers/rod.FindBrowser).
	BrowserBin string
	// NoLaunch skips the headless launch (the browser is still looked up).
	NoLaunch bool
	// FlowsDir is the served flows folder; "" means Home/flows.
	FlowsDir string
	// ConnectEnv is the settings file of the rpa-connect user service; ""
	// means DefaultConnectEnv() (skipped off Linux); "-" skips the check.
	ConnectEnv string
	// ConnectURL, when set (ws:// or wss://), is dialled once: the check
	// passes when the backend accepts the register message (it then sends
	// its MCP initialize request).
	ConnectURL string
	// DeviceID is sent in that register message; "" means "doctor-HOSTNAME",
	// so the check never replaces the link of a running `rpa connect` that
	// uses the real id (a backend keeps one link per device id).
	DeviceID string
	// Token is the bearer token for ConnectURL ("" sends none). Never printed.
	Token string
	// Timeout bounds the browser launch and the dial, each; 0 means 60s.
	Timeout time.Duration
	// Getenv reads the environment (DISPLAY, WAYLAND_DISPLAY); nil means os.Getenv.
	Getenv func(string) string
	// LookPath finds the dialog programs; nil means exec.LookPath.
	LookPath func(string) (string, error)
}

func (o Options) withDefaults() Options {
	if o.Home == "" {
		o.Home = home.Dir()
	}
	if o.FlowsDir == "" {
		o.FlowsDir = filepath.Join(o.Home, "flows")
	}
	if o.ConnectEnv == "" {
		o.ConnectEnv = DefaultConnectEnv()
		if o.ConnectEnv == "" {
			o.ConnectEnv = "-" // no rpa-connect service on this platform
		}
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.LookPath == nil {
		o.LookPath = exec.LookPath
	}
	return o
}

// Run runs every check in order: browser, browser launch, browser
// isolation, home, run store, profiles,
// display, dialogs, flows, connect settings, connect (only with
// ConnectURL). It never panics on a broken machine; each problem becomes a
// failing Check.
func Run(ctx context.Context, opts Options) Report {
	o := opts.withDefaults()
	var r Report
	add := func(c Check) { r.Checks = append(r.Checks, c) }

	b := CheckBrowser(ctx, o.BrowserBin)
	add(b.Check)
	switch {
	case o.NoLaunch:
	case b.Status == Fail:
		add(Check{Name: "browser launch", Status: Fail, Detail: "skipped: no browser", Fix: b.Fix})
	default:
		lctx, cancel := context.WithTimeout(ctx, o.Timeout)
		add(CheckLaunch(lctx, b.Path, o.Home))
		cancel()
		add(CheckIsolation()) // after the launch: it may have met a kernel that refuses the sandbox
	}
	add(CheckHome(o.Home))
	add(CheckRunStore(o.Home))
	add(CheckProfiles(o.Home))
	add(CheckDisplay(o.Getenv))
	add(CheckDialogs(o.LookPath))
	add(CheckFlows(o.FlowsDir))
	if o.ConnectEnv != "-" {
		add(CheckConnectEnv(o.ConnectEnv))
	}
	if o.ConnectURL != "" {
		id := o.DeviceID
		if id == "" {
			host, _ := os.Hostname()
			id = "doctor-" + host
		}
		dctx, cancel := context.WithTimeout(ctx, o.Timeout)
		add(CheckConnect(dctx, o.ConnectURL, id, o.Token))
		cancel()
	}
	r.OK = true
	for _, c := range r.Checks {
		if c.Status == Fail {
			r.OK = false
		}
	}
	return r
}

// Print writes the report for a person: one line per check
// ("ok    browser  /usr/bin/chromium (Chromium 131...)"), an indented
// "fix:" line under each failing item and each note with advice, and a
// last line with the verdict.
func Print(w io.Writer, r Report) {
	width := 0
	for _, c := range r.Checks {
		width = max(width, len(c.Name))
	}
	fails, notes := 0, 0
	for _, c := range r.Checks {
		fmt.Fprintf(w, "%-4s  %-*s  %s\n", c.Status, width, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(w, "      %-*s  fix: %s\n", width, "", c.Fix)
		}
		switch c.Status {
		case Fail:
			fails++
		case Note:
			notes++
		}
	}
	switch {
	case fails > 0:
		fmt.Fprintf(w, "\n%d item(s) failed; fix them as shown above.\n", fails)
	case notes > 0:
		fmt.Fprintf(w, "\nready (%d note(s) above).\n", notes)
	default:
		fmt.Fprintln(w, "\nready.")
	}
}

// firstLine trims s to its first line, at most 200 bytes.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
