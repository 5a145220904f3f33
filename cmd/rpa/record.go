package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/internal/host/profiles"

	"github.com/rpa-dev/rpa/internal/authoring/importer"
	"github.com/rpa-dev/rpa/internal/authoring/recorder"
	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/diag"
)

func init() {
	register(command{
		name:    "record",
		usage:   "rpa record URL -o FILE.flow [--profile ID] [--param NAME=SELECTOR]... [--headless] [--force]",
		summary: "record what you do in a browser as a flow (stop by closing the browser or with Ctrl-C)",
		run:     withSignals(runRecord),
	})
}

// runRecord opens Chromium at URL and records until the browser is closed
// or the process is interrupted, then writes the flow to -o (loaded back
// with lang.Load first). Exit 0 written, 1 when recording failed, 2 on
// usage, 130 when interrupted before the browser started.
func runRecord(ctx context.Context, args []string, _, stderr io.Writer) int {
	fs := newFlags("record", stderr)
	out := fs.String("o", "", "the .flow file to write (its name is the flow's NAME)")
	profile := fs.String("profile", "", "record in this browser profile (logins kept), under $RPA_HOME/profiles")
	headless := fs.Bool("headless", false, "no window (for scripted sessions)")
	force := fs.Bool("force", false, "replace -o if it exists (else refused before the browser opens, exit 2)")
	var params recorder.ParamList
	fs.Var(&params, "param", "NAME=SELECTOR: the value of the field matching SELECTOR becomes param NAME (repeatable)")
	pos, done, code := parseArgs(fs, args)
	if done {
		return code
	}
	if len(pos) != 1 || *out == "" {
		fs.Usage()
		return exitUsage
	}
	if !strings.HasSuffix(*out, ".flow") {
		fmt.Fprintf(stderr, "rpa record: -o must name a .flow file, not %s\n", *out)
		return exitUsage
	}
	if err := importer.Refuse(*force, *out); err != nil { // refused now, not after the session
		return fail(stderr, exitUsage, "record", err)
	}
	// What would lose the recording at its end is refused before the browser opens: an
	// address open cannot load (the flow's first step would be refused too) and a folder
	// the flow cannot be written to.
	if why := actions.CheckOpenURL(pos[0]); why != "" {
		return fail(stderr, exitUsage, "record", errors.New(why))
	}
	if err := writableDir(filepath.Dir(*out)); err != nil {
		return fail(stderr, exitUsage, "record", fmt.Errorf("-o: %v", err))
	}
	name := recorder.NameFor(*out)
	opts := recorder.Options{URL: pos[0], Name: name, Headless: *headless, Params: params}
	if *profile != "" {
		dir, err := profiles.Dir(*profile)
		if err != nil {
			return fail(stderr, exitUsage, "record", fmt.Errorf("--profile: %v", err))
		}
		opts.UserDataDir = dir
	}
	if !*headless {
		if msg := hitl.NoDisplay("record with --headless and drive the browser over the DevTools endpoint it prints"); msg != "" {
			fmt.Fprintf(stderr, "rpa record: %s\n", msg)
			return exitUsage
		}
	}
	sess, err := recorder.Start(ctx, opts)
	if err != nil {
		if ctx.Err() != nil {
			return exitCancelled
		}
		return fail(stderr, exitFailed, "record", err)
	}
	if *headless {
		// The control endpoint (a CDP WebSocket on a Unix socket only
		// this user can reach, never a TCP port), written as Node's ws
		// library does.
		fmt.Fprintf(stderr, "DevTools listening on %s\n", sess.ControlURL())
	}
	fmt.Fprintf(stderr, "recording %s — close the browser or press Ctrl-C to stop\n", pos[0])
	file, ds := sess.Wait(ctx)
	_, err = importer.Write(nil, *out, pos[0], []*importer.Flow{{Name: name, File: file}}, true) // refused at start, or --force
	if te := (*importer.TextError)(nil); errors.As(err, &te) {
		return internalError(stderr, "record", "the recorded flow", te)
	}
	diag.Render(stderr, ds, nil)
	if err != nil {
		return fail(stderr, exitFailed, "record", err)
	}
	fmt.Fprintf(stderr, "wrote %s (%d steps)\n", *out, len(file.Body))
	return exitOK
}

// writableDir says why a file cannot be written in dir (nil when it can):
// it must exist, be a folder and take a new file (one is made and removed).
func writableDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("folder %s: %w", dir, errors.Unwrap(err))
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	f, err := os.CreateTemp(dir, ".rpa-record-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, errors.Unwrap(err))
	}
	f.Close()
	return os.Remove(f.Name())
}
