package main

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/goreleaser/nfpm/v2"
	_ "github.com/goreleaser/nfpm/v2/deb" // registers the deb packager
	"github.com/goreleaser/nfpm/v2/files"
	_ "github.com/goreleaser/nfpm/v2/rpm" // registers the rpm packager
	"github.com/rpa-dev/rpa/internal/buildinfo"
)

// Where the packages put things.
const (
	binPath  = "/usr/bin/rpa"
	docDir   = "/usr/share/doc/rpa"
	manPath  = "/usr/share/man/man1/rpa.1.gz"
	unitPath = "/usr/lib/systemd/user/rpa-connect.service"
	// scheduleUnitPath runs `rpa schedule daemon` (not enabled either).
	scheduleUnitPath = "/usr/lib/systemd/user/rpa-schedule.service"
)

// debDepends is the browser the .deb depends on: the names Debian and
// Ubuntu-family distributions (UOS, Kylin's desktop) ship Chromium under,
// then Google's package; any one satisfies it. drivers/rod.FindBrowser
// looks for the same binaries.
var debDepends = []string{"chromium | chromium-browser | google-chrome-stable"}

// rpmRecommends are weak dependencies of the .rpm (Kylin, openEuler,
// Fedora-family ship chromium): installed when available, never blocking.
var rpmRecommends = []string{"chromium"}

// summary is the one-line description; longDescription follows it (the
// .deb puts both in Description, the .rpm has Summary and Description).
const (
	summary         = "turn browser workflows into typed tools AI agents call over MCP"
	longDescription = `rpa checks browser workflows (a small .flow language, or YAML) like a
compiler, runs them in headless Chromium, and serves every flow of a
folder as an MCP tool (stdio, Streamable HTTP, or an outgoing WebSocket
link to a backend with the rpa-connect user service); flows also run on a
schedule (rpa schedule, the rpa-schedule user service).`
)

// pkg writes the deb or rpm of t with nfpm and returns its file name.
func (r *release) pkg(t target, format string) (string, error) {
	upstream, meta := r.v.pkgVersion()
	fi := func(mode os.FileMode) *files.ContentFileInfo {
		return &files.ContentFileInfo{Owner: "root", Group: "root", Mode: mode, MTime: r.v.Date}
	}
	contents := files.Contents{
		{Source: r.bins[t], Destination: binPath, FileInfo: fi(0o755)},
		{Source: r.docs.readme, Destination: docDir + "/README.md", FileInfo: fi(0o644)},
		{Source: r.docs.copyright, Destination: docDir + "/copyright", FileInfo: fi(0o644)},
		{Source: r.docs.license, Destination: docDir + "/LICENSE", FileInfo: fi(0o644)},
		{Source: r.docs.thirdParty, Destination: docDir + "/THIRD_PARTY_LICENSES", FileInfo: fi(0o644)},
		{Source: r.docs.connectEnv, Destination: docDir + "/connect.env.example", FileInfo: fi(0o644)},
		{Source: r.docs.man + ".gz", Destination: manPath, FileInfo: fi(0o644)},
		{Source: r.docs.unit, Destination: unitPath, FileInfo: fi(0o644)},
		{Source: r.docs.scheduleUnit, Destination: scheduleUnitPath, FileInfo: fi(0o644)},
		// rpm removes only the folders a package owns; dpkg tracks them itself.
		{Destination: docDir, Type: files.TypeDir, Packager: "rpm", FileInfo: fi(0o755)},
	}
	dirs := map[string]bool{}
	for _, f := range r.docs.guide {
		dst := docDir + "/" + f.rel
		for d := path.Dir(dst); d != docDir && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
			contents = append(contents, &files.Content{Destination: d, Type: files.TypeDir, Packager: "rpm", FileInfo: fi(0o755)})
		}
		contents = append(contents, &files.Content{Source: f.src, Destination: dst, FileInfo: fi(0o644)})
	}
	info := &nfpm.Info{
		Name:            "rpa",
		Arch:            t.Arch,
		Platform:        "linux",
		Version:         upstream,
		VersionSchema:   "none",
		VersionMetadata: meta,
		Release:         "1",
		Section:         "utils",
		Priority:        "optional",
		Maintainer:      r.maintainer,
		Vendor:          "rpa developers",
		Homepage:        buildinfo.Homepage,
		License:         buildinfo.License,
		MTime:           r.v.Date,
		DisableGlobbing: true,
		Overridables: nfpm.Overridables{
			Contents: contents,
			Umask:    0o022,
			RPM: nfpm.RPM{
				Summary:     "Turn browser workflows into typed tools AI agents call over MCP",
				Group:       "Applications/Internet",
				Compression: "gzip",
				BuildHost:   "rpa-release",
				Packager:    r.maintainer,
			},
			Deb: nfpm.Deb{Compression: "gzip"},
		},
	}
	switch format {
	case "deb":
		info.Depends = debDepends
		info.Description = summary + "\n" + indent(longDescription)
	case "rpm":
		info.Recommends = rpmRecommends
		info.Description = longDescription
	}
	info = nfpm.WithDefaults(info)
	packager, err := nfpm.Get(format)
	if err != nil {
		return "", err
	}
	if err := nfpm.PrepareForPackager(info, format); err != nil {
		return "", fmt.Errorf("%s for %s: %w", format, t, err)
	}
	name := packager.ConventionalFileName(info)
	err = writeAtomic(filepath.Join(r.out, name), func(w io.Writer) error { return packager.Package(info, w) })
	if err != nil {
		return "", fmt.Errorf("%s for %s: %w", format, t, err)
	}
	return name, nil
}

// indent prefixes every line with a space (a Debian control continuation).
func indent(s string) string {
	return " " + strings.ReplaceAll(s, "\n", "\n ")
}
