// Command release builds rpa's release artifacts from the checkout:
//
//	go run ./tools/release [--out DIR] [--targets linux/amd64,linux/arm64,windows/amd64]
//
// For linux/amd64 and linux/arm64 it writes a .deb and an .rpm (made with
// github.com/goreleaser/nfpm/v2 as a library) and a portable .tar.gz; for
// windows/amd64 a .zip; and SHA256SUMS over all of them. Binaries are built
// with CGO_ENABLED=0 and -trimpath, with the version, commit and build date
// stamped into internal/buildinfo. The build is reproducible: every
// timestamp is the commit date, or SOURCE_DATE_EPOCH when set, and the
// archives hold files in a fixed order with fixed owners and modes.
//
// The packages install /usr/bin/rpa, the man page rpa(1) generated from the
// command table (`rpa help`, `rpa COMMAND -h` of the built binary), the
// README with the docs/ pages and example flows it links to (docs/, flows/), the copyright file
// and third-party licences under /usr/share/doc/rpa/ (the archives: next
// to the binary), an example connect.env, and the systemd user units
// rpa-connect.service and rpa-schedule.service (neither enabled). They depend on a Chromium-family
// browser the distribution ships (the .deb on `chromium | chromium-browser
// | google-chrome-stable`, the .rpm recommends chromium) and carry no
// maintainer scripts. The packaging files are in packaging/.
//
// It needs no network beyond the Go module proxy (for modules not yet in
// the module cache). tools/release/check.sh checks the artifacts.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// target is one GOOS/GOARCH the release builds for.
type target struct{ OS, Arch string }

func (t target) String() string { return t.OS + "/" + t.Arch }

// exe is the binary's file name on the target.
func (t target) exe() string {
	if t.OS == "windows" {
		return "rpa.exe"
	}
	return "rpa"
}

// defaultTargets are the platforms of a release.
var defaultTargets = []target{{"linux", "amd64"}, {"linux", "arm64"}, {"windows", "amd64"}}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	out := fs.String("out", "dist", "folder for the artifacts (emptied of earlier artifacts first)")
	targets := fs.String("targets", "", "comma-separated GOOS/GOARCH list (default linux/amd64,linux/arm64,windows/amd64)")
	maintainer := fs.String("maintainer", "rpa developers <rpa-dev@users.noreply.github.com>", "the packages' Maintainer/Packager field")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	tl := defaultTargets
	if *targets != "" {
		tl = nil
		for _, s := range strings.Split(*targets, ",") {
			goos, goarch, ok := strings.Cut(strings.TrimSpace(s), "/")
			if !ok || !supported(target{goos, goarch}) {
				return fmt.Errorf("--targets: %q is not one of %v", s, defaultTargets)
			}
			tl = append(tl, target{goos, goarch})
		}
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	outDir := *out
	if !filepath.IsAbs(outDir) {
		outDir = filepath.Join(root, outDir)
	}
	start := time.Now()
	v, err := readVersion(root)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "release: rpa %s (commit %s, date %s), package version %s\n", v.Describe, short(v.Commit), v.Date.Format(time.RFC3339), v.Package())
	r := &release{root: root, out: outDir, v: v, targets: tl, maintainer: *maintainer}
	if err := r.build(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "release: %d artifacts in %s (%s)\n", len(r.artifacts), outDir, time.Since(start).Round(time.Second))
	return nil
}

func supported(t target) bool {
	for _, d := range defaultTargets {
		if d == t {
			return true
		}
	}
	return false
}

func short(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// hostTarget is the machine running the release, if it is a release target.
func hostTarget() target { return target{runtime.GOOS, runtime.GOARCH} }
