package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// version is what the release stamps and names artifacts after.
type version struct {
	// Describe is `git describe --tags --always --dirty` ("v1.2.0",
	// "v1.2.0-3-gabc1234-dirty", "abc1234"), or "dev" outside git.
	Describe string
	// Commit is the full commit hash ("" outside git).
	Commit string
	// Date is the build date: SOURCE_DATE_EPOCH when set, else the commit
	// date, else the Unix epoch (never the clock, so builds repeat).
	Date time.Time
}

// moduleRoot is the folder of the main module's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the rpa module (run from the repository)")
	}
	return filepath.Dir(mod), nil
}

// readVersion asks git in root; every git failure falls back (dev, no
// commit, epoch date) so a source tarball still builds.
func readVersion(root string) (version, error) {
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	v := version{Describe: git("describe", "--tags", "--always", "--dirty"), Commit: git("rev-parse", "HEAD")}
	if v.Describe == "" {
		v.Describe = "dev"
	}
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return v, fmt.Errorf("SOURCE_DATE_EPOCH=%q is not a number of seconds", s)
		}
		v.Date = time.Unix(n, 0).UTC()
	} else if s := git("log", "-1", "--format=%ct"); s != "" {
		n, _ := strconv.ParseInt(s, 10, 64)
		v.Date = time.Unix(n, 0).UTC()
	} else {
		v.Date = time.Unix(0, 0).UTC()
	}
	return v, nil
}

var describeRE = regexp.MustCompile(`^v?(\d+\.\d+\.\d+)(?:-(\d+)-g([0-9a-f]+))?(-dirty)?$`)
var hashRE = regexp.MustCompile(`^([0-9a-f]{4,40})(-dirty)?$`)

// pkgVersion splits the version for deb and rpm: the upstream version
// X.Y.Z (0.0.0 before the first vX.Y.Z tag) and metadata that sorts after
// it (dpkg and rpm put "X.Y.Z+META" after "X.Y.Z"): "3.gabc1234" for 3
// commits past a tag, "git20261201.abc1234" without a tag, ".dirty" for a
// modified tree.
func (v version) pkgVersion() (upstream, meta string) {
	var parts []string
	if m := describeRE.FindStringSubmatch(v.Describe); m != nil {
		upstream = m[1]
		if m[2] != "" {
			parts = append(parts, m[2], "g"+m[3])
		}
		if m[4] != "" {
			parts = append(parts, "dirty")
		}
		return upstream, strings.Join(parts, ".")
	}
	upstream = "0.0.0"
	hash := short(v.Commit)
	dirty := false
	if m := hashRE.FindStringSubmatch(v.Describe); m != nil {
		hash, dirty = m[1], m[2] != ""
	}
	if len(hash) > 7 {
		hash = hash[:7]
	}
	parts = append(parts, "git"+v.Date.Format("20060102"))
	if hash != "" {
		parts = append(parts, hash)
	}
	if dirty {
		parts = append(parts, "dirty")
	}
	return upstream, strings.Join(parts, ".")
}

// Package is the full package version, "X.Y.Z" or "X.Y.Z+META".
func (v version) Package() string {
	u, m := v.pkgVersion()
	if m == "" {
		return u
	}
	return u + "+" + m
}

// FileVersion names the archives: Describe without a leading "v".
func (v version) FileVersion() string {
	return strings.TrimPrefix(v.Describe, "v")
}
