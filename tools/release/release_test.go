package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/buildinfo"
)

func TestPkgVersion(t *testing.T) {
	date := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		describe, commit string
		pkg, file        string
	}{
		{"v1.2.0", "abc", "1.2.0", "1.2.0"},
		{"v1.2.0-dirty", "abc", "1.2.0+dirty", "1.2.0-dirty"},
		{"v1.2.0-3-gabc1234", "abc1234ffff", "1.2.0+3.gabc1234", "1.2.0-3-gabc1234"},
		{"v1.2.0-3-gabc1234-dirty", "abc1234ffff", "1.2.0+3.gabc1234.dirty", "1.2.0-3-gabc1234-dirty"},
		{"abc1234", "abc1234ffff", "0.0.0+git20261201.abc1234", "abc1234"},
		{"abc1234-dirty", "abc1234ffff", "0.0.0+git20261201.abc1234.dirty", "abc1234-dirty"},
		{"dev", "", "0.0.0+git20261201", "dev"},
		{"release-candidate", "0123456789", "0.0.0+git20261201.0123456", "release-candidate"},
	}
	for _, tt := range tests {
		v := version{Describe: tt.describe, Commit: tt.commit, Date: date}
		if got := v.Package(); got != tt.pkg {
			t.Errorf("%s: Package = %q, want %q", tt.describe, got, tt.pkg)
		}
		if got := v.FileVersion(); got != tt.file {
			t.Errorf("%s: FileVersion = %q, want %q", tt.describe, got, tt.file)
		}
	}
}

func TestReadVersionSourceDateEpoch(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	v, err := readVersion(t.TempDir()) // not a git checkout
	if err != nil {
		t.Fatal(err)
	}
	if v.Describe != "dev" || v.Commit != "" || !v.Date.Equal(time.Unix(1700000000, 0)) {
		t.Errorf("readVersion = %+v", v)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "yesterday")
	if _, err := readVersion(t.TempDir()); err == nil || !strings.Contains(err.Error(), "SOURCE_DATE_EPOCH") {
		t.Errorf("bad SOURCE_DATE_EPOCH: err = %v", err)
	}
}

const topHelp = `rpa turns browser workflows (.flow or YAML) into typed tools AI agents call over MCP.

usage: rpa COMMAND [ARGS]

commands:
  check    parse and check flows without a browser
  version  print the version

Run ` + "`rpa help COMMAND`" + ` or ` + "`rpa COMMAND -h`" + ` for details.
`

func TestParseHelp(t *testing.T) {
	h, err := parseTopHelp(topHelp)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h.Intro, "rpa turns browser workflows") || len(h.Commands) != 2 ||
		h.Commands[0] != (cmdHelp{Name: "check", Summary: "parse and check flows without a browser", Usage: "rpa check"}) ||
		h.Commands[1].Name != "version" {
		t.Errorf("parseTopHelp = %+v", h)
	}
	if _, err := parseTopHelp("rpa\n\ncommands:\n  broken\n"); err == nil {
		t.Error("a command line without a summary was accepted")
	}
	if _, err := parseTopHelp("no table here\n"); err == nil {
		t.Error("help without commands was accepted")
	}
	if u := usageLine("usage: rpa check [-oneline] FILE|DIR...\n\nparse\n"); u != "rpa check [-oneline] FILE|DIR..." {
		t.Errorf("usageLine = %q", u)
	}
	shared := "usage: rpa check\n\nsummary\n\nflags:\n  -oneline\n    \tone line\n"
	if f := flagList(shared, "check"); f != "  -oneline\n    \tone line" {
		t.Errorf("flagList(shared) = %q", f)
	}
	def := "Usage of connect:\n  -device-id string\n    \tid\n"
	if f := flagList(def, "connect"); f != "  -device-id string\n    \tid" {
		t.Errorf("flagList(default) = %q", f)
	}
	if f := flagList("usage: rpa list\n\nsummary\n", "list"); f != "" {
		t.Errorf("flagList(no flags) = %q", f)
	}
}

func TestManPage(t *testing.T) {
	h := help{Intro: "rpa turns browser workflows into tools.", Commands: []cmdHelp{
		{Name: "check", Usage: "rpa check [-oneline] FILE|DIR...", Summary: "check flows", Flags: "  -oneline\n    \tone line per diagnostic (file:line:col)"},
		{Name: "fmt", Usage: "rpa fmt", Summary: `.dots and \backslashes`},
	}}
	v := version{Describe: "v1.0.0", Date: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	man := string(manPage(h, v))
	for _, want := range []string{
		`.TH RPA 1 "2026-12-01" "rpa v1.0.0" "User Commands"`,
		`.B rpa check [\-oneline] FILE|DIR...`,
		`\&.dots and \ebackslashes.`,
		"  \\-oneline\n",
		".SH ENVIRONMENT", "RPA_HOME", "rpa\\-connect.service", "rpa\\-schedule.service",
	} {
		if !strings.Contains(man, want) {
			t.Errorf("man page lacks %q:\n%s", want, man)
		}
	}
	for i, line := range strings.Split(man, "\n") {
		if strings.HasPrefix(line, ".") && !strings.HasPrefix(line, `.\"`) {
			req := strings.Fields(line)[0]
			switch req {
			case ".TH", ".SH", ".B", ".I", ".RI", ".PP", ".TP", ".RS", ".RE", ".nf", ".fi":
			default:
				t.Errorf("line %d: unexpected request %q", i+1, line)
			}
		}
	}
}

// TestArchivesReproducible: equal inputs give byte-equal archives, with
// fixed owners, modes and times, under the top folder.
func TestArchivesReproducible(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "rpa")
	doc := filepath.Join(dir, "README.md")
	if err := os.WriteFile(bin, []byte("\x7fELF fake"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(doc, []byte("# rpa\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	files := []entry{{"rpa", bin, 0o755}, {"README.md", doc, 0o644}}
	var a, b bytes.Buffer
	if err := writeTarGz(&a, "rpa_1.0.0_linux_amd64", files, mtime); err != nil {
		t.Fatal(err)
	}
	// A later mtime on disk must not change the archive.
	if err := os.Chtimes(bin, time.Now(), time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := writeTarGz(&b, "rpa_1.0.0_linux_amd64", files, mtime); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("tar.gz differs between two runs")
	}
	zr, err := gzip.NewReader(bytes.NewReader(a.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !zr.ModTime.Equal(mtime) || zr.Name != "" {
		t.Errorf("gzip header: mtime %v name %q", zr.ModTime, zr.Name)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if !h.ModTime.Equal(mtime) || h.Uid != 0 || h.Uname != "root" {
			t.Errorf("%s: mtime %v uid %d uname %q", h.Name, h.ModTime, h.Uid, h.Uname)
		}
		if h.Name == "rpa_1.0.0_linux_amd64/rpa" && h.Mode != 0o755 {
			t.Errorf("rpa mode %o", h.Mode)
		}
	}
	if strings.Join(names, " ") != "rpa_1.0.0_linux_amd64/ rpa_1.0.0_linux_amd64/rpa rpa_1.0.0_linux_amd64/README.md" {
		t.Errorf("tar entries %v", names)
	}

	a.Reset()
	b.Reset()
	if err := writeZip(&a, "rpa_1.0.0_windows_amd64", files, mtime); err != nil {
		t.Fatal(err)
	}
	if err := writeZip(&b, "rpa_1.0.0_windows_amd64", files, mtime); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("zip differs between two runs")
	}
	zip, err := zip.NewReader(bytes.NewReader(a.Bytes()), int64(a.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(zip.File) != 2 || zip.File[0].Name != "rpa_1.0.0_windows_amd64/rpa" || !zip.File[0].Modified.Equal(mtime) {
		t.Errorf("zip entries %+v", zip.File)
	}
}

func TestCleanArtifacts(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"rpa_1_amd64.deb", "rpa-1.x86_64.rpm", "rpa_1_linux_amd64.tar.gz", "rpa_1_windows_amd64.zip", "SHA256SUMS", "notes.txt", "other.deb"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := cleanArtifacts(dir); err != nil {
		t.Fatal(err)
	}
	left, _ := os.ReadDir(dir)
	var names []string
	for _, e := range left {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "notes.txt other.deb" {
		t.Errorf("left %v", names)
	}
}

// TestLicenceAndHomepage: the packages' licence is the one LICENSE holds
// (the Apache License 2.0, named by its SPDX identifier), packaging/copyright
// says the same, and their homepage is the repository named by go.mod.
func TestLicenceAndHomepage(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	lic, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	if buildinfo.License != "Apache-2.0" || !strings.Contains(string(lic), "Apache License") || !strings.Contains(string(lic), "Version 2.0, January 2004") ||
		!strings.Contains(string(lic), "END OF TERMS AND CONDITIONS") {
		t.Errorf("LICENSE is not the whole Apache License 2.0 text, or buildinfo.License %q does not name it", buildinfo.License)
	}
	cp, err := os.ReadFile(filepath.Join(root, "packaging", "copyright"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cp), "License: "+buildinfo.License) || strings.Contains(string(cp), "NOASSERTION") {
		t.Errorf("packaging/copyright does not state %s:\n%s", buildinfo.License, cp)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(mod), "\n")
	if want := "https://" + strings.TrimSpace(strings.TrimPrefix(first, "module")); buildinfo.Homepage != want {
		t.Errorf("buildinfo.Homepage = %q, want %q (go.mod's module)", buildinfo.Homepage, want)
	}
}
