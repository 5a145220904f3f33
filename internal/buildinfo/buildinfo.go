// Package buildinfo holds what a release build stamps into the rpa binary
// (version, commit, build date) and falls back to what the Go toolchain
// records (runtime/debug.ReadBuildInfo: the module version and the vcs.*
// settings of `go build` in a git checkout) when nothing was stamped, as in
// `go run ./cmd/rpa` or `go install`.
//
// The release build (tools/release) sets the three variables with
//
//	-ldflags "-X github.com/rpa-dev/rpa/internal/buildinfo.version=V
//	          -X github.com/rpa-dev/rpa/internal/buildinfo.commit=C
//	          -X github.com/rpa-dev/rpa/internal/buildinfo.date=D"
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Stamped at link time by tools/release (see the package doc); empty in a
// plain `go build`.
var (
	version string // `git describe --tags --always --dirty`, e.g. v0.3.0-4-gabc1234
	commit  string // full commit hash
	date    string // build date, RFC 3339 UTC (the commit date or SOURCE_DATE_EPOCH)
)

// Info describes one rpa binary. It is what `rpa version --json` prints.
type Info struct {
	// Version is the release version ("v0.3.0", "v0.3.0-4-gabc1234-dirty"),
	// else the module version Go recorded ("(devel)" in a checkout), else "dev".
	Version string `json:"version"`
	// Commit is the git commit the binary was built from; "" when unknown.
	Commit string `json:"commit"`
	// Date is the build date (RFC 3339, UTC) for a release build, else the
	// commit date Go recorded; "" when unknown.
	Date string `json:"date"`
	// Modified is true when the working tree had uncommitted changes
	// (from vcs.modified, or a "-dirty" version).
	Modified bool `json:"modified"`
	// GoVersion is the toolchain that built the binary (runtime.Version()).
	GoVersion string `json:"go"`
	// OS and Arch are the target platform (runtime.GOOS, runtime.GOARCH).
	OS   string `json:"os"`
	Arch string `json:"arch"`
	// License is rpa's licence as an SPDX identifier (License).
	License string `json:"license"`
}

// License is rpa's licence (SPDX identifier; the text is LICENSE at the
// repository's root), as the packages' metadata and `rpa version` state it.
const License = "Apache-2.0"

// Homepage is the repository's address: https:// and the module path of
// go.mod (the packages' Homepage and URL fields).
const Homepage = "https://github.com/rpa-dev/rpa"

// Get returns the binary's build information: the stamped values where set,
// else runtime/debug.ReadBuildInfo's, else "dev" and empty strings.
func Get() Info {
	in := Info{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, License: License}
	in.Modified = strings.HasSuffix(version, "-dirty")
	if bi, ok := debug.ReadBuildInfo(); ok {
		fill(&in, bi)
	}
	if in.Version == "" {
		in.Version = "dev"
	}
	return in
}

// fill completes in from bi where the stamped values are empty.
func fill(in *Info, bi *debug.BuildInfo) {
	stamped := in.Version != ""
	if in.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		in.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if in.Commit == "" {
				in.Commit = s.Value
			}
		case "vcs.time":
			if in.Date == "" {
				in.Date = s.Value
			}
		case "vcs.modified":
			if !stamped && s.Value == "true" {
				in.Modified = true
			}
		}
	}
}

// String is the one-line form `rpa version` prints:
// "rpa VERSION (COMMIT12, DATE) GOVERSION OS/ARCH", leaving out what is unknown.
func (in Info) String() string {
	var b strings.Builder
	b.WriteString("rpa ")
	b.WriteString(in.Version)
	var paren []string
	if c := in.Commit; c != "" {
		if len(c) > 12 {
			c = c[:12]
		}
		if in.Modified && !strings.HasSuffix(in.Version, "-dirty") {
			c += "+dirty"
		}
		paren = append(paren, c)
	}
	if in.Date != "" {
		paren = append(paren, in.Date)
	}
	if len(paren) > 0 {
		b.WriteString(" (" + strings.Join(paren, ", ") + ")")
	}
	b.WriteString(" " + in.GoVersion + " " + in.OS + "/" + in.Arch)
	return b.String()
}
